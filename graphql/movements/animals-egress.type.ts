import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { establishmentNameOfUnit, mapLoaded, type Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import { SocioenvironmentalStatusEnum } from '../places/enums.js';
import { asEnum } from '../shared/enums.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { GTA_NEEDS, Gta } from './gta.type.js';
import { AnimalsEgressTag, AnimalsMovementTagInput } from './movement-read.type.js';
import { movementLoaders } from './movements.loaders.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { AnimalsEgress as AnimalsEgressRow } from '../../src/movements/animals-egress.entity.js';
import type { MovementReadRow } from '../../src/movements/animals-egress.reader.js';
import type { Gta as GtaRow } from '../../src/movements/gta.entity.js';
import { EGRESS_STATUSES, MAX_READS_PER_BATCH } from '../../src/movements/movement.rules.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import { registerEnumType } from 'type-graphql';

export const AnimalsEgressStatusEnum = asEnum(EGRESS_STATUSES);
registerEnumType(AnimalsEgressStatusEnum, { name: 'AnimalsEgressStatus' });

@ObjectType('AnimalsEgress', { description: 'Animals leaving a control unit: OPEN → FINISHED (under a GTA) → RECEIVED; CANCELLED. Animals Egress and Animals Egress Partial Data are selections of it' })
export class AnimalsEgress {
  @Field(() => UUID) id!: string;
  @Field(() => AnimalsEgressStatusEnum) str_status!: string;
  @Field(() => Boolean, { description: 'Reads carry ts_egress_at and geo_egress' }) bl_move_with_tag_reading!: boolean;
  @Field(() => Int, { description: 'Animals read (fixed on finish)' }) int_tag_count!: number;
  @Field(() => UUID, { nullable: true }) from_control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true }) to_control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true }) gta_id!: string | null;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => ControlUnit) from_control_unit!: ControlUnit;
  @Field(() => ControlUnit, { nullable: true }) to_control_unit!: ControlUnit | null;
  @Field(() => Gta, { nullable: true }) gta!: Gta | null;
  @Field(() => User, { nullable: true }) operator_user!: User | null;
  @Field(() => String, { nullable: true }) str_operator_user_name!: string | null;
  @Field(() => String, { nullable: true }) str_from_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_from_establishment_name!: string | null;
  @Field(() => String, { nullable: true }) str_to_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_to_establishment_name!: string | null;
  @Field(() => [AnimalsEgressTag], { description: 'The reads, in the order they happened' }) tags!: AnimalsEgressTag[];
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true }) str_label!: string | null;
  @Field(() => String, { nullable: true }) str_license_plate!: string | null;
  @Field(() => SocioenvironmentalStatusEnum, { nullable: true, description: 'The worst of the animals carried (on finish)' }) str_socioenvironmental_status!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_last_read!: Date | null;
  @Field(() => DateTime, { nullable: true }) ts_finished_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const ANIMALS_EGRESS_NEEDS: Needs = {
  from_control_unit: { path: ['from_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  to_control_unit: { path: ['to_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  str_from_control_unit_code: { path: ['from_control_unit'] },
  str_to_control_unit_code: { path: ['to_control_unit'] },
  str_from_establishment_name: { path: ['from_control_unit', 'any_establishment'] },
  str_to_establishment_name: { path: ['to_control_unit', 'any_establishment'] },
  gta: { path: ['gta'], next: () => GTA_NEEDS },
  operator_user: { path: ['operator_user'], next: () => USER_NEEDS },
  str_operator_user_name: { path: ['operator_user'] },
};

const unit = (ctx: Context, id: string | null): Loaded<ControlUnitRow | null> => (id ? ctx.loaders.unrestrictedControlUnitById.load(id) : null);
const operatorOf = (e: { operator_user_id: string | null }, ctx: Context): Loaded<UserRow | null> => (e.operator_user_id ? ctx.loaders.userById.load(e.operator_user_id) : null);

@Resolver(() => AnimalsEgress)
export class AnimalsEgressFieldsResolver {
  @FieldResolver(() => ControlUnit)
  from_control_unit(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return unit(ctx, e.from_control_unit_id);
  }

  @FieldResolver(() => ControlUnit, { nullable: true })
  to_control_unit(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return unit(ctx, e.to_control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  str_from_control_unit_code(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(unit(ctx, e.from_control_unit_id), (v) => v?.str_code ?? null);
  }

  @FieldResolver(() => String, { nullable: true })
  str_to_control_unit_code(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(unit(ctx, e.to_control_unit_id), (v) => v?.str_code ?? null);
  }

  @FieldResolver(() => String, { nullable: true })
  str_from_establishment_name(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return establishmentNameOfUnit(ctx.loaders, e.from_control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  str_to_establishment_name(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return e.to_control_unit_id ? establishmentNameOfUnit(ctx.loaders, e.to_control_unit_id) : null;
  }

  @FieldResolver(() => Gta, { nullable: true })
  gta(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<GtaRow | null> {
    return e.gta_id ? ctx.loaders.gtaById.load(e.gta_id) : null;
  }

  @FieldResolver(() => User, { nullable: true })
  operator_user(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return operatorOf(e, ctx);
  }

  @FieldResolver(() => String, { nullable: true })
  str_operator_user_name(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(operatorOf(e, ctx), (v) => v?.str_name ?? null);
  }

  @FieldResolver(() => [AnimalsEgressTag])
  tags(@Root() e: AnimalsEgressRow, @Ctx() ctx: Context): Promise<MovementReadRow[]> {
    return movementLoaders(ctx).egressReads.load(e.id);
  }
}

@ObjectType('AnimalsEgressPage')
export class AnimalsEgressPage {
  @Field(() => [AnimalsEgress]) data!: AnimalsEgress[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('AnimalsEgressCreateInput', { description: 'Animals Egress create body' })
export class AnimalsEgressCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: the unit the animals leave (the caller works there)' }) from_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: "Any control unit; default on finish: the GTA's destination" }) to_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Required on finish' }) gta_id?: string;
  @Field(() => String, { nullable: true, description: "Default: the caller; else a member of the origin's organization" }) operator_user_id?: string;
  @Field(() => Boolean, { nullable: true, description: "Default: the origin establishment's" }) bl_move_with_tag_reading?: boolean;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => String, { nullable: true }) str_label?: string;
  @Field(() => String, { nullable: true }) str_license_plate?: string;
  @Field(() => [AnimalsMovementTagInput], { nullable: true, description: `A first batch of reads (at most ${MAX_READS_PER_BATCH})` }) tags?: AnimalsMovementTagInput[];
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}

@InputType('AnimalsEgressUpdateInput', { description: 'While OPEN' })
export class AnimalsEgressUpdateInput {
  @Field(() => String, { nullable: true }) to_control_unit_id?: string;
  @Field(() => String, { nullable: true }) gta_id?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => String, { nullable: true }) str_label?: string;
  @Field(() => String, { nullable: true }) str_license_plate?: string;
}

@InputType('AnimalsMovementTagsInput', { description: 'A batch of reads' })
export class AnimalsMovementTagsInput {
  @Field(() => [AnimalsMovementTagInput], { nullable: true, description: `At most ${MAX_READS_PER_BATCH}` }) tags?: AnimalsMovementTagInput[];
  @Field(() => Int, { nullable: true, description: 'Ingress with reading off: the animals counted so far' }) int_animal_count?: number;
}
