import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
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

function hashOf(prev: string, e: { id: string; type: string; recordType: string; recordId: string; actorId: string | null; occurredAt: string; payload: string }): string {
  const body = JSON.stringify([e.id, e.type, e.recordType, e.recordId, e.actorId, e.occurredAt, e.payload]);
  return createHash('sha256').update(prev).update('\n').update(body).digest('hex');
}

/** A record's events are one stream: `Animal:<uuid>`. */
const streamOf = (recordType: string, recordId: string) => `${recordType}:${recordId}`;

/** The advisory-lock key of a stream: 64 bits of its sha256, as a signed bigint's text. */
const lockKeyOf = (stream: string): string => createHash('sha256').update(stream).digest().readBigInt64BE(0).toString();

/**
 * Appends events inside the caller's transaction, a constant four statements however many events:
 * each record's events are a hash chain of their own, so writers of different records (and
 * tenants) never wait for each other, and writers of one record wait for each other only until
 * commit. The streams' locks are taken in one statement, in key order, so two appenders never
 * hold them crosswise. Ids are canonical (lower case) before anything is hashed or stored.
 */
export async function appendEvents(em: EntityManager, events: EventInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({
    id: newId(),
    type: e.type,
    recordType: e.recordType,
    recordId: e.recordId.toLowerCase(),
    actorId: e.actorId?.toLowerCase() ?? null,
    occurredAt: (e.occurredAt ?? new Date()).toISOString(),
    payload: JSON.stringify(e.payload ?? {}),
  }));
  const streams = [...new Set(rows.map((r) => streamOf(r.recordType, r.recordId)))];
  const keys = [...new Set(streams.map(lockKeyOf))].sort();
  // Deferred foreign keys would otherwise be checked at commit, locking the rows they name after the
  // stream's lock is held: two writers of one record then wait for each other. Checked now, the
  // stream's lock is the last one the transaction takes.
  await em.execute('set constraints all immediate');
  await em.execute('select count(pg_advisory_xact_lock(k)) from (select unnest(array[?]::bigint[]) as k order by 1) keys', [keys]);
  const heads = await em.execute<{ stream: string; str_hash: string | null }[]>(
    `select s.stream, (select e.str_hash from event e where e.str_record_type = split_part(s.stream, ':', 1) and e.record_id = split_part(s.stream, ':', 2)::uuid and e.bl_record_chain
                        order by e.seq desc limit 1) as str_hash
       from unnest(array[?]::text[]) as s(stream)`,
    [streams],
  );
  const prevOf = new Map(heads.map((h) => [h.stream, h.str_hash ?? GENESIS]));
  const records: unknown[] = [];
  for (const row of rows) {
    const stream = streamOf(row.recordType, row.recordId);
    const prev = prevOf.get(stream) ?? GENESIS;
    const hash = hashOf(prev, row);
    records.push({ id: row.id, t: row.type, rt: row.recordType, rid: row.recordId, a: row.actorId, at: row.occurredAt, p: row.payload, prev, h: hash });
    prevOf.set(stream, hash);
  }
  // One parameter however many events (a reconciliation of thousands of animals stays one statement).
  // Rows are inserted in array order (ordinality), so each stream's seq follows its chain.
  await em.execute(
    `insert into event (id, str_type, str_record_type, record_id, actor_id, ts_occurred_at, str_payload, str_prev_hash, str_hash)
     select x.id, x.t, x.rt, x.rid, x.a, x.at, x.p, x.prev, x.h
       from rows from (jsonb_to_recordset(?::jsonb) as (id uuid, t text, rt text, rid uuid, a uuid, at timestamptz, p text, prev text, h text)) with ordinality as x(id, t, rt, rid, a, at, p, prev, h, n)
      order by x.n`,
    [JSON.stringify(records)],
  );
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
