import { Ctx, Field, FieldResolver, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Needs } from '../lookahead.js';
import { establishmentNameOfUnit } from '../loaders.js';
import { GeoPoint } from '../places/establishment.type.js';
import { SocioenvironmentalStatusEnum } from '../places/enums.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, JSONObject, UUID } from '../shared/scalars.js';
import { TAG_NEEDS, Tag } from '../tags/tag.type.js';
import { AnimalStay, staysLoader } from './animal-stay.type.js';
import type { StayRow } from '../../src/animals/stay.reader.js';
import { AnimalGenderEnum, AnimalSpeciesEnum, AnimalStatusEnum } from '../tags/enums.js';
import type { Animal as AnimalEntity } from '../../src/animals/animal.entity.js';
import type { Tag as TagRow } from '../../src/tags/tag.entity.js';
import { geoPointOf } from '../../src/places/establishment.rules.js';

@ObjectType('Animal', { description: 'An identified bovine or buffalo. Animal and Animal Partial Data are selections of it' })
export class Animal {
  @Field(() => UUID) id!: string;
  @Field(() => Tag, { nullable: true, description: 'Its applied tag (after a writeoff, the last one it carried); null for an animal that arrived with only a rod code' }) current_tag!: Tag | null;
  @Field(() => UUID, { nullable: true }) current_tag_id!: string | null;
  @Field(() => String, { nullable: true }) str_current_tag_code!: string | null;
  @Field(() => GeoPoint, { nullable: true }) geo_identification!: GeoPoint | null;
  @Field(() => Int, { nullable: true }) int_age_months_at_identification!: number | null;
  @Field(() => Int, { nullable: true }) int_weight_kilos_at_identification!: number | null;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true }) str_extra_tag!: string | null;
  @Field(() => AnimalGenderEnum, { nullable: true }) str_gender!: string | null;
  @Field(() => String, { nullable: true }) str_name!: string | null;
  @Field(() => String, { nullable: true, description: 'The electronic code RFID readers read' }) str_rod_code!: string | null;
  @Field(() => SocioenvironmentalStatusEnum, { nullable: true, description: 'The worst of every establishment it has been at' }) str_socioenvironmental_status!: string | null;
  @Field(() => AnimalSpeciesEnum, { nullable: true }) str_species!: string | null;
  @Field(() => AnimalStatusEnum, { nullable: true }) str_status!: string | null;
  @Field(() => UUID) last_control_unit_id!: string;
  @Field(() => String, { nullable: true }) str_last_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => UUID, { nullable: true }) tags_identification_id!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_born_date!: Date | null;
  @Field(() => DateTime, { nullable: true }) ts_identified_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: 'When it died, was slaughtered or exported' }) ts_ended_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock at creation, as sent" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => [AnimalStay], { description: 'Where it has been, oldest first: each stay names the ingress that brought it and the egress (and GTA) that took it away' }) stays!: AnimalStay[];
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const ANIMAL_NEEDS: Needs = {
  current_tag: { path: ['current_tag'], next: () => TAG_NEEDS },
  str_current_tag_code: { path: ['current_tag'] },
  str_last_control_unit_code: { path: ['last_control_unit'] },
  str_establishment_name: { path: ['last_control_unit', 'any_establishment'] },
};

@Resolver(() => Animal)
export class AnimalFieldsResolver {
  @FieldResolver(() => Tag, { nullable: true })
  async current_tag(@Root() a: AnimalEntity, @Ctx() ctx: Context): Promise<TagRow | null> {
    return a.current_tag_id ? ctx.loaders.tagById.load(a.current_tag_id) : null;
  }

  @FieldResolver(() => [AnimalStay])
  stays(@Root() a: AnimalEntity, @Ctx() ctx: Context): Promise<StayRow[]> {
    return staysLoader(ctx).load(a.id);
  }

  @FieldResolver(() => String, { nullable: true })
  async str_current_tag_code(@Root() a: AnimalEntity, @Ctx() ctx: Context): Promise<string | null> {
    return a.current_tag_id ? ((await ctx.loaders.tagById.load(a.current_tag_id))?.str_code ?? null) : null;
  }

  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_identification(@Root() a: AnimalEntity): GeoPoint | null {
    return geoPointOf(a);
  }

  @FieldResolver(() => String, { nullable: true })
  async str_last_control_unit_code(@Root() a: AnimalEntity, @Ctx() ctx: Context): Promise<string | null> {
    return (await ctx.loaders.unrestrictedControlUnitById.load(a.last_control_unit_id))?.str_code ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_establishment_name(@Root() a: AnimalEntity, @Ctx() ctx: Context): Promise<string | null> {
    return establishmentNameOfUnit(ctx.loaders, a.last_control_unit_id);
  }
}

@ObjectType('AnimalPage')
export class AnimalPage {
  @Field(() => [Animal]) data!: Animal[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('AnimalHistory', { description: "One event of an animal's history" })
export class AnimalHistory {
  @Field(() => UUID) id!: string;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => JSONObject, { description: '{str_event, ts_occurred_at, actor, changes, refs}' }) criteria!: Record<string, unknown>;
}

@ObjectType('AnimalHistoryPage')
export class AnimalHistoryPage {
  @Field(() => [AnimalHistory]) data!: AnimalHistory[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}
