import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { EUDR_REASONS } from '../../src/eudr/eudr.verdict.js';
import { MAX_LOT_LIST, MAX_WINDOW_DAYS } from '../../src/eudr/eudr-lot.input.js';
import { DateTime, JSONObject, UUID } from '../shared/scalars.js';

@InputType('EudrLotInput', { description: `The lot one EUDR due diligence statement covers: exactly one of gta_id, animals_ingress_id, lst_animal_ids, lst_tag_codes (up to ${MAX_LOT_LIST}), or control_unit_id with ts_from and ts_to (the animals slaughtered at that unit in the window, at most ${MAX_WINDOW_DAYS} days)` })
export class EudrLotInput {
  @Field(() => UUID, { nullable: true, description: 'The animals dispatched under this GTA' }) gta_id?: string;
  @Field(() => UUID, { nullable: true, description: 'The animals received by this animals ingress' }) animals_ingress_id?: string;
  @Field(() => [UUID], { nullable: true }) lst_animal_ids?: string[];
  @Field(() => [String], { nullable: true, description: 'Tag codes (15 digits), current or replaced' }) lst_tag_codes?: string[];
  @Field(() => UUID, { nullable: true, description: 'A slaughterhouse unit: the animals slaughtered there from ts_from (inclusive) to ts_to (exclusive)' }) control_unit_id?: string;
  @Field(() => DateTime, { nullable: true }) ts_from?: Date;
  @Field(() => DateTime, { nullable: true }) ts_to?: Date;
}

@ObjectType('EudrAnimalRef', { description: 'An animal a reason concerns: its id and the code of the tag in its ear' })
export class EudrAnimalRef {
  @Field(() => UUID) id!: string;
  @Field(() => String, { nullable: true, description: 'The tag applied now (the last one the animal had when none is)' }) str_tag_code!: string | null;
}

@ObjectType('EudrReason', { description: 'Why one establishment keeps the lot from a statement' })
export class EudrReason {
  @Field(() => UUID) establishment_id!: string;
  @Field(() => String) str_establishment_name!: string;
  @Field(() => String, { description: EUDR_REASONS.join(', ') }) str_reason!: string;
  @Field(() => String) str_detail!: string;
  @Field(() => Int, { description: "The lot's animals there (for UNKNOWN_ORIGIN, those whose earlier holdings are unknown)" }) int_animals!: number;
  @Field(() => [EudrAnimalRef], { nullable: true, description: 'For UNKNOWN_ORIGIN, those animals, by tag code; null for reasons about the establishment itself' }) animals!: EudrAnimalRef[] | null;
}

@ObjectType('EudrVerdict', { description: 'READY when every establishment of the lot has a valid point and a CAR, none is NON_COMPLIANT and no animal came from an unknown origin; otherwise NOT_READY with each reason' })
export class EudrVerdict {
  @Field(() => String, { description: 'READY or NOT_READY' }) str_status!: string;
  @Field(() => Int) int_animals!: number;
  @Field(() => Int) int_establishments!: number;
  @Field(() => [EudrReason]) reasons!: EudrReason[];
}

@ObjectType('EudrGeolocation', { description: "A lot's EUDR geolocation: every establishment its animals stood at since identification, and the verdict" })
export class EudrGeolocation {
  @Field(() => JSONObject, { description: 'An RFC 7946 FeatureCollection, one Point feature per establishment (geometry null where it has none), with the properties TRACES reads (ProducerName, ProducerCountry, ProductionPlace, Area) and ours' }) feature_collection!: object;
  @Field(() => EudrVerdict) verdict!: EudrVerdict;
}
