import { PassThrough } from 'node:stream';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { requestScope, unscopedWrites } from '../shared/request-scope.js';
import { sessionOptions } from './orm.js';
import { pgDb, type Db, type Query, type Tuples } from './sql.js';

/** How often the primary's WAL position and each replica's replay position are read. */
const POLL_MS = 200;
/** A bulk read waiting for a replica to replay its caller's write looks again this often. */
const CATCH_UP_POLL_MS = 20;

/** A position no replica reaches: reads go to the primary. */
const UNREACHABLE = 2n ** 64n;
/** The key of the commits made outside any request. */
const UNSCOPED = 'unscoped';

/** A WAL position ('16/B374D848') as a number to compare. */
export function lsnOf(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** A WAL position as PostgreSQL writes it ('16/B374D848'). */
export function lsnText(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** `X-Read-After`'s value, or undefined when it is not a WAL position. */
export function lsnHeader(value: string | undefined): bigint | undefined {
  return value && /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i.test(value.trim()) ? lsnOf(value.trim()) : undefined;
}

/**
 * A replica's failure, not the statement's: the connection (08, 57P0x, no code: refused, reset),
 * its resources (53), a read cancelled by the replay (40001), a statement that wrote (25006) or
 * read an unlogged table (0A000), which only the primary has. The same statement then runs on the primary.
 */
function replicaFailure(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code !== 'string' || /^(08|53|57|58|XX|40001|25006|0A000)/.test(code) || code.startsWith('E');
}

interface Replica {
  url: string;
  pool: pg.Pool;
  db: Db;
  /** Its last replayed WAL position, null while unreachable (or promoted: then it is no replica of ours). */
  replayed: bigint | null;
  /** How far behind the primary it was at its last poll (ms): the age of the newest primary position it had replayed. */
  lagMs: number;
}

export interface ReplicaOptions {
  urls: readonly string[];
  maxLagMs: number;
  poolMax: number;
  /** DB_POOL_IDLE_SECONDS, in ms. */
  poolIdleMs: number;
  /** DB_WORK_MEM, as on the primary's sessions. */
  workMem: string;
}

/**
 * Readers on streaming replicas (docs/decisions/replicas.md). Each statement of a reader goes to a
 * replica that is up, within `maxLagMs` of the primary, and has replayed the last commit of the
 * request's caller (read-your-writes: the session's user and the client address, keyed in this
 * process); otherwise to the primary. A bulk read (trace, exports) waits for a replica to replay
 * its caller's commit, up to the lag bound, rather than load the primary. A replica that fails a
 * statement is marked down until its next poll answers, and the statement runs on the primary.
 */
export class Replicas {
  private readonly replicas: Replica[];
  /** The primary's WAL position over the last polls, newest last. */
  private samples: { at: number; lsn: bigint }[] = [];
  /** The WAL position after each caller's last commit (by reader key), with when it was noted. */
  private readonly written = new Map<string, { lsn: bigint; at: number }>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private next = 0;
  private unscopedNoting: Promise<void> | null = null;
  private readonly ran = { replica: 0, primary: 0 };
  readonly db: Db;

  constructor(
    private readonly primary: Db,
    private readonly primaryPool: pg.Pool,
    private readonly options: ReplicaOptions,
    private readonly log: Logger,
  ) {
    this.replicas = options.urls.map((url) => {
      // A stopped replica must cost a request little: connecting gives up after a second.
      const pool = new pg.Pool({ connectionString: url, max: options.poolMax, idleTimeoutMillis: options.poolIdleMs, connectionTimeoutMillis: 1000, options: sessionOptions(url, options.workMem) });
      pool.on('error', () => undefined); // an idle connection's failure: the next poll marks it down
      return { url, pool, db: pgDb(pool), replayed: null, lagMs: Infinity };
    });
    const writes = this.writes(primary);
    this.db = { ...this.routed('read'), primary: writes, bulk: { ...this.routed('bulk'), primary: writes } };
  }

  /** Polls once (so the first requests already find the replicas), then every POLL_MS. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.polling;
    await Promise.all(this.replicas.map((r) => r.pool.end()));
  }

  /** Readers' statements so far, by where they ran (/metrics). */
  counts(): { replica: number; primary: number } {
    return { ...this.ran };
  }

  /** Each replica's state, for /metrics and the tests. */
  status(): { url: string; up: boolean; lagMs: number }[] {
    return this.replicas.map((r) => ({ url: redact(r.url), up: r.replayed !== null, lagMs: r.lagMs }));
  }

  /** Waits until every replica that is up has replayed what the primary has written so far (tests, benchmarks). */
  async settle(timeoutMs = 30000): Promise<void> {
    const { rows: [row] } = await this.primaryPool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
    const lsn = lsnOf(row!.lsn);
    const until = Date.now() + timeoutMs;
    while (this.replicas.some((r) => r.replayed !== null && r.replayed < lsn)) {
      if (Date.now() > until) throw new Error('the replicas did not catch up');
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
      await this.poll();
    }
  }

  /** Notes the primary's WAL position after a commit of the request's caller (see the ORM's subscriber in orm.ts). */
  async noteWrite(keys: readonly string[]): Promise<bigint> {
    let lsn = UNREACHABLE;
    try {
      const { rows: [row] } = await this.primaryPool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      lsn = lsnOf(row!.lsn);
    } catch (err) {
      // Unknown: the caller reads the primary until the note expires.
      this.log.warn({ err }, 'replicas: the primary did not answer its WAL position after a commit');
    }
    const at = Date.now();
    for (const key of keys) this.written.set(key, { lsn, at });
    const reader = requestScope.getStore()?.reader;
    if (reader && lsn !== UNREACHABLE && lsn > (reader.written ?? 0n)) reader.written = lsn;
    return lsn;
  }

  private poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = null));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    try {
      const [row] = (await this.primaryPool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows;
      this.samples.push({ at: Date.now(), lsn: lsnOf(row!.lsn) });
    } catch (err) {
      this.log.warn({ err }, 'replicas: the primary did not answer its WAL position');
    }
    const now = Date.now();
    // Kept: the positions a replica within the bound can be behind, and one older.
    const keepFrom = now - this.options.maxLagMs - 2 * POLL_MS;
    while (this.samples.length > 1 && this.samples[1]!.at < keepFrom) this.samples.shift();
    await Promise.all(this.replicas.map((r) => this.pollReplica(r, now)));
    // A caller's commit older than the bound is replayed by every replica within it.
    for (const [key, w] of this.written) if (w.at < keepFrom) this.written.delete(key);
  }

  private async pollReplica(r: Replica, now: number): Promise<void> {
    try {
      const { rows } = await r.pool.query<{ standby: boolean; lsn: string | null }>('select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn');
      const wasUp = r.replayed !== null;
      r.replayed = rows[0]!.standby && rows[0]!.lsn ? lsnOf(rows[0]!.lsn) : null;
      let caughtUpTo: number | null = null;
      for (const s of this.samples) if (r.replayed !== null && s.lsn <= r.replayed) caughtUpTo = s.at;
      r.lagMs = caughtUpTo === null ? Infinity : Math.max(0, now - caughtUpTo);
      if (!wasUp && r.replayed !== null) this.log.info({ replica: redact(r.url) }, 'replica up');
      if (wasUp && r.replayed === null) this.log.warn({ replica: redact(r.url) }, 'replica is no longer in recovery (promoted?): not used');
    } catch (err) {
      this.down(r, err);
    }
  }

  private down(r: Replica, err: unknown): void {
    if (r.replayed !== null) this.log.warn({ replica: redact(r.url), err: (err as Error)?.message }, 'replica down: reads go to the primary');
    r.replayed = null;
    r.lagMs = Infinity;
  }

  /** The WAL position the request's caller must see: its last commit, noted now if it wrote in this request. */
  private async needed(): Promise<bigint> {
    if (unscopedWrites.wrote) {
      unscopedWrites.wrote = false;
      this.unscopedNoting = this.noteWrite([UNSCOPED]).then(() => undefined);
    }
    await this.unscopedNoting;
    const unscoped = this.written.get(UNSCOPED)?.lsn ?? 0n;
    const scope = requestScope.getStore()?.reader;
    if (!scope) return unscoped;
    // The reads a request runs side by side (its loaders) all wait for the one noting.
    if (scope.wrote) {
      scope.wrote = false;
      scope.noting = this.noteWrite(scope.writeKeys).then(() => undefined);
    }
    await scope.noting;
    // A write the client made through another instance (its answer's X-Read-After).
    let lsn = scope.after !== undefined && scope.after > unscoped ? scope.after : unscoped;
    for (const key of scope.keys) {
      const w = this.written.get(key);
      if (w && w.lsn > lsn) lsn = w.lsn;
    }
    return lsn;
  }

  private fresh(): Replica[] {
    return this.replicas.filter((r) => r.replayed !== null && r.lagMs <= this.options.maxLagMs);
  }

  /** A replica that has replayed `lsn` (round robin), or, for a bulk read, one that does within the bound; null: the primary. */
  private async choose(mode: 'read' | 'bulk'): Promise<Replica | null> {
    const lsn = await this.needed();
    const fresh = this.fresh();
    if (!fresh.length) return null;
    const ready = fresh.filter((r) => r.replayed! >= lsn);
    if (ready.length) return ready[this.next++ % ready.length]!;
    if (mode === 'read') return null;
    return this.catchUp(fresh, lsn);
  }

  /** Asks the fresh replicas until one has replayed `lsn`, for at most the lag bound. */
  private async catchUp(fresh: Replica[], lsn: bigint): Promise<Replica | null> {
    const until = Date.now() + this.options.maxLagMs;
    for (let first = true; Date.now() < until; first = false) {
      if (!first) await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
      for (const r of fresh) {
        try {
          const { rows } = await r.pool.query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn');
          if (rows[0]!.lsn && lsnOf(rows[0]!.lsn) >= lsn) return r;
        } catch (err) {
          this.down(r, err);
        }
      }
    }
    return null;
  }

  /** The primary for statements that write: the request's later reads then wait for what they wrote. */
  private writes(primary: Db): Db {
    const marked = async <T>(statement: Promise<T>): Promise<T> => {
      try {
        return await statement;
      } finally {
        const reader = requestScope.getStore()?.reader;
        if (reader) reader.wrote = true;
      }
    };
    return { rows: (q) => marked(primary.rows(q)), tuples: (q) => marked(primary.tuples(q)), csv: (q, header) => primary.csv(q, header), binaryParams: primary.binaryParams };
  }

  private onPrimary<T>(query: (db: Db) => Promise<T>): Promise<T> {
    this.ran.primary++;
    return query(this.primary);
  }

  private routed(mode: 'read' | 'bulk'): Db {
    const run = async <T>(query: (db: Db) => Promise<T>): Promise<T> => {
      const replica = await this.choose(mode);
      if (!replica) return this.onPrimary(query);
      try {
        const result = await query(replica.db);
        this.ran.replica++;
        return result;
      } catch (err) {
        if (!replicaFailure(err)) throw err;
        this.down(replica, err);
        return this.onPrimary(query);
      }
    };
    return {
      rows: <T>(q: Query) => run((db) => db.rows<T>(q)),
      tuples: (q: Query): Promise<Tuples> => run((db) => db.tuples(q)),
      csv: (q: Query, header?: boolean) => {
        // The replica is chosen before the first byte; a COPY that fails midway fails the export.
        const out = new PassThrough();
        void this.choose(mode).then(
          (replica) => (replica ? replica.db : this.primary).csv(q, header).on('error', (err) => out.destroy(err)).pipe(out),
          (err: Error) => out.destroy(err),
        );
        return out;
      },
      // The primary and the replicas are all node-pg pools.
      binaryParams: this.primary.binaryParams,
    };
  }
}

/** The replicas DATABASE_REPLICA_URLS names, polled; null without any (or on PGlite). */
export async function openReplicas(config: Config, primary: Db, primaryPool: pg.Pool | undefined, log: Logger): Promise<Replicas | null> {
  if (!config.DATABASE_REPLICA_URLS.length || !primaryPool) return null;
  const replicas = new Replicas(primary, primaryPool, { urls: config.DATABASE_REPLICA_URLS, maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS, poolMax: config.DB_POOL_MAX, poolIdleMs: config.DB_POOL_IDLE_SECONDS * 1000, workMem: config.DB_WORK_MEM }, log);
  await replicas.start();
  return replicas;
}

/** A URL without its password, for logs. */
function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
