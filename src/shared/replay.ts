import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { DomainError } from './errors.js';

/** Keys sorted at every level, undefined dropped, dates as ISO strings: two bodies that mean the same hash the same. */
export function stable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => [k, stable((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * What a repeated write is compared on (CONTRACT.md, offline-first): the sha256 of the body's
 * stable JSON. Used by client-id replays and by `Idempotency-Key`; undefined hashes as null.
 */
export const bodyHash = (body: unknown): string => createHash('sha256').update(JSON.stringify(stable(body)) ?? 'null').digest('hex');

/**
 * Serializes creates that carry the same client ids until commit, on one instance or several: a
 * device sending the same record twice at once gets the replay, not a CONFLICT or a state error
 * from the first send's changes. Taken in id order, so two creates naming overlapping ids never
 * deadlock; one statement however many.
 */
export async function lockClientIds(tx: EntityManager, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await tx.execute(
    `select count(pg_advisory_xact_lock(hashtextextended('client-id:' || id, 0))) from (select distinct value as id from jsonb_array_elements_text(?::jsonb) order by 1) ids`,
    [JSON.stringify(ids)],
  );
}

/**
 * The stored record when this create is a replay of an earlier one (same client id, same body,
 * same owner); CONFLICT when the id is taken otherwise; null when the id is new. The created
 * event's payload carries `body_hash`. The id stays locked until commit (`lockClientIds`).
 */
export async function replayCreate<T extends object>(
  tx: EntityManager,
  entity: EntityName<T>,
  table: string,
  recordType: string,
  createdEvent: string,
  id: string,
  hash: string,
  sameOwner: (row: Record<string, unknown>) => boolean,
): Promise<T | null> {
  await lockClientIds(tx, [id]);
  const rows = await tx.execute<Record<string, unknown>[]>(`select * from ${table} where id = ?`, [id]);
  const events = await tx.execute<{ str_payload: string }[]>(`select str_payload from event where str_record_type = ? and record_id = ? and str_type = ? order by seq limit 1`, [recordType, id, createdEvent]);
  if (!rows.length && !events.length) return null;
  const original = events[0] ? (JSON.parse(events[0].str_payload) as { body_hash?: string }) : null;
  if (rows[0] && original?.body_hash === hash && sameOwner(rows[0])) return tx.map(entity, rows[0] as never);
  throw DomainError.conflict('id', rows.length ? 'is already taken by a record created with another body' : 'belonged to a record that was removed');
}

/**
 * For the client-chosen ids of nested create items (reservations of one request, animals of an
 * identification): which are taken, and the body hash each one's created event carries, in one
 * statement however many (and one to lock them until commit). An id absent from the map is new.
 */
export async function storedCreates(tx: EntityManager, table: string, recordType: string, createdEvent: string, ids: string[]): Promise<Map<string, { exists: boolean; hash: string | null }>> {
  const found = new Map<string, { exists: boolean; hash: string | null }>();
  if (!ids.length) return found;
  await lockClientIds(tx, ids);
  const rows = await tx.execute<{ id: string; exists: boolean; str_payload: string | null }[]>(
    `select x.id, exists (select 1 from ${table} r where r.id = x.id) as exists,
        (select e.str_payload from event e where e.str_record_type = ? and e.record_id = x.id and e.str_type = ? order by e.seq limit 1) as str_payload
       from (select distinct value::uuid as id from jsonb_array_elements_text(?::jsonb)) x`,
    [recordType, createdEvent, JSON.stringify(ids)],
  );
  for (const r of rows) {
    if (!r.exists && !r.str_payload) continue;
    found.set(r.id, { exists: r.exists, hash: r.str_payload ? ((JSON.parse(r.str_payload) as { body_hash?: string }).body_hash ?? null) : null });
  }
  return found;
}
