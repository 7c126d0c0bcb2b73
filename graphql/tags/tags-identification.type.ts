import type { GraphQLResolveInfo } from 'graphql';
import { Ctx, Field, FieldResolver, Info, InputType, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { establishmentNameOfUnit, type Loaded, mapLoaded } from '../loaders.js';
import { includeOf, type Needs } from '../lookahead.js';
import { ANIMAL_NEEDS, Animal } from '../animals/animal.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit, GeoPointInput } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { Animal as AnimalRow } from '../../src/animals/animal.entity.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import type { TagsIdentification as TagsIdentificationRow } from '../../src/tags/tags-identification.entity.js';
import { AnimalGenderEnum, AnimalSpeciesEnum } from './enums.js';
import { tagsLoaders } from './tags.loaders.js';

@ObjectType('TagsIdentification', { description: 'Animals identified at a control unit in one request. Tags Identification Partial Data is a selection of it' })
export class TagsIdentification {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => ControlUnit) control_unit!: ControlUnit;
  @Field(() => String, { nullable: true }) str_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => Int) int_animal_count!: number;
  @Field(() => [Animal], { description: 'The animals it identified that the caller sees now, in body order' }) animals!: Animal[];
  @Field(() => DateTime, { nullable: true, description: "The device's clock at creation, as sent" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const TAGS_IDENTIFICATION_NEEDS: Needs = {
  control_unit: { path: ['control_unit'], next: () => CONTROL_UNIT_NEEDS },
  str_control_unit_code: { path: ['control_unit'] },
  str_establishment_name: { path: ['control_unit', 'any_establishment'] },
};

@Resolver(() => TagsIdentification)
export class TagsIdentificationFieldsResolver {
  @FieldResolver(() => ControlUnit)
  control_unit(@Root() i: TagsIdentificationRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(i.control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  str_control_unit_code(@Root() i: TagsIdentificationRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(ctx.loaders.unrestrictedControlUnitById.load(i.control_unit_id), (v) => v?.str_code ?? null);
  }

  @FieldResolver(() => String, { nullable: true })
  str_establishment_name(@Root() i: TagsIdentificationRow, @Ctx() ctx: Context): Loaded<string | null> {
    return establishmentNameOfUnit(ctx.loaders, i.control_unit_id);
  }

  @FieldResolver(() => [Animal])
  animals(@Root() i: TagsIdentificationRow, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<AnimalRow[]> {
    return tagsLoaders(ctx).animalsOfIdentification(includeOf(info, ANIMAL_NEEDS)).load(i.id);
  }
}

@ObjectType('TagsIdentificationPage')
export class TagsIdentificationPage {
  @Field(() => [TagsIdentification]) data!: TagsIdentification[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('TagsIdentificationAnimalInput', { description: 'One animal: its tag (tag_id or str_tag_code, AVAILABLE or RESERVED at the unit) and what was recorded about it' })
export class TagsIdentificationAnimalInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id of the animal' }) id?: string;
  @Field(() => String, { nullable: true }) tag_id?: string;
  @Field(() => String, { nullable: true, description: '15 digits' }) str_tag_code?: string;
  @Field(() => AnimalSpeciesEnum, { nullable: true, description: 'Required' }) str_species?: string;
  @Field(() => AnimalGenderEnum, { nullable: true, description: 'Required' }) str_gender?: string;
  @Field(() => DateTime, { nullable: true, description: 'Not in the future, not after ts_identified_at' }) ts_born_date?: Date;
  @Field(() => Int, { nullable: true, description: 'At least 0' }) int_age_months_at_identification?: number;
  @Field(() => Int, { nullable: true, description: 'At least 1' }) int_weight_kilos_at_identification?: number;
  @Field(() => DateTime, { nullable: true, description: 'When the tag went on (default: now); not in the future' }) ts_identified_at?: Date;
  @Field(() => GeoPointInput, { nullable: true }) geo_identification?: GeoPointInput;
  @Field(() => String, { nullable: true, description: 'The RFID code; unique' }) str_rod_code?: string;
  @Field(() => String, { nullable: true }) str_extra_tag?: string;
  @Field(() => String, { nullable: true }) str_name?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => DateTime, { nullable: true, description: "Default: the identification's" }) ts_unsafe_client_created_at?: Date;
}

@InputType('TagsIdentificationCreateInput', { description: 'Tags Identification Create: to_control_unit_id and the animals, all or none' })
export class TagsIdentificationCreateInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: a unit of the active organization' }) to_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Default: the caller' }) operator_user_id?: string;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
  @Field(() => [TagsIdentificationAnimalInput], { nullable: true, description: 'Required: 1 to 1000 animals' }) animals?: TagsIdentificationAnimalInput[];
}
