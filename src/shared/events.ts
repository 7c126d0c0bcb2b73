import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from './ids.js';

/** Any advisory-lock key works; it only has to be the same for every writer of the chain. */
const CHAIN_LOCK = 7_200_001;
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
}

function hashOf(prev: string, e: { id: string; type: string; recordType: string; recordId: string; actorId: string | null; occurredAt: string; payload: string }): string {
  const body = JSON.stringify([e.id, e.type, e.recordType, e.recordId, e.actorId, e.occurredAt, e.payload]);
  return createHash('sha256').update(prev).update('\n').update(body).digest('hex');
}

/**
 * Appends events to the hash chain inside the caller's transaction: a constant three statements
 * however many events. The advisory lock serializes writers until commit, so links never fork.
 */
export async function appendEvents(em: EntityManager, events: EventInput[]): Promise<void> {
  if (events.length === 0) return;
  await em.execute('select pg_advisory_xact_lock(?)', [CHAIN_LOCK]);
  const last = await em.execute<{ str_hash: string }[]>('select str_hash from event order by seq desc limit 1');
  let prev = last[0]?.str_hash ?? GENESIS;
  const params: unknown[] = [];
  const tuples: string[] = [];
  for (const e of events) {
    const row = {
      id: newId(),
      type: e.type,
      recordType: e.recordType,
      recordId: e.recordId,
      actorId: e.actorId,
      occurredAt: (e.occurredAt ?? new Date()).toISOString(),
      payload: JSON.stringify(e.payload ?? {}),
    };
    const hash = hashOf(prev, row);
    params.push(row.id, row.type, row.recordType, row.recordId, row.actorId, row.occurredAt, row.payload, prev, hash);
    tuples.push('(?, ?, ?, ?, ?, ?, ?, ?, ?)');
    prev = hash;
  }
  await em.execute(
    `insert into event (id, str_type, str_record_type, record_id, actor_id, ts_occurred_at, str_payload, str_prev_hash, str_hash) values ${tuples.join(', ')}`,
    params,
  );
}

export const appendEvent = (em: EntityManager, event: EventInput): Promise<void> => appendEvents(em, [event]);

export interface ChainReport {
  ok: boolean;
  checked: number;
  broken?: { seq: number; id: string; reason: string };
}

/** Walks the whole chain in order and reports the first link that does not hold. */
export async function verifyChain(em: EntityManager, batch = 5000): Promise<ChainReport> {
  let prev = GENESIS;
  let after = 0;
  let checked = 0;
  for (;;) {
    const rows = await em.execute<EventRow[]>('select * from event where seq > ? order by seq limit ?', [after, batch]);
    for (const r of rows) {
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
      prev = r.str_hash;
      checked++;
      after = seq;
    }
    if (rows.length < batch) return { ok: true, checked };
  }
}
