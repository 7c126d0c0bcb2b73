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
  /**
   * The records a bulk operation's event lists (issue 20; GS1 EPCIS's epcList): each listed
   * record's history shows the event as `payload.listed[recordType]` (its `str_event`, `changes`
   * and `refs`) with the record's own part merged over it. Stored in event_subject, covered by the
   * event's hash.
   */
  subjects?: Subject[];
}

/** One record an event lists. */
export interface Subject {
  recordType: string;
  recordId: string;
  /** When it happened to this record, when that is not the event's time (a read's time). */
  occurredAt?: Date | null;
  /** What is this record's own in the event, merged over the event's template for its type. */
  own?: { changes?: Record<string, unknown>; refs?: Record<string, unknown> } | null;
}

/** What a listing event's payload says of the records of one type it lists: their history entry before each one's own part. */
export interface Listed {
  str_event: string;
  changes: Record<string, unknown>;
  refs: Record<string, unknown>;
}

/** A listed record as hashed and stored: [record type, id, its own time or null, its own part (JSON) or null]. */
type SubjectTuple = [string, string, string | null, string | null];

/** The list in its one canonical order (record type, then id: PostgreSQL's `collate "C"` and uuid order), ids canonical. */
function listOf(subjects: Subject[]): SubjectTuple[] {
  const list = subjects.map((s): SubjectTuple => [s.recordType, s.recordId.toLowerCase(), s.occurredAt ? s.occurredAt.toISOString() : null, s.own ? JSON.stringify(s.own) : null]);
  return list.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
}

/** The columns of a logged event every reader of the log shares (verification, the relay, the webhook sender). */
export interface LoggedEventFields {
  str_type: string;
  str_record_type: string;
  record_id: string;
  actor_id: string | null;
  ts_occurred_at: Date | string;
  str_payload: string;
}

interface EventRow extends LoggedEventFields {
  seq: string;
  id: string;
  str_prev_hash: string;
  str_hash: string;
  bl_record_chain: boolean;
}

/**
 * What an event's hash covers besides the previous hash: its fields as one JSON array, and when it
 * lists records, the sha256 of its list (the list's JSON): PostgreSQL then hashes a body of a few
 * hundred bytes instead of the megabyte a 5,000-animal list weighs, and the list crosses the wire once.
 */
function bodyOf(e: { id: string; type: string; recordType: string; recordId: string; actorId: string | null; occurredAt: string; payload: string }, list: SubjectTuple[] = []): string {
  const fields: unknown[] = [e.id, e.type, e.recordType, e.recordId, e.actorId, e.occurredAt, e.payload];
  return JSON.stringify(list.length ? [...fields, createHash('sha256').update(JSON.stringify(list)).digest('hex')] : fields);
}

/** sha256 of `prev`, a newline and the body, as hex; event_append (Migration0014EventAppend, now Migration0026EventSubjects) hashes the same UTF-8 bytes in PostgreSQL. */
function hashOf(prev: string, e: Parameters<typeof bodyOf>[0], list: SubjectTuple[]): string {
  return createHash('sha256').update(prev).update('\n').update(bodyOf(e, list)).digest('hex');
}

/** A record's events are one stream: `Animal:<uuid>`. */
const streamOf = (recordType: string, recordId: string) => `${recordType}:${recordId}`;

/** The advisory-lock key of a stream: 64 bits of its sha256, as a signed bigint's text. */
const lockKeyOf = (stream: string): string => createHash('sha256').update(stream).digest().readBigInt64BE(0).toString();

/**
 * Appends events inside the caller's transaction in one statement however many events: each
 * record's events are a hash chain of their own, so writers of different records (and tenants)
 * never wait for each other, and writers of one record wait for each other only until commit.
 * PostgreSQL's event_append (Migration0014EventAppend, now Migration0026EventSubjects) makes
 * deferred constraints immediate, takes the streams' advisory locks in key order (two appenders
 * never hold them crosswise), reads each stream's head, inserts the events chained to it and the
 * records they list (event_subject): one round trip where it took four. Ids are canonical (lower
 * case) before anything is hashed or stored.
 */
export async function appendEvents(em: EntityManager, events: EventInput[]): Promise<void> {
  if (events.length === 0) return;
  const subjects: { e: string; rt: string; rid: string; at: string | null; d: string | null }[] = [];
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
    const list = listOf(e.subjects ?? []);
    for (const [rt, rid, at, d] of list) subjects.push({ e: row.id, rt, rid, at, d });
    return { id: row.id, t: row.type, rt: row.recordType, rid: row.recordId, a: row.actorId, at: row.occurredAt, p: row.payload, body: bodyOf(row, list) };
  });
  const keys = [...new Set(rows.map((r) => lockKeyOf(streamOf(r.rt, r.rid))))];
  // One bound parameter for the events and one for the records they list, however many (a reconciliation of thousands of animals stays one statement).
  await executeBound(em, 'select event_append(?::bigint[], ?::jsonb, ?::jsonb)', [keys, JSON.stringify(rows), JSON.stringify(subjects)]);
}

export const appendEvent = (em: EntityManager, event: EventInput): Promise<void> => appendEvents(em, [event]);

export interface ChainReport {
  ok: boolean;
  checked: number;
  broken?: { seq: number; id: string; reason: string };
}

interface SubjectRow {
  event_seq: string;
  str_record_type: string;
  record_id: string;
  ts_occurred_at: Date | string | null;
  str_detail: string | null;
}

/** The records listed by the events of seq in (after, last], by event, in the canonical order. */
async function listsOf(em: EntityManager, after: number, last: number): Promise<Map<number, SubjectTuple[]>> {
  const rows = await em.execute<SubjectRow[]>(
    'select event_seq, str_record_type, record_id, ts_occurred_at, str_detail from event_subject where event_seq > ? and event_seq <= ? order by event_seq, str_record_type collate "C", record_id',
    [after, last],
  );
  const lists = new Map<number, SubjectTuple[]>();
  for (const r of rows) {
    const seq = Number(r.event_seq);
    const list = lists.get(seq) ?? [];
    list.push([r.str_record_type, r.record_id, r.ts_occurred_at === null ? null : new Date(r.ts_occurred_at).toISOString(), r.str_detail]);
    lists.set(seq, list);
  }
  return lists;
}

/** The service-wide chain's anchor is kept under the nil record (event_log_detach). */
const NIL_STREAM = ['', '00000000-0000-0000-0000-000000000000'] as const;

/**
 * The last hash of each stream whose earlier events were detached with an old partition
 * (`event_chain_anchor`, docs/decisions/partitioning.md): its first remaining event chains on from it.
 */
async function anchorsOf(em: EntityManager, streams: { str_record_type: string; record_id: string }[], heads: Map<string, string>): Promise<void> {
  if (!streams.length) return;
  const anchors = await executeBound<{ str_record_type: string; record_id: string; str_hash: string }>(
    em,
    'select a.str_record_type, a.record_id, a.str_hash from event_chain_anchor a join unnest(?::text[], ?::uuid[]) as s(rt, rid) on a.str_record_type = s.rt and a.record_id = s.rid',
    [streams.map((s) => s.str_record_type), streams.map((s) => s.record_id)],
  );
  for (const a of anchors) heads.set(streamOf(a.str_record_type, a.record_id), a.str_hash);
}

/**
 * Walks the log in order and reports the first link that does not hold: the service-wide chain of
 * the events written before record streams, then each record's own chain. A listing event's hash
 * is recomputed over the records event_subject holds for it: one removed, added or changed breaks it.
 */
export async function verifyChain(em: EntityManager, batch = 5000): Promise<ChainReport> {
  const heads = new Map<string, string>();
  await anchorsOf(em, [{ str_record_type: NIL_STREAM[0], record_id: NIL_STREAM[1] }], heads);
  let global = heads.get(streamOf(...NIL_STREAM)) ?? GENESIS;
  let after = 0;
  let checked = 0;
  for (;;) {
    const rows = await em.execute<EventRow[]>('select * from event where seq > ? order by seq limit ?', [after, batch]);
    const lists = rows.length ? await listsOf(em, after, Number(rows.at(-1)!.seq)) : new Map<number, SubjectTuple[]>();
    await anchorsOf(em, rows.filter((r) => r.bl_record_chain && !heads.has(streamOf(r.str_record_type, r.record_id))), heads);
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
      }, lists.get(seq) ?? []);
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
