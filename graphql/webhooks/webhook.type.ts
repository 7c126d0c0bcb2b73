import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';

@ObjectType('Webhook', { description: 'An endpoint receiving signed deliveries (Standard Webhooks) of the events its owner may read' })
export class Webhook {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_url!: string;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => [String], { description: 'Event types it receives; empty: all' }) str_event_types!: string[];
  @Field(() => [String], { description: 'Record types it receives (AnimalsEgress, AnimalsIngress, Gta, Occurrence, Animal, Establishment, Travel); empty: all' }) str_record_types!: string[];
  @Field(() => [UUID], { description: 'Records it receives (an event of one, or a bulk event listing one); empty: all' }) record_ids!: string[];
  @Field(() => Boolean) bl_active!: boolean;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('WebhookCreated')
export class WebhookCreated {
  @Field(() => Webhook) webhook!: Webhook;
  @Field(() => String, { description: 'The signing secret (whsec_…): shown here only' }) str_secret!: string;
}

@ObjectType('WebhookPage')
export class WebhookPage {
  @Field(() => [Webhook]) data!: Webhook[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('WebhookDeliveryAttempt', { description: 'One attempt to send a delivery' })
export class WebhookDeliveryAttempt {
  @Field(() => DateTime) ts_attempted_at!: string;
  @Field(() => Int, { nullable: true, description: "The receiver's HTTP status; null when no answer came (timeout, refused, network)" }) int_status!: number | null;
  @Field(() => String, { nullable: true, description: 'Why it failed; null when it succeeded' }) str_error!: string | null;
  @Field(() => Int) int_duration_ms!: number;
}

@ObjectType('WebhookDelivery', { description: "One event's delivery to an endpoint" })
export class WebhookDelivery {
  @Field(() => UUID) id!: string;
  @Field(() => UUID, { description: 'The event (also the webhook-id header)' }) event_id!: string;
  @Field(() => String) str_event_type!: string;
  @Field(() => String) str_record_type!: string;
  @Field(() => UUID) record_id!: string;
  @Field(() => String, { description: 'PENDING, DELIVERED or FAILED' }) str_status!: string;
  @Field(() => Int) int_attempts!: number;
  @Field(() => Int, { nullable: true }) int_last_status!: number | null;
  @Field(() => String, { nullable: true }) str_last_error!: string | null;
  @Field(() => [WebhookDeliveryAttempt], { description: 'Every attempt, oldest first (the newest 50): what failed before a success stays' }) attempts!: WebhookDeliveryAttempt[];
  @Field(() => DateTime) ts_next_attempt_at!: Date;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime, { nullable: true }) ts_delivered_at!: Date | null;
}

@ObjectType('WebhookDeliveryPage')
export class WebhookDeliveryPage {
  @Field(() => [WebhookDelivery]) data!: WebhookDelivery[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('WebhookReplay')
export class WebhookReplay {
  @Field(() => Int, { description: 'Deliveries queued again' }) int_deliveries!: number;
}

@InputType('WebhookCreateInput')
export class WebhookCreateInput {
  @Field(() => String) str_url!: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => [String], { nullable: true }) str_event_types?: string[];
  @Field(() => [String], { nullable: true }) str_record_types?: string[];
  @Field(() => [String], { nullable: true }) record_ids?: string[];
}

@InputType('WebhookUpdateInput')
export class WebhookUpdateInput {
  @Field(() => String, { nullable: true }) str_url?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => [String], { nullable: true }) str_event_types?: string[];
  @Field(() => [String], { nullable: true }) str_record_types?: string[];
  @Field(() => [String], { nullable: true }) record_ids?: string[];
  @Field(() => Boolean, { nullable: true }) bl_active?: boolean;
}

@InputType('WebhookReplayInput')
export class WebhookReplayInput {
  @Field(() => DateTime, { description: 'Deliveries of events that happened at or after it are sent again' }) ts_from!: Date;
}
