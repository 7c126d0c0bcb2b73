import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { paged, toPage, type PageInput, type Paged } from '../shared/pagination.js';

/** An endpoint as its owner reads it: never its secret. */
export interface WebhookRow {
  id: string;
  str_url: string;
  str_description: string | null;
  str_event_types: string[];
  str_record_types: string[];
  record_ids: string[];
  bl_active: boolean;
  ts_created_at: Date;
  ts_updated_at: Date;
}

/** One attempt to send a delivery: when, the HTTP status (null when no answer came), the error, how long it took. */
export interface DeliveryAttempt {
  ts_attempted_at: string;
  int_status: number | null;
  str_error: string | null;
  int_duration_ms: number;
}

/** One line of an endpoint's delivery log. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  str_event_type: string;
  str_record_type: string;
  record_id: string;
  str_status: string;
  int_attempts: number;
  int_last_status: number | null;
  str_last_error: string | null;
  /** Every attempt, oldest first (the newest 50). */
  attempts: DeliveryAttempt[];
  ts_next_attempt_at: Date;
  ts_created_at: Date;
  ts_delivered_at: Date | null;
}

const COLUMNS = 'w.id, w.str_url, w.str_description, w.str_event_types, w.str_record_types, w.record_ids::text[] as record_ids, w.bl_active, w.ts_created_at, w.ts_updated_at';
/** An endpoint is its owner's alone (administrators included: its secret signs what it receives). */
const MINE = 'w.user_id = ? and w.ts_deleted_at is null';

export async function readWebhook(db: Db, actor: Actor, id: string): Promise<WebhookRow> {
  if (!isUuid(id)) throw DomainError.notFound('webhook');
  const rows = await db.rows<WebhookRow>({ sql: `select ${COLUMNS} from webhook_endpoint w where w.id = ? and ${MINE}`, params: [id.toLowerCase(), actor.userId] });
  if (!rows[0]) throw DomainError.notFound('webhook');
  return rows[0];
}

export async function pageWebhooks(db: Db, actor: Actor, pageInput: PageInput | null | undefined): Promise<Paged<WebhookRow>> {
  const page = toPage(pageInput);
  const rows = await db.rows<WebhookRow & { total: number }>({
    sql: `select ${COLUMNS}, count(*) over ()::int as total from webhook_endpoint w where ${MINE} order by w.ts_created_at, w.id limit ? offset ?`,
    params: [actor.userId, page.size, page.offset],
  });
  const total = rows[0]?.total ?? (await db.rows<{ n: number }>({ sql: `select count(*)::int as n from webhook_endpoint w where ${MINE}`, params: [actor.userId] }))[0]!.n;
  return paged<WebhookRow>(rows, total, page);
}

/** The endpoint's deliveries, newest event first (status, attempts, last error). */
export async function pageDeliveries(db: Db, actor: Actor, id: string, pageInput: PageInput | null | undefined, status: string | null): Promise<Paged<DeliveryRow>> {
  await readWebhook(db, actor, id);
  const page = toPage(pageInput);
  const rows = await db.rows<DeliveryRow & { total: number }>({
    sql: `select d.id, d.event_id, e.str_type as str_event_type, e.str_record_type, e.record_id, d.str_status, d.int_attempts, d.int_last_status, d.str_last_error, d.attempts,
                 d.ts_next_attempt_at, d.ts_created_at, d.ts_delivered_at, count(*) over ()::int as total
            from webhook_delivery d join event e on e.seq = d.event_seq
           where d.endpoint_id = ? and (?::text is null or d.str_status = ?)
           order by d.event_seq desc limit ? offset ?`,
    params: [id.toLowerCase(), status, status, page.size, page.offset],
  });
  const total = rows[0]?.total ?? (await db.rows<{ n: number }>({ sql: 'select count(*)::int as n from webhook_delivery d where d.endpoint_id = ? and (?::text is null or d.str_status = ?)', params: [id.toLowerCase(), status, status] }))[0]!.n;
  return paged<DeliveryRow>(rows, total, page);
}
