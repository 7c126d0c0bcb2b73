import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import type { Logger } from '../shared/logger.js';
import type { LoggedEventFields } from '../shared/events.js';

export interface SenderOptions {
  /** The first retry's delay; each next doubles, up to an hour. */
  backoffMs: number;
  /** How long a delivery is retried before it is marked FAILED. */
  retryHours: number;
  timeoutMs: number;
  /** Deliveries sent at once (each of a different record: a record's next waits for its previous). */
  batch: number;
}

interface Claimed extends LoggedEventFields {
  id: string;
  str_url: string;
  str_secret: string;
  event_id: string;
  event_seq: string;
  int_attempts: number;
  ts_created_at: Date | string;
}

/** How long a claimed delivery is its sender's beyond the attempt's timeout: past it (the sender died), another sends it again with the same webhook-id. */
const LEASE_MARGIN_MS = 5000;
const MAX_DELAY_MS = 3600_000;

/**
 * Claims the heads of the due lanes: a lane is an (endpoint, record)'s pending deliveries, its head
 * the oldest (so a record's events arrive in log order); holding the head's lease is holding the lane.
 */
const CLAIM_HEADS = `update webhook_delivery d set ts_lease_until = now() + ? * interval '1 millisecond'
 where d.id in (
   select q.id from webhook_delivery q
    where q.str_status = 'PENDING' and q.ts_next_attempt_at <= now() and (q.ts_lease_until is null or q.ts_lease_until < now())
      and not exists (select 1 from webhook_delivery p where p.endpoint_id = q.endpoint_id and p.str_record_key = q.str_record_key and p.str_status = 'PENDING' and p.event_seq < q.event_seq)
    order by q.event_seq limit ? for update skip locked)
 returning d.id, d.endpoint_id, d.str_record_key, d.event_seq::text as event_seq`;

/** Up to LANE deliveries following each claimed head in its lane (no other sender takes them while the head is pending). */
const CLAIM_FOLLOWERS = `update webhook_delivery f set ts_lease_until = now() + ? * interval '1 millisecond'
 where f.id in (
   select id from (
     select f2.id, row_number() over (partition by f2.endpoint_id, f2.str_record_key order by f2.event_seq) as rn
       from webhook_delivery f2 join unnest(?::uuid[], ?::text[], ?::bigint[]) as h(endpoint_id, record_key, seq)
         on f2.endpoint_id = h.endpoint_id and f2.str_record_key = h.record_key and f2.event_seq > h.seq
      where f2.str_status = 'PENDING') x
   where rn <= ?)
 returning f.id`;

const LOAD = `select d.id, d.endpoint_id, d.str_record_key, w.str_url, w.str_secret, e.id as event_id, e.str_type, e.str_record_type, e.record_id, e.actor_id, e.ts_occurred_at, e.str_payload,
       d.event_seq::text as event_seq, d.int_attempts, d.ts_created_at
  from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id join event e on e.seq = d.event_seq
 where d.id = any(?::uuid[]) order by d.event_seq`;

/** Deliveries a lane sends in one round after its head. */
const LANE = 50;

/** The body a receiver gets (Standard Webhooks: type, timestamp, data). */
function bodyOf(d: Claimed, listed: { str_record_type: string; id: string }[]): string {
  const at = new Date(d.ts_occurred_at).toISOString();
  return JSON.stringify({
    type: d.str_type,
    timestamp: at,
    data: { id: d.event_id, str_record_type: d.str_record_type, record_id: d.record_id, actor_id: d.actor_id, ts_occurred_at: at, payload: JSON.parse(d.str_payload), listed },
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

/**
 * Sends one round: claims lanes, sends each lane's deliveries one after the other (lanes side by
 * side), stops a lane at its first failure (that delivery backs off, the rest wait behind it) and
 * counts an attempt when it was made. Returns how many it sent.
 */
export async function sendDue(em: EntityManager, options: SenderOptions, log: Logger): Promise<number> {
  const leaseMs = options.timeoutMs + LEASE_MARGIN_MS;
  const heads = await executeBound<{ id: string; endpoint_id: string; str_record_key: string; event_seq: string }>(em, CLAIM_HEADS, [leaseMs, options.batch]);
  if (!heads.length) return 0;
  const followers = await executeBound<{ id: string }>(em, CLAIM_FOLLOWERS, [leaseMs, heads.map((h) => h.endpoint_id), heads.map((h) => h.str_record_key), heads.map((h) => h.event_seq), LANE]);
  const claimed = await executeBound<Claimed & { endpoint_id: string; str_record_key: string }>(em, LOAD, [[...heads.map((h) => h.id), ...followers.map((f) => f.id)]]);
  const listed = new Map<string, { str_record_type: string; id: string }[]>();
  const subjects = await executeBound<{ event_seq: string; str_record_type: string; record_id: string }>(em, 'select event_seq::text as event_seq, str_record_type, record_id from event_subject where event_seq = any(?::bigint[]) order by event_seq, str_record_type collate "C", record_id', [[...new Set(claimed.map((d) => d.event_seq))]]);
  for (const l of subjects) listed.set(l.event_seq, [...(listed.get(l.event_seq) ?? []), { str_record_type: l.str_record_type, id: l.record_id }]);
  const lanes = new Map<string, Claimed[]>();
  for (const d of claimed) lanes.set(`${d.endpoint_id} ${d.str_record_key}`, [...(lanes.get(`${d.endpoint_id} ${d.str_record_key}`) ?? []), d]);
  // DELIVERED is written as deliveries succeed, one statement for all that succeeded while the
  // previous one ran (group commit): one UPDATE per round trip, not per delivery, and a sender killed
  // mid-round resends only what was on the wire or not yet marked (same webhook-ids: at least once).
  let unmarked: { id: string; status: number }[] = [];
  let delivered = 0;
  let marking: Promise<void> | null = null;
  let markFailed: unknown = null;
  const markAll = async () => {
    while (unmarked.length) {
      const batch = unmarked;
      unmarked = [];
      await executeBound(
        em,
        `update webhook_delivery d set str_status = 'DELIVERED', int_attempts = d.int_attempts + 1, ts_delivered_at = now(), ts_lease_until = null, int_last_status = x.status, str_last_error = null
           from unnest(?::uuid[], ?::int[]) as x(id, status) where d.id = x.id`,
        [batch.map((d) => d.id), batch.map((d) => d.status)],
      );
    }
  };
  const mark = (id: string, status: number) => {
    unmarked.push({ id, status });
    delivered++;
    marking ??= markAll()
      .catch((e: unknown) => void (markFailed ??= e))
      .finally(() => (marking = null));
  };
  const released: string[] = [];
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      for (let i = 0; i < lane.length; i++) {
        const d = lane[i]!;
        const result = await post(d, bodyOf(d, listed.get(d.event_seq) ?? []), options.timeoutMs);
        if (result.status !== null && result.status >= 200 && result.status < 300) {
          mark(d.id, result.status);
          continue;
        }
        const attempts = d.int_attempts + 1;
        const delay = Math.min(options.backoffMs * 2 ** (attempts - 1), MAX_DELAY_MS) * (0.8 + Math.random() * 0.4);
        const next = new Date(Date.now() + delay);
        const expired = next.getTime() > new Date(d.ts_created_at).getTime() + options.retryHours * 3600_000;
        await executeBound(em, 'update webhook_delivery set str_status = ?, int_attempts = int_attempts + 1, ts_next_attempt_at = ?, ts_lease_until = null, int_last_status = ?, str_last_error = ? where id = ?', [expired ? 'FAILED' : 'PENDING', next, result.status, result.error, d.id]);
        if (expired) log.warn({ delivery: d.id, url: d.str_url, error: result.error }, 'webhook delivery failed for good');
        released.push(...lane.slice(i + 1).map((r) => r.id));
        return;
      }
    }),
  );
  await marking;
  if (markFailed) throw markFailed;
  await markAll();
  if (released.length) await executeBound(em, 'update webhook_delivery set ts_lease_until = null where id = any(?::uuid[])', [released]);
  return delivered;
}
