import type { Db } from '../db/sql.js';
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
  total: number;
}

const OF_RECORD = 'str_record_type = ? and record_id = ?';

/**
 * The events of one record (one the caller already sees), oldest first by when they happened (an
 * animal identified offline happened at its ts_identified_at, before it reached the server), then
 * by log order: the page and its count in one statement (the count alone past the last page).
 */
export async function recordHistory(db: Db, recordType: string, recordId: string, pageInput: PageInput | null | undefined): Promise<Paged<HistoryEntry>> {
  const page = toPage(pageInput);
  const rows = await db.rows<EventRow>({
    sql: `select ev.id, ev.str_type, ev.actor_id, u.str_name as actor_name, ev.ts_occurred_at, ev.str_payload, (select count(*)::int from event where ${OF_RECORD}) as total
      from event ev left join "user" u on u.id = ev.actor_id
      where ev.str_record_type = ? and ev.record_id = ? order by ev.ts_occurred_at, ev.seq limit ? offset ?`,
    params: [recordType, recordId, recordType, recordId, page.size, page.offset],
  });
  let total = rows[0]?.total ?? 0;
  if (!rows.length && page.offset) total = (await db.rows<{ n: number }>({ sql: `select count(*)::int as n from event where ${OF_RECORD}`, params: [recordType, recordId] }))[0]!.n;
  const data = rows.map((r) => {
    const payload: { changes?: unknown; refs?: unknown } = JSON.parse(r.str_payload);
    const at = new Date(r.ts_occurred_at);
    return {
      id: r.id,
      ts_created_at: at,
      criteria: { str_event: r.str_type, ts_occurred_at: at.toISOString(), actor: r.actor_id ? { id: r.actor_id, str_name: r.actor_name } : null, changes: payload.changes ?? {}, refs: payload.refs ?? {} },
    };
  });
  return paged(data, total, page);
}
