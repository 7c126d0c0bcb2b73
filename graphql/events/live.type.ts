import { Field, ID, ObjectType } from 'type-graphql';
import { DateTime, JSONObject, UUID } from '../shared/scalars.js';

@ObjectType('LiveEventRecord', { description: 'A record an event lists (a bulk event: the animals of a reconciliation)' })
export class LiveEventRecord {
  @Field(() => String) str_record_type!: string;
  @Field(() => UUID) id!: string;
}

@ObjectType('LiveEvent', { description: "A committed event of the log, sent to a subscriber whose reads reach its record (the same policy as GET)" })
export class LiveEvent {
  @Field(() => ID, { description: 'The event id (a webhook delivery\'s webhook-id, a JetStream Nats-Msg-Id)' }) id!: string;
  @Field(() => String, { description: 'ANIMALS_EGRESS_READ, GTA_RELEASED, OCCURRENCE_RAISED, …' }) str_type!: string;
  @Field(() => String) str_record_type!: string;
  @Field(() => UUID) record_id!: string;
  @Field(() => UUID, { nullable: true }) actor_id!: string | null;
  @Field(() => DateTime) ts_occurred_at!: Date | string;
  @Field(() => JSONObject, { description: "The event's payload (changes, refs)" }) payload!: Record<string, unknown>;
  @Field(() => [LiveEventRecord]) listed!: LiveEventRecord[];
}
