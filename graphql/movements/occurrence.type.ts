import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import type { Context } from '../context.js';
import { establishmentNameOfUnit, type Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import { asEnum } from '../shared/enums.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import type { Occurrence as OccurrenceRow } from '../../src/movements/occurrence.entity.js';
import { OCCURRENCE_STATUSES, OCCURRENCE_TYPES, REPORTED_TYPES } from '../../src/movements/occurrence.rules.js';

export const OccurrenceTypeEnum = asEnum(OCCURRENCE_TYPES);
export const OccurrenceStatusEnum = asEnum(OCCURRENCE_STATUSES);
registerEnumType(OccurrenceTypeEnum, { name: 'OccurrenceType' });
registerEnumType(OccurrenceStatusEnum, { name: 'OccurrenceStatus' });

@ObjectType('Occurrence', { description: 'An incident on an animal, tag, movement or unit, reported by a person or raised by the movement rules: OPEN → RESOLVED | DISMISSED' })
export class Occurrence {
  @Field(() => UUID) id!: string;
  @Field(() => OccurrenceTypeEnum) str_type!: string;
  @Field(() => OccurrenceStatusEnum) str_status!: string;
  @Field(() => UUID, { description: 'Where it happened: who sees it' }) control_unit_id!: string;
  @Field(() => ControlUnit) control_unit!: ControlUnit;
  @Field(() => String, { nullable: true }) str_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => UUID, { nullable: true }) animal_id!: string | null;
  @Field(() => UUID, { nullable: true }) tag_id!: string | null;
  @Field(() => UUID, { nullable: true }) animals_egress_id!: string | null;
  @Field(() => UUID, { nullable: true }) animals_ingress_id!: string | null;
  @Field(() => UUID, { nullable: true }) gta_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'The travel a TRANSIT_TIME_EXCEEDED occurrence is about (null for the other types)' }) travel_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'Null when a rule raised it' }) reporter_user_id!: string | null;
  @Field(() => UUID, { nullable: true }) resolver_user_id!: string | null;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true, description: 'Why it was resolved or dismissed' }) str_resolution!: string | null;
  @Field(() => DateTime, { description: 'When it happened (as reported; the rule’s time when raised)' }) ts_occurred_at!: Date;
  @Field(() => DateTime, { nullable: true }) ts_resolved_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock at creation, as sent" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const OCCURRENCE_NEEDS: Needs = {
  control_unit: { path: ['control_unit'], next: () => CONTROL_UNIT_NEEDS },
  str_control_unit_code: { path: ['control_unit'] },
  str_establishment_name: { path: ['control_unit', 'any_establishment'] },
};

@Resolver(() => Occurrence)
export class OccurrenceFieldsResolver {
  @FieldResolver(() => ControlUnit)
  control_unit(@Root() o: OccurrenceRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(o.control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  async str_control_unit_code(@Root() o: OccurrenceRow, @Ctx() ctx: Context): Promise<string | null> {
    return (await ctx.loaders.unrestrictedControlUnitById.load(o.control_unit_id))?.str_code ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  str_establishment_name(@Root() o: OccurrenceRow, @Ctx() ctx: Context): Loaded<string | null> {
    return establishmentNameOfUnit(ctx.loaders, o.control_unit_id);
  }
}

@ObjectType('OccurrencePage')
export class OccurrencePage {
  @Field(() => [Occurrence]) data!: Occurrence[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('OccurrenceCreateInput', {
  description: `Occurrence Create: a person reports ${REPORTED_TYPES.join(', ')} at a unit of its organization (the other types are raised by the movement rules). ANIMAL_DEATH makes an ACTIVE animal DEAD; THEFT makes it MISSING`,
})
export class OccurrenceCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated uuid: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: `Required: ${REPORTED_TYPES.join(', ')}` }) str_type?: string;
  @Field(() => String, { nullable: true, description: 'Required: a unit of the active organization' }) control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'An animal at control_unit_id; required for ANIMAL_DEATH and THEFT' }) animal_id?: string;
  @Field(() => String, { nullable: true, description: 'A tag at control_unit_id (an applied one names its animal)' }) tag_id?: string;
  @Field(() => String, { nullable: true, description: 'An animals egress from or to control_unit_id' }) animals_egress_id?: string;
  @Field(() => String, { nullable: true, description: 'An animals ingress at control_unit_id' }) animals_ingress_id?: string;
  @Field(() => String, { nullable: true, description: 'A GTA from or to control_unit_id' }) gta_id?: string;
  @Field(() => String, { nullable: true, description: 'Required when str_type is OTHER' }) str_description?: string;
  @Field(() => DateTime, { nullable: true, description: 'When it happened (default: now; not in the future); a death closes the stay then' }) ts_occurred_at?: Date;
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given, never used for order" }) ts_unsafe_client_created_at?: Date;
}

@InputType('OccurrenceResolutionInput', { description: 'Occurrence Resolve / Dismiss' })
export class OccurrenceResolutionInput {
  @Field(() => String, { nullable: true, description: 'Required: how it was resolved, or why it is dismissed' }) str_resolution?: string;
}
