import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import type { Logger } from '../shared/logger.js';

export interface SenderOptions {
  /** The first retry's delay; each next doubles, up to an hour. */
  backoffMs: number;
  /** How long a delivery is retried before it is marked FAILED. */
  retryHours: number;
  timeoutMs: number;
  /** Deliveries sent at once (each of a different record: a record's next waits for its previous). */
  batch: number;
}

interface Claimed {
  id: string;
  str_url: string;
  str_secret: string;
  event_id: string;
  str_type: string;
  str_record_type: string;
  record_id: string;
  actor_id: string | null;
  ts_occurred_at: Date | string;
  str_payload: string;
  event_seq: string;
  int_attempts: number;
  ts_created_at: Date | string;
}

/** How long a claimed delivery is its sender's beyond the attempt's timeout: past it (the sender died), another sends it again with the same webhook-id. */
const LEASE_MARGIN_MS = 5000;
const MAX_DELAY_MS = 3600_000;

/**
 * Claims the due deliveries, oldest event first, at most one per (endpoint, record) and only the
 * oldest pending of each (so a record's events arrive in log order), counting the attempt as it
 * claims (a sender killed mid-send has used one).
 */
const CLAIM = `update webhook_delivery d set ts_lease_until = now() + ? * interval '1 millisecond', int_attempts = d.int_attempts + 1
  from webhook_endpoint w, event e
 where d.id in (
   select q.id from webhook_delivery q
    where q.str_status = 'PENDING' and q.ts_next_attempt_at <= now() and (q.ts_lease_until is null or q.ts_lease_until < now())
      and not exists (select 1 from webhook_delivery p where p.endpoint_id = q.endpoint_id and p.str_record_key = q.str_record_key and p.str_status = 'PENDING' and p.event_seq < q.event_seq)
    order by q.event_seq limit ? for update skip locked)
   and w.id = d.endpoint_id and e.seq = d.event_seq
 returning d.id, w.str_url, w.str_secret, e.id as event_id, e.str_type, e.str_record_type, e.record_id, e.actor_id, e.ts_occurred_at, e.str_payload, d.event_seq::text as event_seq, d.int_attempts, d.ts_created_at`;

/** The body a receiver gets (Standard Webhooks: type, timestamp, data). */
async function bodyOf(em: EntityManager, d: Claimed): Promise<string> {
  const listed = await executeBound<{ str_record_type: string; record_id: string }>(em, 'select str_record_type, record_id from event_subject where event_seq = ? order by str_record_type collate "C", record_id', [d.event_seq]);
  const at = new Date(d.ts_occurred_at).toISOString();
  return JSON.stringify({
    type: d.str_type,
    timestamp: at,
    data: { id: d.event_id, str_record_type: d.str_record_type, record_id: d.record_id, actor_id: d.actor_id, ts_occurred_at: at, payload: JSON.parse(d.str_payload), listed: listed.map((l) => ({ str_record_type: l.str_record_type, id: l.record_id })) },
  });
}

async function post(d: Claimed, body: string, timeoutMs: number): Promise<{ status: number | null; error: string | null }> {
  // The header's timestamp is the signed one (sign() covers its whole seconds).
  const now = new Date();
  const signature = new Webhook(d.str_secret).sign(d.event_id, now, body);
  try {
    const res = await fetch(d.str_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': d.event_id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, error: res.ok ? null : `HTTP ${res.status}` };
  } catch (e) {
    return { status: null, error: (e as Error).message.slice(0, 500) };
  }
}

/** Sends one batch of due deliveries; returns how many it tried. */
export async function sendDue(em: EntityManager, options: SenderOptions, log: Logger): Promise<number> {
  const claimed = await executeBound<Claimed>(em, CLAIM, [options.timeoutMs + LEASE_MARGIN_MS, options.batch]);
  await Promise.all(
    claimed.map(async (d) => {
      const result = await post(d, await bodyOf(em, d), options.timeoutMs);
      if (result.status !== null && result.status >= 200 && result.status < 300) {
        await executeBound(em, `update webhook_delivery set str_status = 'DELIVERED', ts_delivered_at = now(), ts_lease_until = null, int_last_status = ?, str_last_error = null where id = ?`, [result.status, d.id]);
        return;
      }
      const delay = Math.min(options.backoffMs * 2 ** (d.int_attempts - 1), MAX_DELAY_MS) * (0.8 + Math.random() * 0.4);
      const next = new Date(Date.now() + delay);
      const expired = next.getTime() > new Date(d.ts_created_at).getTime() + options.retryHours * 3600_000;
      await executeBound(em, `update webhook_delivery set str_status = ?, ts_next_attempt_at = ?, ts_lease_until = null, int_last_status = ?, str_last_error = ? where id = ?`, [expired ? 'FAILED' : 'PENDING', next, result.status, result.error, d.id]);
      if (expired) log.warn({ delivery: d.id, url: d.str_url, error: result.error }, 'webhook delivery failed for good');
    }),
  );
  return claimed.length;
}
