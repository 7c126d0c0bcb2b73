import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import { SocioenvironmentalStatusEnum } from '../places/enums.js';
import { asEnum } from '../shared/enums.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { Gta } from './gta.type.js';
import { Occurrence } from './occurrence.type.js';
import type { Occurrence as OccurrenceRow } from '../../src/movements/occurrence.entity.js';
import { AnimalsIngressTag, AnimalsMovementTagInput } from './movement-read.type.js';
import { movementLoaders } from './movements.loaders.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { AnimalsIngress as AnimalsIngressRow } from '../../src/movements/animals-ingress.entity.js';
import type { MovementReadRow } from '../../src/movements/animals-egress.reader.js';
import type { IngressGtaRow } from '../../src/movements/animals-ingress.reader.js';
import type { Gta as GtaRow } from '../../src/movements/gta.entity.js';
import { INGRESS_STATUSES, MAX_READS_PER_BATCH } from '../../src/movements/movement.rules.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';

export const AnimalsIngressStatusEnum = asEnum(INGRESS_STATUSES);
registerEnumType(AnimalsIngressStatusEnum, { name: 'AnimalsIngressStatus' });

@ObjectType('AnimalsIngressGta', { description: 'A GTA the animals arrived under, with the truck plate' })
export class AnimalsIngressGta {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) gta_id!: string;
  @Field(() => String, { nullable: true }) str_license_plate!: string | null;
  @Field(() => String, { description: 'The GTA number' }) str_code!: string;
  @Field(() => String, { nullable: true }) str_series!: string | null;
  @Field(() => String) str_federative_unit!: string;
  @Field(() => String, { nullable: true, description: "The state's id_gta" }) str_external_id!: string | null;
  @Field(() => Gta, { nullable: true }) gta!: Gta | null;
}

@ObjectType('AnimalsIngress', { description: 'Animals arriving at a control unit under GTAs: OPEN → RECEIVED | RECEIVED_WITH_DIVERGENCE; CANCELLED' })
export class AnimalsIngress {
  @Field(() => UUID) id!: string;
  @Field(() => AnimalsIngressStatusEnum) str_status!: string;
  @Field(() => Boolean) bl_move_with_tag_reading!: boolean;
  @Field(() => UUID, { nullable: true }) to_control_unit_id!: string | null;
  @Field(() => ControlUnit) to_control_unit!: ControlUnit;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => User, { nullable: true }) operator_user!: User | null;
  @Field(() => [AnimalsIngressGta]) gtas!: AnimalsIngressGta[];
  @Field(() => [AnimalsIngressTag], { description: 'The reads, in the order they happened' }) tags!: AnimalsIngressTag[];
  @Field(() => [Occurrence], { description: 'What its reconciliation raised (MISSING_ON_ARRIVAL, UNEXPECTED_ANIMAL, COUNT_DIVERGENCE) and what people reported on it' }) occurrences!: Occurrence[];
  @Field(() => Int, { nullable: true, description: 'Reading off: the animals counted' }) int_animal_count!: number | null;
  @Field(() => Int, { nullable: true, description: 'On finish: the dispatched animals that arrived' }) int_received_count!: number | null;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true }) str_label!: string | null;
  @Field(() => SocioenvironmentalStatusEnum, { nullable: true, description: 'The worst of the animals received (on finish)' }) str_socioenvironmental_status!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_started_at!: Date | null;
  @Field(() => DateTime, { nullable: true }) ts_first_read!: Date | null;
  @Field(() => DateTime, { nullable: true }) ts_finished_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const ANIMALS_INGRESS_NEEDS: Needs = {
  to_control_unit: { path: ['to_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  operator_user: { path: ['operator_user'], next: () => USER_NEEDS },
};

@Resolver(() => AnimalsIngress)
export class AnimalsIngressFieldsResolver {
  @FieldResolver(() => ControlUnit)
  to_control_unit(@Root() i: AnimalsIngressRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(i.to_control_unit_id);
  }

  @FieldResolver(() => User, { nullable: true })
  operator_user(@Root() i: AnimalsIngressRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return i.operator_user_id ? ctx.loaders.userById.load(i.operator_user_id) : null;
  }

  @FieldResolver(() => [AnimalsIngressGta])
  gtas(@Root() i: AnimalsIngressRow, @Ctx() ctx: Context): Promise<IngressGtaRow[]> {
    return movementLoaders(ctx).ingressGtas.load(i.id);
  }

  @FieldResolver(() => [AnimalsIngressTag])
  tags(@Root() i: AnimalsIngressRow, @Ctx() ctx: Context): Promise<MovementReadRow[]> {
    return movementLoaders(ctx).ingressReads.load(i.id);
  }

  @FieldResolver(() => [Occurrence])
  occurrences(@Root() i: AnimalsIngressRow, @Ctx() ctx: Context): Promise<OccurrenceRow[]> {
    return movementLoaders(ctx).ingressOccurrences.load(i.id);
  }
}

@Resolver(() => AnimalsIngressGta)
export class AnimalsIngressGtaFieldsResolver {
  @FieldResolver(() => Gta, { nullable: true })
  gta(@Root() g: IngressGtaRow, @Ctx() ctx: Context): Loaded<GtaRow | null> {
    return ctx.loaders.gtaById.load(g.gta_id);
  }
}

@ObjectType('AnimalsIngressPage')
export class AnimalsIngressPage {
  @Field(() => [AnimalsIngress]) data!: AnimalsIngress[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('AnimalsIngressGtaInput', { description: 'Animals Ingress Create Gtas' })
export class AnimalsIngressGtaInput {
  @Field(() => String, { nullable: true }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: a GTA for this destination' }) gta_id?: string;
  @Field(() => String, { nullable: true }) str_license_plate?: string;
}

@InputType('AnimalsIngressCreateInput', { description: 'Animals Ingress create body' })
export class AnimalsIngressCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: the unit the animals arrive at (the caller works there or is invited to receive there)' }) to_control_unit_id?: string;
  @Field(() => String, { nullable: true }) operator_user_id?: string;
  @Field(() => Boolean, { nullable: true, description: "Default: the destination establishment's" }) bl_move_with_tag_reading?: boolean;
  @Field(() => Int, { nullable: true, description: 'Reading off: the animals counted off the truck' }) int_animal_count?: number;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => String, { nullable: true }) str_label?: string;
  @Field(() => [AnimalsIngressGtaInput], { nullable: true, description: 'Required: one or more' }) gtas?: AnimalsIngressGtaInput[];
  @Field(() => [AnimalsMovementTagInput], { nullable: true, description: `A first batch of reads (at most ${MAX_READS_PER_BATCH})` }) tags?: AnimalsMovementTagInput[];
  @Field(() => DateTime, { nullable: true, description: 'Default: now' }) ts_started_at?: Date;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}
