import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Agent as HttpAgent, request as httpRequest, type AgentOptions as HttpAgentOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { blockedLiteral, guardedLookup } from './webhook.url.js';
import { actorNow, visibleIds } from './visibility.js';
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
  /** WEBHOOK_ALLOW_PRIVATE: receivers on private, loopback and link-local addresses are allowed (tests, a closed network). */
  allowPrivate: boolean;
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

const LOAD = `select d.id, d.endpoint_id, d.str_record_key, w.str_url, w.str_secret, w.user_id, w.organization_id, e.id as event_id, e.str_type, e.str_record_type, e.record_id, e.actor_id, e.ts_occurred_at, e.str_payload,
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

/** Keep-alive connections to the receivers, each connect through the guarded lookup (webhook.url.ts). */
const agents = new Map<boolean, { http: HttpAgent; https: HttpsAgent }>();
function agentsFor(allowPrivate: boolean) {
  let pair = agents.get(allowPrivate);
  if (!pair) {
    const lookup = guardedLookup(allowPrivate);
    pair = { http: new HttpAgent({ keepAlive: true, maxSockets: 64, lookup } as HttpAgentOptions), https: new HttpsAgent({ keepAlive: true, maxSockets: 64, lookup } as HttpAgentOptions) };
    agents.set(allowPrivate, pair);
  }
  return pair;
}

/** One attempt: POST the signed body; the status, or why there was none. Redirects are not followed (a 3xx is a failure). */
async function post(d: Claimed, body: string, options: SenderOptions): Promise<{ status: number | null; error: string | null }> {
  // Re-checked at each send: a literal address is connected to without the lookup's check.
  if (blockedLiteral(d.str_url, options.allowPrivate)) return { status: null, error: 'refused: the URL points to a private, loopback, link-local or reserved address' };
  // The header's timestamp is the signed one (sign() covers its whole seconds).
  const now = new Date();
  const signature = new Webhook(d.str_secret).sign(d.event_id, now, body);
  const url = new URL(d.str_url);
  const pair = agentsFor(options.allowPrivate);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        agent: url.protocol === 'https:' ? pair.https : pair.http,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'webhook-id': d.event_id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
        timeout: options.timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({ status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
        });
        res.on('error', (e) => resolve({ status: null, error: e.message.slice(0, 500) }));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (e) => resolve({ status: null, error: e.message.slice(0, 500) }));
    req.end(body);
  });
}

const NOT_READABLE = "the endpoint's owner may no longer read the record";

/**
 * Of the claimed deliveries, those whose record the endpoint's owner (its current role in the
 * endpoint's organization) may still read, through the same SQL scope as GET: checked at every
 * attempt, so a retry or a replay stops for an owner who left or lost access. The others are marked
 * FAILED at once (no retry; a replay checks again).
 */
async function stillReadable<T extends Claimed & { id: string; endpoint_id: string; user_id: string; organization_id: string | null }>(em: EntityManager, claimed: T[]): Promise<T[]> {
  const byEndpoint = new Map<string, T[]>();
  for (const d of claimed) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d]);
  const refused = new Set<string>();
  for (const list of byEndpoint.values()) {
    const actor = await actorNow(em, list[0]!.user_id, list[0]!.organization_id);
    for (const type of new Set(list.map((d) => d.str_record_type))) {
      const ofType = list.filter((d) => d.str_record_type === type);
      const visible = actor ? await visibleIds(em, actor, type, [...new Set(ofType.map((d) => d.record_id))]) : new Set<string>();
      for (const d of ofType) if (!visible.has(d.record_id)) refused.add(d.id);
    }
  }
  if (!refused.size) return claimed;
  await executeBound(em, `update webhook_delivery set str_status = 'FAILED', ts_lease_until = null, str_last_error = ? where id = any(?::uuid[])`, [NOT_READABLE, [...refused]]);
  return claimed.filter((d) => !refused.has(d.id));
}

/** How many attempts a delivery's log keeps, the newest (24 hours of doubling backoff make about 30). */
export const ATTEMPTS_KEPT = 50;
/** The delivery's log with one attempt more (a JSON object), the oldest dropped past ATTEMPTS_KEPT. */
const LOGGED = (attempt: string) => `jsonb_path_query_array(d.attempts || jsonb_build_array(${attempt}), '$[last - ${ATTEMPTS_KEPT - 1} to last]')`;

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
  const loaded = await executeBound<Claimed & { endpoint_id: string; str_record_key: string; user_id: string; organization_id: string | null }>(em, LOAD, [[...heads.map((h) => h.id), ...followers.map((f) => f.id)]]);
  const claimed = await stillReadable(em, loaded);
  const listed = new Map<string, { str_record_type: string; id: string }[]>();
  const subjects = await executeBound<{ event_seq: string; str_record_type: string; record_id: string }>(em, 'select event_seq::text as event_seq, str_record_type, record_id from event_subject where event_seq = any(?::bigint[]) order by event_seq, str_record_type collate "C", record_id', [[...new Set(claimed.map((d) => d.event_seq))]]);
  for (const l of subjects) listed.set(l.event_seq, [...(listed.get(l.event_seq) ?? []), { str_record_type: l.str_record_type, id: l.record_id }]);
  const lanes = new Map<string, Claimed[]>();
  for (const d of claimed) lanes.set(`${d.endpoint_id} ${d.str_record_key}`, [...(lanes.get(`${d.endpoint_id} ${d.str_record_key}`) ?? []), d]);
  // DELIVERED is written as deliveries succeed, one statement for all that succeeded while the
  // previous one ran (group commit): one UPDATE per round trip, not per delivery, and a sender killed
  // mid-round resends only what was on the wire or not yet marked (same webhook-ids: at least once).
  let unmarked: { id: string; status: number; attempt: string }[] = [];
  let delivered = 0;
  let marking: Promise<void> | null = null;
  let markFailed: unknown = null;
  const markAll = async () => {
    while (unmarked.length) {
      const batch = unmarked;
      unmarked = [];
      await executeBound(
        em,
        `update webhook_delivery d set str_status = 'DELIVERED', int_attempts = d.int_attempts + 1, ts_delivered_at = now(), ts_lease_until = null, int_last_status = x.status, str_last_error = null,
                attempts = ${LOGGED('x.attempt::jsonb')}
           from unnest(?::uuid[], ?::int[], ?::text[]) as x(id, status, attempt) where d.id = x.id`,
        [batch.map((d) => d.id), batch.map((d) => d.status), batch.map((d) => d.attempt)],
      );
    }
  };
  const mark = (id: string, status: number, attempt: string) => {
    unmarked.push({ id, status, attempt });
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
        const started = Date.now();
        const result = await post(d, bodyOf(d, listed.get(d.event_seq) ?? []), options);
        const attempt = JSON.stringify({ ts_attempted_at: new Date(started).toISOString(), int_status: result.status, str_error: result.error, int_duration_ms: Date.now() - started });
        if (result.status !== null && result.status >= 200 && result.status < 300) {
          mark(d.id, result.status, attempt);
          continue;
        }
        const attempts = d.int_attempts + 1;
        const delay = Math.min(options.backoffMs * 2 ** (attempts - 1), MAX_DELAY_MS) * (0.8 + Math.random() * 0.4);
        const next = new Date(Date.now() + delay);
        const expired = next.getTime() > new Date(d.ts_created_at).getTime() + options.retryHours * 3600_000;
        await executeBound(
          em,
          `update webhook_delivery d set str_status = ?, int_attempts = d.int_attempts + 1, ts_next_attempt_at = ?, ts_lease_until = null, int_last_status = ?, str_last_error = ?, attempts = ${LOGGED('?::jsonb')} where d.id = ?`,
          [expired ? 'FAILED' : 'PENDING', next, result.status, result.error, attempt, d.id],
        );
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
