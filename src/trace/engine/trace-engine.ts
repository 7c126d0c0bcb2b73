import { AsyncResource } from 'node:async_hooks';
import type { Worker } from 'node:worker_threads';
import type { Db, Query } from '../../db/sql.js';
import type { Logger } from '../../shared/logger.js';
import { ANSWER_SCOPES, scopeKey, seenUnitsLookup } from '../answer/trace-answer.js';
import type { GraphSource } from '../graph/trace-graph.source.js';
import { traceRunPage, type DataVersion, type TraceQuestion, type TraceRun, type TracedAnimalRow } from '../trace.reader.js';
import type { GraphStatus } from './graph-engine.js';
import type { EngineOptions, WalkDone } from './protocol.js';
import { serveGraphSource } from './remote-source.js';
import { Rpc } from './rpc.js';
import { startWorker } from './spawn.js';

/** The engine as the service sees it: its graph's status, and its own counts. */
export interface EngineStatus extends GraphStatus {
  /** Whether its thread runs (restarting: it stopped and is started again after a wait). */
  thread: 'running' | 'restarting' | 'stopped';
  /** Walks answered from the graph (BOTH: 2). */
  walks: number;
  /** Questions walked in SQL because the graph was not current (loading, stale, failed) or the engine failed. */
  fallbacks: number;
  restarts: number;
}

interface Job {
  db: Db;
  run: <T>(work: () => T) => T;
  failed?: unknown;
}

/**
 * The service's side of the trace's engine (src/trace/engine/engine.worker.ts; ARCHITECTURE.md,
 * "Derived engines"): hands questions over and runs the SQL the engine asks for, in the asking
 * request's context (its statement count, its connection). It never waits for the graph: a
 * question while the graph is not current gets null, and the service walks in SQL.
 */
export class TraceEngine {
  private worker!: Worker;
  private rpc!: Rpc;
  private readonly jobs = new Map<number, Job>();
  private nextJob = 1;
  private closing = false;
  private restartTimer: NodeJS.Timeout | undefined;
  readonly status: EngineStatus = {
    state: 'loading', stays: 0, bytes: 0, loadedAt: null, lastLoadSeconds: null, loads: 0, loadFailures: 0, staleReloads: 0, refreshes: 0, checks: 0, mismatches: 0, lastError: null,
    thread: 'running', walks: 0, fallbacks: 0, restarts: 0,
  };

  constructor(
    private readonly options: EngineOptions,
    private readonly log: Logger,
    /** PGlite's source, served from this thread (`options.database.kind` 'service'). */
    private readonly serviceSource: GraphSource | null = null,
  ) {
    this.spawn();
  }

  /** Walks the question on the graph and assembles its answer there; null when the graph is not current (walk in SQL). */
  async walk(db: Db, q: TraceQuestion, version: DataVersion, id: string, key: string, now: number): Promise<TraceRun | null> {
    if (this.status.state !== 'current' || this.status.thread !== 'running') {
      this.status.fallbacks++;
      return null;
    }
    const scopes: Record<string, Query> = {};
    for (const [column, on] of ANSWER_SCOPES) scopes[scopeKey(column, on)] = q.visibleUnit(column, on);
    let done: WalkDone | null;
    try {
      done = await this.job(db, (job) =>
        this.rpc.call<WalkDone | null>('walk', {
          job, binaryParams: db.binaryParams, place: q.place, from: q.from.getTime(), to: q.to.getTime(), direction: q.direction, maxHops: q.maxHops, now, scopes, perRowUpTo: seenUnitsLookup.perRowUpTo, version, id, key,
        }),
      );
    } catch (err) {
      if (isServiceError(err)) throw err.cause;
      this.log.error({ err }, 'the trace engine failed a walk: walked in SQL');
      done = null;
    }
    if (!done) {
      this.status.fallbacks++;
      return null;
    }
    this.status.walks += done.walks;
    return { id: done.id, total: done.total, establishments: done.establishments.map(ownDates), pending: this.pending(db, done.id) };
  }

  /** Settles once the first load has ended and, when it loaded, the graph holds every change committed before the call. */
  async ready(): Promise<void> {
    const status = await this.rpc.call<GraphStatus>('ready').catch(() => null);
    if (status) Object.assign(this.status, status);
  }

  /** Compares the graph with the database now (as the periodic check does): the verdict, null when the graph is not current. */
  verify(): Promise<'equal' | 'mismatch' | 'stale' | null> {
    return this.rpc.call<'equal' | 'mismatch' | 'stale' | null>('verify');
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    this.status.thread = 'stopped';
    await Promise.race([this.rpc.call('close').catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await this.worker.terminate();
  }

  private spawn(): void {
    const worker = startWorker(new URL('./engine.worker.js', import.meta.url), this.options);
    const rpc = new Rpc(worker);
    this.worker = worker;
    this.rpc = rpc;
    rpc.handle('db', ({ job, query }: { job: number; query: Query }) => {
      const j = this.jobs.get(job);
      if (!j) throw new Error(`no trace engine job ${job}`);
      // A parameter in PostgreSQL's binary format arrives as a Uint8Array: node-pg sends a Buffer as binary.
      const params = query.params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));
      return j.run(() => j.db.rows({ sql: query.sql, params })).catch((err: unknown) => {
        j.failed = err;
        throw err;
      });
    });
    rpc.handle('state', (status: GraphStatus) => {
      Object.assign(this.status, status);
      return null;
    });
    if (this.serviceSource) serveGraphSource(rpc, this.serviceSource);
    worker.on('error', (err) => this.log.error({ err }, 'the trace engine stopped on an error'));
    worker.on('exit', (code) => {
      rpc.failAll(new Error(`the trace engine stopped (exit ${code})`));
      rpc.close();
      if (this.closing) return;
      // Restarted after a wait (doubling to a minute): questions walk in SQL meanwhile.
      this.status.thread = 'restarting';
      this.status.state = 'loading';
      const wait = Math.min(1000 * 2 ** this.status.restarts, 60_000);
      this.status.restarts++;
      this.restartTimer = setTimeout(() => {
        this.status.thread = 'running';
        this.spawn();
      }, wait);
      this.restartTimer.unref();
    });
  }

  /** Runs `work` as a job: the engine's SQL for it runs on `db`, in the caller's async context. */
  private async job<T>(db: Db, work: (job: number) => Promise<T>): Promise<T> {
    const id = this.nextJob++;
    const job: Job = { db, run: AsyncResource.bind(<R>(w: () => R): R => w()) };
    this.jobs.set(id, job);
    try {
      return await work(id);
    } catch (err) {
      // The service's own error (a statement's) is the caller's, as it would be without the engine.
      if (job.failed !== undefined) throw Object.assign(new Error('a statement of the trace engine failed'), { fromService: true, cause: job.failed });
      throw err;
    } finally {
      this.jobs.delete(id);
    }
  }

  /** An answer held by the engine until written; its pages read from the store once it is. */
  private pending(walkDb: Db, run: string): NonNullable<TraceRun['pending']> {
    let stored: Promise<void> | undefined;
    let written = false;
    const unwrap = <T>(p: Promise<T>) =>
      p.catch((err: unknown) => {
        throw isServiceError(err) ? err.cause : err;
      });
    return {
      page: (db, limit, offset): Promise<TracedAnimalRow[]> =>
        written ? traceRunPage(db, run, limit, offset) : unwrap(this.job(db, (job) => this.rpc.call<TracedAnimalRow[]>('page', { job, binaryParams: db.binaryParams, run, limit, offset }))).then((rows) => rows.map(ownDates)),
      store: (on = walkDb) =>
        (stored ??= unwrap(this.job(on, (job) => this.rpc.call<null>('store', { job, binaryParams: on.binaryParams, run })))
          .then(() => {
            written = true;
          })
          .finally(() => void this.rpc.call('forget', run).catch(() => undefined))),
    };
  }
}

/**
 * The row with its Dates made by this thread's Date: a structured clone makes them with the realm's
 * own, which a Date of another realm (a test runner's module context) does not recognize.
 */
function ownDates<T extends object>(row: T): T {
  const out = { ...row } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (Object.prototype.toString.call(v) === '[object Date]' && !(v instanceof Date)) out[k] = new Date((v as Date).getTime());
  return out as T;
}

/** A failure of one of the service's own statements, run for the engine: its cause is the caller's error. */
const isServiceError = (err: unknown): err is { cause: unknown } => (err as { fromService?: boolean }).fromService === true;
