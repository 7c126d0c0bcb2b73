import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { StayCopyParser } from './trace-graph.copy.js';
import { FINGERPRINT_SQL, fingerprintOfRows, type StaysFingerprint } from './trace-graph.fingerprint.js';
import { Interner } from './trace-graph.ids.js';
import { stayOfTuple, staysSelect } from './trace-graph.rows.js';
import type { GraphStay, StayRows } from './trace-graph.types.js';

/**
 * Where the trace's graph is read from (docs/decisions/trace.md, "The graph kept fresh"). A
 * horizon is the text of the `pg_snapshot` the graph was last read under: every transaction it did
 * not see (in progress then, or begun after) has an xid at or above its xmin, and is either not
 * visible in it (pg_visible_in_snapshot) or not yet committed; its change rows are what the next
 * refresh reads.
 */
export type Horizon = string;

export interface Changes {
  horizon: Horizon;
  /** The animals whose rows changed since the previous horizon, and their whole current paths. */
  animals: string[];
  rows: GraphStay[];
}

export interface GraphSource {
  /** Every stay, in chunks of about `chunk` rows, read under one snapshot; its horizon. */
  load(onChunk: (rows: StayRows) => void, chunk?: number): Promise<Horizon>;
  /** One statement: a newer horizon when nothing changed since `since`; `changed`; or `stale` when change rows `since` needs were purged. */
  check(since: Horizon): Promise<{ horizon: Horizon } | 'changed' | 'stale'>;
  /** The changes since `since`, read under one snapshot; `stale` as for check, or when a stale mark (trace_graph_stale()) is among them. */
  changes(since: Horizon): Promise<Changes | 'stale'>;
  /** Drops the change rows older than `kept` (an interval, e.g. '1 hour'); how many. */
  purge(kept: string): Promise<number>;
  /**
   * Whether a load now would be current: no transaction older than the change cutoff still runs
   * (anywhere in the cluster: a snapshot's xmin is the cluster's). A load under an older one would be
   * found stale at once, its whole read wasted.
   */
  loadable?(): Promise<boolean>;
  /**
   * The stays' fingerprint (trace-graph.fingerprint.ts) and its horizon, one statement; with
   * `since`, also the changes since it, under the same snapshot (checkGraph, trace-graph.check.ts).
   */
  fingerprint(since?: Horizon): Promise<StaysFingerprint>;
}

const CHUNK = 50_000;
/** The change row of a write that names no animal (a TRUNCATE, a detach, `trace_graph_stale()`: Migration0075TraceGraphStale): read everything again. */
const STALE_MARK = '00000000-0000-0000-0000-000000000000';

/** Whether the change rows `since` needs may have been purged: its xmin below the cutoff. */
const STALE = `pg_snapshot_xmin($1::pg_snapshot) < (select c.xid from trace_change_cutoff c)`;
/**
 * The change rows of the transactions `$1` did not see: those in progress then (its xip list) and
 * those begun after (at or above its xmax), each an index range of trace_change_xid, however old
 * the oldest transaction running then (in any database of the cluster: its xmin) is.
 */
const UNSEEN = `trace_change t where t.xid >= pg_snapshot_xmax($1::pg_snapshot) or t.xid = any (array(select pg_snapshot_xip($1::pg_snapshot)))`;
// Whether there is any: each part read from the index (an EXISTS could be planned as a scan of the whole log).
const ANY_UNSEEN = `(select t.xid from trace_change t where t.xid >= pg_snapshot_xmax($1::pg_snapshot) order by t.xid limit 1) is not null
  or (select t.xid from trace_change t where t.xid = any (array(select pg_snapshot_xip($1::pg_snapshot))) order by t.xid limit 1) is not null`;
const CHECK = `select pg_current_snapshot()::text as horizon, ${ANY_UNSEEN} as changed, ${STALE} as stale`;
const OPEN = `select pg_current_snapshot()::text as horizon, ${STALE} as stale`;
const CHANGED_ANIMALS = `select distinct t.animal_id::text from ${UNSEEN}`;
const PATHS = staysSelect('micros', 'where s.animal_id = any($1::uuid[])');
const PURGE = 'select trace_change_purge($1::interval) as dropped';
const LOADABLE = 'select pg_snapshot_xmin(pg_current_snapshot()) >= (select c.xid from trace_change_cutoff c) as loadable';

interface Row {
  horizon: string;
  changed: boolean;
  stale: boolean;
}

/** The refresh's reads, the same on either database: `q` runs one statement in the open repeatable-read transaction. */
async function readChanges(q: (sql: string, params: unknown[]) => Promise<unknown[][]>, since: Horizon, ids: Interner): Promise<Changes | 'stale'> {
  const [opened] = await q(OPEN, [since]);
  if (opened![1]) return 'stale';
  const named = (await q(CHANGED_ANIMALS, [since])).map((r) => r[0] as string);
  if (named.includes(STALE_MARK)) return 'stale';
  const animals = named.map((id) => ids.of(id));
  const rows = animals.length ? (await q(PATHS, [animals])).map((r) => stayOfTuple(r, ids)) : [];
  return { horizon: opened![0] as string, animals, rows };
}

/** The fingerprint, then the changes since `since`, in the open repeatable-read transaction (one snapshot). */
async function readFingerprint(q: (sql: string, params: unknown[]) => Promise<unknown[][]>, since: Horizon | undefined, ids: () => Interner): Promise<StaysFingerprint> {
  const read = fingerprintOfRows(await q(FINGERPRINT_SQL, []));
  return since === undefined ? read : { ...read, changes: await readChanges(q, since, ids()) };
}

function verdict(r: Row): { horizon: Horizon } | 'changed' | 'stale' {
  return r.stale ? 'stale' : r.changed ? 'changed' : { horizon: r.horizon };
}

/** PostgreSQL: the load by a binary COPY on a connection of the pool, in a read-only repeatable-read transaction. */
// A table of ids per read (a load, a refresh), dropped after it: kept for the process's life, its millions of
// strings made every major garbage collection mark them (seconds of a backward trace at a million animals).
export function pgGraphSource(pool: pg.Pool, interner: () => Interner = () => new Interner()): GraphSource {
  async function snapshotted<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('begin isolation level repeatable read read only');
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      // A connection left mid-COPY or mid-transaction is not reusable: closed, not returned.
      client.release(broken);
    }
  }
  const arrays = (client: pg.PoolClient) => async (sql: string, params: unknown[]) => (await client.query({ text: sql, values: params, rowMode: 'array', types: pg.types })).rows as unknown[][];
  return {
    load: (onChunk, chunk = CHUNK) =>
      snapshotted(async (client) => {
        const { rows } = await client.query<{ horizon: string }>({ text: 'select pg_current_snapshot()::text as horizon', types: pg.types });
        const parser = new StayCopyParser(chunk, onChunk);
        const copy = client.query(copyTo(`copy (${staysSelect('raw')}) to stdout (format binary)`));
        for await (const data of copy as AsyncIterable<Buffer>) parser.push(data);
        if (!parser.ended) throw new Error('the stays\' COPY ended early');
        parser.end();
        return rows[0]!.horizon;
      }),
    async check(since) {
      const { rows } = await pool.query<Row>({ text: CHECK, values: [since], types: pg.types });
      return verdict(rows[0]!);
    },
    changes: (since) => snapshotted((client) => readChanges(arrays(client), since, interner())),
    async purge(kept) {
      const { rows } = await pool.query<{ dropped: number }>({ text: PURGE, values: [kept], types: pg.types });
      return rows[0]!.dropped;
    },
    async loadable() {
      const { rows } = await pool.query<{ loadable: boolean }>({ text: LOADABLE, types: pg.types });
      return rows[0]!.loadable;
    },
    fingerprint: (since) => snapshotted((client) => readFingerprint(arrays(client), since, interner)),
  };
}

/**
 * PGlite (one session): the load read by id in chunks, each its own statement, so that the session
 * serves the service between them. The horizon is taken first: whatever changes while the chunks
 * are read is in the change rows it did not see, which the next refresh reads (an animal's path
 * then replaced whole, whichever of its stays a chunk had).
 */
export function pgliteGraphSource(pglite: PGlite, interner: () => Interner = () => new Interner()): GraphSource {
  const snapshotted = <T>(work: (tx: Transaction) => Promise<T>): Promise<T> =>
    pglite.transaction(async (tx) => {
      await tx.exec('set transaction isolation level repeatable read');
      return work(tx);
    });
  const arrays = (tx: Transaction | PGlite) => async (sql: string, params: unknown[]) => (await tx.query<unknown[]>(sql, params, { rowMode: 'array' })).rows;
  const byId = `${staysSelect('micros', 'where s.id > $1')} order by s.id limit $2`;
  return {
    async load(onChunk, chunk = CHUNK) {
      const [opened] = await arrays(pglite)('select pg_current_snapshot()::text', []);
      const ids = interner();
      for (let after = -1; ; ) {
        const rows = (await arrays(pglite)(byId, [after, chunk])).map((r) => stayOfTuple(r, ids));
        if (rows.length) onChunk(rows);
        if (rows.length < chunk) break;
        after = rows[rows.length - 1]!.id;
      }
      return opened![0] as string;
    },
    async check(since) {
      const { rows } = await pglite.query<Row>(CHECK, [since]);
      return verdict(rows[0]!);
    },
    changes: (since) => snapshotted((tx) => readChanges(arrays(tx), since, interner())),
    async purge(kept) {
      const { rows } = await pglite.query<{ dropped: number }>(PURGE, [kept]);
      return rows[0]!.dropped;
    },
    async loadable() {
      const { rows } = await pglite.query<{ loadable: boolean }>(LOADABLE);
      return rows[0]!.loadable;
    },
    fingerprint: (since) => snapshotted((tx) => readFingerprint(arrays(tx), since, interner)),
  };
}
