import type { Db } from '../db/sql.js';
import type { Listed } from './events.js';
import { paged, toPage, type PageInput, type Paged } from './pagination.js';

/** One entry of a record's history (DOMAIN.md: Animal History, Establishment History). */
export interface HistoryEntry {
  id: string;
  ts_created_at: Date;
  criteria: { str_event: string; ts_occurred_at: string; actor: { id: string; str_name: string | null } | null; changes: unknown; refs: unknown };
}

interface EventRow {
  id: string;
  str_type: string;
  actor_id: string | null;
  actor_name: string | null;
  ts_occurred_at: Date | string;
  str_payload: string;
  /** Listed by the event (event_subject): the record's own part (JSON), or '' when it has none. */
  str_detail: string | null;
  total: number;
}

/** The record's events: its own, and those of bulk operations that list it (issue 20), each with its time for this record. */
const OF_RECORD = `select seq, ts_occurred_at, null::text as str_detail from event where str_record_type = ? and record_id = ?
  union all
  select s.event_seq, coalesce(s.ts_occurred_at, e.ts_occurred_at), coalesce(s.str_detail, '') from event_subject s join event e on e.seq = s.event_seq where s.record_id = ? and s.str_record_type = ?`;

export interface Payload {
  changes?: unknown;
  refs?: unknown;
  listed?: Record<string, Listed>;
}

/** A listed record's entry: the event's template for its type, its own part merged over it. */
export function listedEntry(payload: Payload, recordType: string, detail: string): { str_event: string; changes: unknown; refs: unknown } {
  const template = payload.listed?.[recordType];
  const own: { changes?: object; refs?: object } = detail ? JSON.parse(detail) : {};
  return { str_event: template?.str_event ?? '', changes: { ...template?.changes, ...own.changes }, refs: { ...template?.refs, ...own.refs } };
}

/**
 * The events of one record (one the caller already sees), oldest first by when they happened (an
 * animal identified offline happened at its ts_identified_at, before it reached the server), then
 * by log order: the page and its count in one statement (the count alone past the last page).
 */
export async function recordHistory(db: Db, recordType: string, recordId: string, pageInput: PageInput | null | undefined): Promise<Paged<HistoryEntry>> {
  const page = toPage(pageInput);
  const params = [recordType, recordId, recordId, recordType];
  const rows = await db.rows<EventRow>({
    sql: `with mine as (${OF_RECORD})
      select ev.id, ev.str_type, ev.actor_id, u.str_name as actor_name, m.ts_occurred_at, ev.str_payload, m.str_detail, (select count(*)::int from mine) as total
      from mine m join event ev on ev.seq = m.seq left join "user" u on u.id = ev.actor_id
      order by m.ts_occurred_at, m.seq limit ? offset ?`,
    params: [...params, page.size, page.offset],
  });
  let total = rows[0]?.total ?? 0;
  if (!rows.length && page.offset) total = (await db.rows<{ n: number }>({ sql: `select count(*)::int as n from (${OF_RECORD}) mine`, params }))[0]!.n;
  const data = rows.map((r) => {
    const payload: Payload = JSON.parse(r.str_payload);
    const entry = r.str_detail === null ? { str_event: r.str_type, changes: payload.changes ?? {}, refs: payload.refs ?? {} } : listedEntry(payload, recordType, r.str_detail);
    const at = new Date(r.ts_occurred_at);
    return {
      id: r.id,
      ts_created_at: at,
      criteria: { str_event: entry.str_event, ts_occurred_at: at.toISOString(), actor: r.actor_id ? { id: r.actor_id, str_name: r.actor_name } : null, changes: entry.changes, refs: entry.refs },
    };
  });
  return paged(data, total, page);
}
