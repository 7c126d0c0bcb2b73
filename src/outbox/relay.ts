import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LoggedEventFields } from '../shared/events.js';

/** One committed event as the relay hands it to a consumer, with the records it lists. */
export interface RelayedEvent extends LoggedEventFields {
  seq: string;
  id: string;
  ts_occurred_at: string;
  xid: string;
  listed: { str_record_type: string; id: string }[];
}

/** What a consumer does with a window, inside the transaction that then moves its position: throwing leaves the position where it was. */
export type RelayHandler = (tx: EntityManager, events: RelayedEvent[]) => Promise<void>;

type EventRow = Omit<RelayedEvent, 'listed' | 'ts_occurred_at'> & { ts_occurred_at: Date | string };

/**
 * The horizon: the oldest transaction of this database still running when the snapshot was taken
 * (or the snapshot's xmax): every xid below it that wrote here has committed or rolled back. Not
 * the snapshot's xmin, which counts the transactions of every database of the cluster (a long
 * report elsewhere would hold the relay back). Two statements, the sessions read after the
 * snapshot: a transaction of the snapshot's list missing from the sessions has ended since, and one
 * that started after the snapshot has an xid past its xmax. PostgreSQL keeps a transaction's view of
 * pg_stat_activity for its whole length: this is read once per relay transaction.
 */
async function horizon(tx: EntityManager): Promise<string> {
  const [snap] = await executeBound<{ s: string }>(tx, 'select pg_current_snapshot()::text as s', []);
  const [row] = await executeBound<{ xid: string }>(
    tx,
    `select coalesce((select min(x) from pg_snapshot_xip(?::pg_snapshot) x
                       where xid(x) in (select backend_xid from pg_stat_activity where datname = current_database() and backend_xid is not null
                                        union all select transaction from pg_prepared_xacts where database = current_database())),
                     pg_snapshot_xmax(?::pg_snapshot))::text as xid`,
    [snap!.s, snap!.s],
  );
  return row!.xid;
}

/** Creates the consumer's position at the horizon (it relays what commits from now on); an existing one stays. */
export async function ensureConsumer(em: EntityManager, name: string): Promise<void> {
  await em.transactional(async (tx) => {
    const start = await horizon(tx);
    await executeBound(tx, 'insert into relay_consumer (str_name, xid_position) values (?, ?::xid8) on conflict (str_name) do nothing', [name, start]);
  });
}

/**
 * The end of the next window [from, end): events of finished transactions only (end ≤ the horizon, below),
 * at most about `limit` of them (a window ends at a transaction's boundary, so one big transaction
 * is never split), and never an event whose record has an earlier event past the window. Two
 * writers of one record serialize on its stream lock, so its log order (seq) is its commit order,
 * but a transaction's xid is taken at its first write: the second writer may hold the lower xid.
 * Such a window ends before the second writer's xid, so a record's events leave in log order.
 */
async function windowEnd(tx: EntityManager, from: string, limit: number): Promise<string> {
  let end = await horizon(tx);
  const cut = await executeBound<{ xid: string }>(tx, 'select xid::text as xid from event where xid >= ?::xid8 and xid < ?::xid8 order by xid offset ? limit 1', [from, end, limit]);
  const first = await executeBound<{ xid: string }>(tx, 'select min(xid)::text as xid from event where xid >= ?::xid8 and xid < ?::xid8', [from, end]);
  // The window ends at the transaction past the limit, but takes at least the first one whole.
  if (cut[0] && first[0]?.xid !== cut[0].xid) end = cut[0].xid;
  else if (cut[0]) {
    const next = await executeBound<{ xid: string }>(tx, 'select min(xid)::text as xid from event where xid > ?::xid8 and xid < ?::xid8', [cut[0].xid, end]);
    if (next[0]?.xid) end = next[0].xid;
  }
  for (;;) {
    // Each record's earliest event past the window's end (the xid index; one pass over what is past
    // it, however many events a record has there), then the window's later events of those records.
    const inverted = await executeBound<{ xid: string | null }>(
      tx,
      `with past as (select str_record_type, record_id, min(seq) as seq from event where xid >= ?::xid8 group by str_record_type, record_id)
       select min(b.xid)::text as xid from event b
         join past a on b.str_record_type = a.str_record_type and b.record_id = a.record_id and b.seq > a.seq
        where b.xid >= ?::xid8 and b.xid < ?::xid8`,
      [end, from, end],
    );
    if (!inverted[0]?.xid) return end;
    end = inverted[0].xid;
  }
}

/** The next window from `from`: its end and its events in log order, each with the records it lists (none when `end` is `from`). */
export async function readWindow(tx: EntityManager, from: string, limit = 1000): Promise<{ end: string; events: RelayedEvent[] }> {
  const end = await windowEnd(tx, from, limit);
  if (end === from) return { end, events: [] };
  const rows = await executeBound<EventRow>(tx,
    `select seq::text as seq, id, str_type, str_record_type, record_id, actor_id, ts_occurred_at, str_payload, xid::text as xid
       from event where xid >= ?::xid8 and xid < ?::xid8 order by seq`,
    [from, end],
  );
  const listed = rows.length ? await executeBound<{ event_seq: string; str_record_type: string; record_id: string }>(tx, 'select event_seq::text as event_seq, str_record_type, record_id from event_subject where event_seq = any(?::bigint[]) order by event_seq, str_record_type collate "C", record_id', [rows.map((r) => r.seq)]) : [];
  const bySeq = new Map<string, RelayedEvent['listed']>();
  for (const l of listed) {
    const list = bySeq.get(l.event_seq) ?? [];
    list.push({ str_record_type: l.str_record_type, id: l.record_id });
    bySeq.set(l.event_seq, list);
  }
  return { end, events: rows.map((r) => ({ ...r, ts_occurred_at: new Date(r.ts_occurred_at).toISOString(), listed: bySeq.get(r.seq) ?? [] })) };
}

/** The horizon now: a consumer that starts here relays what commits from now on. */
export async function horizonNow(em: EntityManager): Promise<string> {
  return em.transactional((tx) => horizon(tx));
}

/**
 * Relays one window to the consumer: locks its position (FOR UPDATE SKIP LOCKED: another instance
 * relaying for it makes this a no-op), reads the events of the transactions that finished since,
 * hands them to `handle` in log order and moves the position, in one transaction: a crash before
 * the commit relays the window again. Returns how many events it handed over, or -1 when another
 * instance holds the consumer.
 */
export async function relayOnce(em: EntityManager, consumer: string, handle: RelayHandler, limit = 1000): Promise<number> {
  return em.transactional(async (tx) => {
    const pos = await executeBound<{ xid: string }>(tx, 'select xid_position::text as xid from relay_consumer where str_name = ? for update skip locked', [consumer]);
    if (!pos[0]) return -1;
    const from = pos[0].xid;
    const { end, events } = await readWindow(tx, from, limit);
    if (end === from) return 0;
    if (events.length) await handle(tx, events);
    await executeBound(tx, 'update relay_consumer set xid_position = ?::xid8, ts_updated_at = now() where str_name = ?', [end, consumer]);
    return events.length;
  });
}

/** Relays windows until none is left (or another instance holds the consumer). */
export async function relayAll(em: EntityManager, consumer: string, handle: RelayHandler, limit = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await relayOnce(em.fork(), consumer, handle, limit);
    if (n <= 0) return total;
    total += n;
  }
}
