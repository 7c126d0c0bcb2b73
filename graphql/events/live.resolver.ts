import { Arg, Resolver, Root, Subscription } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { UUID } from '../shared/scalars.js';
import { DomainError } from '../../src/shared/errors.js';
import type { LiveFilter } from '../../src/outbox/live.js';
import type { RelayedEvent } from '../../src/outbox/relay.js';
import { LiveEvent } from './live.type.js';

type Data = { args: Record<string, unknown>; context: Context };

const SERVED_OVER = 'subscriptions are served over graphql-ws (/graphql) and graphql-sse (/graphql/stream)';

/** The caller and the live doors' hooks of a subscription's context (none when it came as a plain request). */
export function liveCaller(ctx: Context) {
  const actor = requireActor(ctx);
  if (!ctx.live) throw new DomainError('UNAVAILABLE', SERVED_OVER);
  return { actor, live: ctx.live };
}

/** A subscription's event; a subscription posted to /graphql runs as a query, without one. */
export function delivered<T>(e: T | undefined): T {
  if (!e) throw new DomainError('BAD_REQUEST', SERVED_OVER);
  return e;
}

/** A subscription of the caller to the log's events, from the hub of this instance. */
function follow(data: Data, filter: LiveFilter, record?: { type: string; id: string }) {
  const { actor, live } = liveCaller(data.context);
  return live.hub.follow(data.context.em, actor, filter, record, live.onEnd);
}

const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);

function asLive(event: RelayedEvent | undefined): LiveEvent {
  const e = delivered(event);
  return { id: e.id, str_type: e.str_type, str_record_type: e.str_record_type, record_id: e.record_id, actor_id: e.actor_id, ts_occurred_at: e.ts_occurred_at, payload: JSON.parse(e.str_payload) as Record<string, unknown>, listed: e.listed };
}

/**
 * GraphQL subscriptions (graphql-ws at /graphql, graphql-sse at /graphql/stream): events of the
 * committed log, each sent only when the subscriber may read its record now. A named record the
 * caller cannot read answers NOT_FOUND, as its GET does.
 */
@Resolver()
export class LiveResolver {
  @Subscription(() => LiveEvent, {
    description: 'An egress as a screen follows it while animals are read: each batch of reads (ANIMALS_EGRESS_READ), a read removed, the finish',
    subscribe: (data: Data) => follow(data, { recordTypes: ['AnimalsEgress'], recordIds: [data.args.id as string], eventTypes: [] }, { type: 'AnimalsEgress', id: data.args.id as string }),
  })
  animalsEgressEvents(@Arg('id', () => UUID) _id: string, @Root() e: RelayedEvent): LiveEvent {
    return asLive(e);
  }

  @Subscription(() => LiveEvent, {
    description: 'An ingress as a screen follows it while animals are read: each batch of reads (ANIMALS_INGRESS_READ), a read removed, the finish',
    subscribe: (data: Data) => follow(data, { recordTypes: ['AnimalsIngress'], recordIds: [data.args.id as string], eventTypes: [] }, { type: 'AnimalsIngress', id: data.args.id as string }),
  })
  animalsIngressEvents(@Arg('id', () => UUID) _id: string, @Root() e: RelayedEvent): LiveEvent {
    return asLive(e);
  }

  @Subscription(() => LiveEvent, {
    description: "Occurrences raised or reported for the caller's units",
    subscribe: (data: Data) => follow(data, { recordTypes: ['Occurrence'], recordIds: [], eventTypes: [] }),
  })
  occurrenceEvents(@Root() e: RelayedEvent): LiveEvent {
    return asLive(e);
  }

  @Subscription(() => LiveEvent, {
    description: "GTA state changes (GTA_CREATED, GTA_RELEASED, GTA_IN_USE, GTA_RECEIVED, GTA_COMPLETED, GTA_CANCELLED) of the GTAs the caller reads, or of one",
    subscribe: (data: Data) => {
      const id = data.args.id as string | null | undefined;
      return follow(data, { recordTypes: ['Gta'], recordIds: id ? [id] : [], eventTypes: [] }, id ? { type: 'Gta', id } : undefined);
    },
  })
  gtaEvents(@Arg('id', () => UUID, { nullable: true }) _id: string | null, @Root() e: RelayedEvent): LiveEvent {
    return asLive(e);
  }

  @Subscription(() => LiveEvent, {
    description: 'Any events the caller may read: record types (AnimalsEgress, AnimalsIngress, Gta, Occurrence, Animal, Establishment, Travel), records and event types; empty or absent lists mean all',
    subscribe: (data: Data) => follow(data, { recordTypes: list(data.args.str_record_types), recordIds: list(data.args.record_ids), eventTypes: list(data.args.str_event_types) }),
  })
  recordEvents(
    @Arg('str_record_types', () => [String], { nullable: true }) _types: string[] | null,
    @Arg('record_ids', () => [UUID], { nullable: true }) _ids: string[] | null,
    @Arg('str_event_types', () => [String], { nullable: true }) _events: string[] | null,
    @Root() e: RelayedEvent,
  ): LiveEvent {
    return asLive(e);
  }
}
