import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound.js';
import { newId } from './ids.js';

const GENESIS = '0'.repeat(64);

export interface EventInput {
  type: string;
  recordType: string;
  recordId: string;
  actorId: string | null;
  payload: unknown;
  occurredAt?: Date;
}

interface EventRow {
  seq: string;
  id: string;
  str_type: string;
  str_record_type: string;
  record_id: string;
  actor_id: string | null;
  ts_occurred_at: Date | string;
  str_payload: string;
  str_prev_hash: string;
  str_hash: string;
  bl_record_chain: boolean;
}

/** What an event's hash covers besides the previous hash: its fields as one JSON array. */
function bodyOf(e: { id: string; type: string; recordType: string; recordId: string; actorId: string | null; occurredAt: string; payload: string }): string {
  return JSON.stringify([e.id, e.type, e.recordType, e.recordId, e.actorId, e.occurredAt, e.payload]);
}

/** sha256 of `prev`, a newline and the body, as hex; event_append (Migration0014EventAppend) hashes the same UTF-8 bytes in PostgreSQL. */
function hashOf(prev: string, e: Parameters<typeof bodyOf>[0]): string {
  return createHash('sha256').update(prev).update('\n').update(bodyOf(e)).digest('hex');
}

/** A record's events are one stream: `Animal:<uuid>`. */
const streamOf = (recordType: string, recordId: string) => `${recordType}:${recordId}`;

/** The advisory-lock key of a stream: 64 bits of its sha256, as a signed bigint's text. */
const lockKeyOf = (stream: string): string => createHash('sha256').update(stream).digest().readBigInt64BE(0).toString();

/**
 * Appends events inside the caller's transaction in one statement however many events: each
 * record's events are a hash chain of their own, so writers of different records (and tenants)
 * never wait for each other, and writers of one record wait for each other only until commit.
 * PostgreSQL's event_append (Migration0014EventAppend) makes deferred constraints immediate, takes
 * the streams' advisory locks in key order (two appenders never hold them crosswise), reads each
 * stream's head and inserts the events chained to it: one round trip where it took four. Ids are
 * canonical (lower case) before anything is hashed or stored.
 */
export async function appendEvents(em: EntityManager, events: EventInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => {
    const row = {
      id: newId(),
      type: e.type,
      recordType: e.recordType,
      recordId: e.recordId.toLowerCase(),
      actorId: e.actorId?.toLowerCase() ?? null,
      occurredAt: (e.occurredAt ?? new Date()).toISOString(),
      payload: JSON.stringify(e.payload ?? {}),
    };
    return { id: row.id, t: row.type, rt: row.recordType, rid: row.recordId, a: row.actorId, at: row.occurredAt, p: row.payload, body: bodyOf(row) };
  });
  const keys = [...new Set(rows.map((r) => lockKeyOf(streamOf(r.rt, r.rid))))];
  // One bound parameter for the events however many (a reconciliation of thousands of animals stays one statement).
  await executeBound(em, 'select event_append(?::bigint[], ?::jsonb)', [keys, JSON.stringify(rows)]);
}

export const appendEvent = (em: EntityManager, event: EventInput): Promise<void> => appendEvents(em, [event]);

export interface ChainReport {
  ok: boolean;
  checked: number;
  broken?: { seq: number; id: string; reason: string };
}

/**
 * Walks the log in order and reports the first link that does not hold: the service-wide chain of
 * the events written before record streams, then each record's own chain.
 */
export async function verifyChain(em: EntityManager, batch = 5000): Promise<ChainReport> {
  let global = GENESIS;
  const heads = new Map<string, string>();
  let after = 0;
  let checked = 0;
  for (;;) {
    const rows = await em.execute<EventRow[]>('select * from event where seq > ? order by seq limit ?', [after, batch]);
    for (const r of rows) {
      const stream = streamOf(r.str_record_type, r.record_id);
      const prev = r.bl_record_chain ? (heads.get(stream) ?? GENESIS) : global;
      const seq = Number(r.seq);
      const occurredAt = new Date(r.ts_occurred_at).toISOString();
      const expected = hashOf(r.str_prev_hash, {
        id: r.id,
        type: r.str_type,
        recordType: r.str_record_type,
        recordId: r.record_id,
        actorId: r.actor_id,
        occurredAt,
        payload: r.str_payload,
      });
      if (r.str_prev_hash !== prev) return { ok: false, checked, broken: { seq, id: r.id, reason: 'previous hash does not match the event before it' } };
      if (r.str_hash !== expected) return { ok: false, checked, broken: { seq, id: r.id, reason: 'content does not match its hash' } };
      if (r.bl_record_chain) heads.set(stream, r.str_hash);
      else global = r.str_hash;
      checked++;
      after = seq;
    }
    if (rows.length < batch) return { ok: true, checked };
  }
}
