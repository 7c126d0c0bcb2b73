import { Arg, Ctx, Field, InputType, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { AnimalStatusEnum } from '../tags/enums.js';
import { EstablishmentTypeEnum, SocioenvironmentalStatusEnum } from '../places/enums.js';
import { PaginationMeta, PageInput } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { TraceResult } from '../../src/trace/trace.service.js';
import { MAX_TRACE_PAGE, TRACE_DIRECTIONS } from '../../src/trace/trace.service.js';

@ObjectType('TracedStay', { description: 'A stay of a traced animal at a unit the caller sees, with the GTA it left under' })
export class TracedStay {
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => String) str_control_unit_code!: string;
  @Field(() => UUID) establishment_id!: string;
  @Field(() => String) str_establishment_name!: string;
  @Field(() => DateTime) ts_from!: Date;
  @Field(() => DateTime, { nullable: true }) ts_to!: Date | null;
  @Field(() => UUID, { nullable: true }) animals_ingress_id!: string | null;
  @Field(() => UUID, { nullable: true }) animals_egress_id!: string | null;
  @Field(() => UUID, { nullable: true }) gta_id!: string | null;
  @Field(() => String, { nullable: true }) str_gta_code!: string | null;
}

@ObjectType('TracedAnimal', { description: 'An animal the trace reached: how (the seed, or a contact with an animal at a unit and time), its fewest moves from the seed, its path and where it is now' })
export class TracedAnimal {
  @Field(() => UUID) animal_id!: string;
  @Field(() => String, { nullable: true }) str_tag_code!: string | null;
  @Field(() => String, { description: 'SEED or CONTACT' }) str_reached_by!: string;
  @Field(() => UUID, { nullable: true, description: 'The animal it shared a unit or a vehicle with (null for a seed, or when the caller may not read that animal)' }) via_animal_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'The unit of the contact (null for a seed, a contact on a vehicle, or a unit the caller does not see)' }) via_control_unit_id!: string | null;
  @Field(() => DateTime, { nullable: true, description: 'When the contact began (forward) or ended (backward)' }) ts_via!: Date | null;
  @Field(() => Int, { description: 'The fewest moves between units from the seed' }) int_hops!: number;
  @Field(() => AnimalStatusEnum) str_status!: string;
  @Field(() => UUID, { description: 'Where it is now (its last unit; while IN_TRANSIT, the one it left)' }) last_control_unit_id!: string;
  @Field(() => [TracedStay], { description: 'Its whole path, oldest first (stays at units the caller sees)' }) stays!: TracedStay[];
}

@ObjectType('TracedEstablishment', { description: 'An establishment of the contact chain: when and how it was first reached (backward: last), its fewest moves from the seed, its traced animals' })
export class TracedEstablishment {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_name!: string;
  @Field(() => EstablishmentTypeEnum) str_type!: string;
  @Field(() => SocioenvironmentalStatusEnum) str_socioenvironmental_status!: string;
  @Field(() => DateTime, { description: 'Its first exposure (backward: its last)' }) ts_exposure!: Date;
  @Field(() => Int, { description: 'The fewest moves between units from the seed to it' }) int_hops!: number;
  @Field(() => UUID, { nullable: true, description: 'The animal that brought the exposure (null when the caller may not read it)' }) animal_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'The unit it came to (null when the caller does not see it)' }) control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'The GTA of that leg (forward: the one it arrived under; backward: the one it left under)' }) gta_id!: string | null;
  @Field(() => String, { nullable: true }) str_gta_code!: string | null;
  @Field(() => Int, { description: 'The traced animals that stood there' }) int_traced_animals!: number;
}

@ObjectType('TracePage')
export class TracePage {
  @Field(() => [TracedAnimal]) data!: TracedAnimal[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
  @Field(() => [TracedEstablishment], { description: 'The contact chain: every establishment the walk reached that the caller sees, nearest first, on every page' }) establishments!: TracedEstablishment[];
  @Field(() => Int, { description: 'How many establishments' }) int_total_establishments!: number;
}

@InputType('TraceInput', { description: 'Exactly one of establishment_id, control_unit_id, animal_id; a window; a direction; a hop limit' })
export class TraceInput {
  @Field(() => String, { nullable: true }) establishment_id?: string;
  @Field(() => String, { nullable: true }) control_unit_id?: string;
  @Field(() => String, { nullable: true }) animal_id?: string;
  @Field(() => DateTime, { nullable: true, description: 'Required' }) ts_from?: Date;
  @Field(() => DateTime, { nullable: true, description: 'Required' }) ts_to?: Date;
  @Field(() => String, { nullable: true, description: `${TRACE_DIRECTIONS.join(', ')} (default BOTH)` }) str_direction?: string;
  @Field(() => Int, { nullable: true, description: 'Moves followed from the seed; default unlimited' }) int_max_hops?: number;
}

@Resolver()
export class TraceResolver {
  @Query(() => TracePage, { description: `Where the animals of a place (or an animal) in a window came from and went, over any number of hops, with every co-located animal (DOMAIN.md, "Tracing"); pages of up to ${MAX_TRACE_PAGE}` })
  trace(@Arg('input', () => TraceInput) input: TraceInput, @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<TraceResult> {
    return ctx.core.trace.trace(ctx.db, requireActor(ctx), input, page);
  }
}
