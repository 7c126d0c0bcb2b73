import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../shared/ids.js';
import type { RelayedEvent, RelayHandler } from './relay.js';
import { actorNow, OUTGOING, visibleIds } from './visibility.js';

interface EndpointRow {
  id: string;
  user_id: string;
  organization_id: string | null;
  str_event_types: string[];
  str_record_types: string[];
  record_ids: string[];
}

/** What an endpoint names: its types (empty: all), its records (empty: all; a bulk event matches by a listed record too). */
function names(endpoint: EndpointRow, e: RelayedEvent): boolean {
  if (!OUTGOING[e.str_record_type]) return false;
  if (endpoint.str_event_types.length && !endpoint.str_event_types.includes(e.str_type)) return false;
  if (endpoint.str_record_types.length && !endpoint.str_record_types.includes(e.str_record_type)) return false;
  if (!endpoint.record_ids.length) return true;
  return endpoint.record_ids.includes(e.record_id) || e.listed.some((l) => endpoint.record_ids.includes(l.id));
}

/**
 * The webhooks consumer of the relay: queues one delivery per endpoint and event it names whose
 * record its owner may read now (the same policy as a read), in the relay's transaction, so a window
 * is queued exactly once however the relay stops.
 */
export const webhookFanout: RelayHandler = async (tx: EntityManager, events: RelayedEvent[]) => {
  const endpoints = await executeBound<EndpointRow>(tx, 'select id, user_id, organization_id, str_event_types, str_record_types, record_ids::text[] as record_ids from webhook_endpoint where bl_active and ts_deleted_at is null', []);
  const rows: { id: string; endpoint_id: string; event_seq: string; event_id: string; key: string }[] = [];
  for (const endpoint of endpoints) {
    const named = events.filter((e) => names(endpoint, e));
    if (!named.length) continue;
    const actor = await actorNow(tx, endpoint.user_id, endpoint.organization_id);
    if (!actor) continue;
    const visible = new Map<string, Set<string>>();
    for (const type of new Set(named.map((e) => e.str_record_type))) {
      visible.set(type, await visibleIds(tx, actor, type, [...new Set(named.filter((e) => e.str_record_type === type).map((e) => e.record_id))]));
    }
    for (const e of named) {
      if (visible.get(e.str_record_type)!.has(e.record_id)) rows.push({ id: newId(), endpoint_id: endpoint.id, event_seq: e.seq, event_id: e.id, key: `${e.str_record_type}:${e.record_id}` });
    }
  }
  if (!rows.length) return;
  await executeBound(tx, 
    `insert into webhook_delivery (id, endpoint_id, event_seq, event_id, str_record_key)
     select * from unnest(?::uuid[], ?::uuid[], ?::bigint[], ?::uuid[], ?::text[])`,
    [rows.map((r) => r.id), rows.map((r) => r.endpoint_id), rows.map((r) => r.event_seq), rows.map((r) => r.event_id), rows.map((r) => r.key)],
  );
};
