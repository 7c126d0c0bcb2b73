import { Field, ID, Int, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import type { Context } from '../context.js';
import { delivered, liveCaller } from '../events/live.resolver.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { TraceProgressEvent } from '../../src/trace/trace-progress.js';

@ObjectType('TraceProgress', { description: "A phase of one of the subscriber's own traces (its session's): STARTED, WALKED or REUSED, ANSWERED, or FAILED" })
export class TraceProgressType {
  @Field(() => ID, { description: 'The run: every phase of one trace request carries it' }) run_id!: string;
  @Field(() => String, { description: 'STARTED (the question checked), WALKED (the walk stored its answer) or REUSED (a stored answer of the same question and data version), ANSWERED, FAILED' }) str_phase!: string;
  @Field(() => String, { description: 'ESTABLISHMENT, CONTROL_UNIT or ANIMAL' }) str_seed_kind!: string;
  @Field(() => UUID) seed_id!: string;
  @Field(() => String, { description: 'BACKWARD, FORWARD or BOTH' }) str_direction!: string;
  @Field(() => DateTime) ts_from!: string;
  @Field(() => DateTime) ts_to!: string;
  @Field(() => Int, { nullable: true }) int_max_hops!: number | null;
  @Field(() => Int, { nullable: true, description: 'WALKED, REUSED: the establishments of the answer' }) int_establishments!: number | null;
  @Field(() => Int, { nullable: true, description: 'WALKED, REUSED: the traced animals of the answer' }) int_animals!: number | null;
  @Field(() => Int, { nullable: true, description: "ANSWERED: the answer's int_total_results" }) int_total_results!: number | null;
  @Field(() => String, { nullable: true, description: "FAILED: the error's code" }) str_error_code!: string | null;
  @Field(() => DateTime) ts_started_at!: string;
  @Field(() => DateTime, { description: 'When this phase was reached' }) ts_at!: string;
}

type Data = { context: Context };

/** The caller's own traces as they run (graphql-ws at /graphql, graphql-sse at /graphql/stream), from any instance. */
@Resolver()
export class TraceProgressResolver {
  @Subscription(() => TraceProgressType, {
    description: "The phases of the traces this session runs from now on (POST /api/trace, the trace query, its CSV export): never another caller's. A refused question (403, 422) sends nothing",
    subscribe: (data: Data) => {
      const { actor, live } = liveCaller(data.context);
      return data.context.core.traceProgress.subscribe(actor, live.onEnd);
    },
  })
  traceProgress(@Root() e: TraceProgressEvent | undefined): TraceProgressType {
    // Only the type's fields are sent (not whose session it is).
    return delivered(e);
  }
}
