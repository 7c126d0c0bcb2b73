import type { EntityManager } from '@mikro-orm/postgresql';
import { paged, toPage, type PageInput, type Paged } from './pagination.js';

/** One entry of a record's history (DOMAIN.md: Animal History, Establishment History). */
export interface HistoryEntry {
  id: string;
  ts_created_at: Date;
  criteria: { str_event: string; ts_occurred_at: string; actor: { id: string; str_name: string | null } | null; changes: unknown; refs: unknown };
}

/**
 * The events of one record, oldest first by when they happened (an animal identified offline
 * happened at its ts_identified_at, before it reached the server), then by log order: two statements.
 */
export async function recordHistory(em: EntityManager, recordType: string, recordId: string, pageInput: PageInput | null | undefined): Promise<Paged<HistoryEntry>> {
  const page = toPage(pageInput);
  const count = await em.execute<{ n: number }[]>('select count(*)::int as n from event where str_record_type = ? and record_id = ?', [recordType, recordId]);
  const rows = await em.execute<{ id: string; str_type: string; actor_id: string | null; actor_name: string | null; ts_occurred_at: Date | string; str_payload: string }[]>(
    `select ev.id, ev.str_type, ev.actor_id, u.str_name as actor_name, ev.ts_occurred_at, ev.str_payload from event ev left join "user" u on u.id = ev.actor_id
      where ev.str_record_type = ? and ev.record_id = ? order by ev.ts_occurred_at, ev.seq limit ? offset ?`,
    [recordType, recordId, page.size, page.offset],
  );
  const data = rows.map((r) => {
    const payload = JSON.parse(r.str_payload) as { changes?: unknown; refs?: unknown };
    const at = new Date(r.ts_occurred_at);
    return {
      id: r.id,
      ts_created_at: at,
      criteria: { str_event: r.str_type, ts_occurred_at: at.toISOString(), actor: r.actor_id ? { id: r.actor_id, str_name: r.actor_name } : null, changes: payload.changes ?? {}, refs: payload.refs ?? {} },
    };
  });
  return paged(data, count[0]!.n, page);
}
