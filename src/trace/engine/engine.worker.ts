import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import type { Db, Query } from '../../db/sql.js';
import type { UnitScopeOn } from '../../places/establishment.policy.js';
import { scopeKey, seenUnitsLookup } from '../answer/trace-answer.js';
import { memoryGraphOf } from '../graph/trace-graph.memory.js';
import { pgGraphSource } from '../graph/trace-graph.source.js';
import type { TraceQuestion, TraceRun } from '../trace.reader.js';
import { traceRunInMemory } from '../walk/trace-memory.js';
import { GraphEngine, type GraphStatus } from './graph-engine.js';
import type { EngineOptions, WalkJob, WalkDone, PageJob, StoreJob } from './protocol.js';
import { remoteGraphSource } from './remote-source.js';
import { Rpc } from './rpc.js';

/**
 * The trace's engine (ARCHITECTURE.md, "Derived engines"): a thread of its own, at a lower OS
 * priority, holding the graph of every stay; it loads and refreshes it, walks, and assembles each
 * answer. Its SQL runs on the service's thread (`db` calls): the caller's scope and the request's
 * statement count are there.
 */
const options = workerData as EngineOptions;
const rpc = new Rpc(parentPort!);
// Linux keeps a nice value per thread: this one alone yields to the threads serving requests.
if (options.nice) {
  try {
    setPriority(options.nice);
  } catch {
    // not permitted here: the engine runs at the service's priority
  }
}
const pool = options.database.kind === 'postgres' ? new pg.Pool({ connectionString: options.database.url, max: 2, options: options.database.sessionOptions }) : null;
pool?.on('error', () => undefined);
const source = pool ? pgGraphSource(pool) : remoteGraphSource(rpc);
const report = (status: GraphStatus) => void rpc.call('state', { ...status }).catch(() => undefined);
const engine = new GraphEngine(source, options.graph, report);
const runs = new Map<string, TraceRun>();

/** A Db whose statements run on the service's thread, under the call's job (its request, its connection). */
function serviceDb(job: number, binaryParams: boolean): Db {
  const never = () => {
    throw new Error('the trace engine reads rows only');
  };
  return { binaryParams, rows: <T>(query: Query) => rpc.call<T[]>('db', { job, query }), tuples: never, csv: never };
}

rpc.handle('walk', async (job: WalkJob): Promise<WalkDone | null> => {
  const graph = await engine.current();
  if (!graph) return null;
  seenUnitsLookup.perRowUpTo = job.perRowUpTo;
  const visibleUnit = (column: string, on?: UnitScopeOn) => {
    const scope = job.scopes[scopeKey(column, on)];
    if (!scope) throw new Error(`the trace engine was not given the scope ${scopeKey(column, on)}`);
    return scope;
  };
  const q: TraceQuestion = { seed: { sql: 'false', params: [] }, place: job.place, from: new Date(job.from), to: new Date(job.to), direction: job.direction, maxHops: job.maxHops, visibleUnit };
  const run = await traceRunInMemory(serviceDb(job.job, job.binaryParams), memoryGraphOf(graph), q, job.version, job.id, job.key, job.now);
  runs.set(run.id, run);
  report(engine.status);
  return { id: run.id, total: run.total, establishments: run.establishments, walks: job.direction === 'BOTH' ? 2 : 1 };
});

rpc.handle('page', (job: PageJob) => {
  const run = runs.get(job.run);
  if (!run?.pending) throw new Error(`the trace engine holds no answer ${job.run}`);
  return run.pending.page(serviceDb(job.job, job.binaryParams), job.limit, job.offset);
});

rpc.handle('store', async (job: StoreJob) => {
  const run = runs.get(job.run);
  if (!run?.pending) throw new Error(`the trace engine holds no answer ${job.run}`);
  await run.pending.store(serviceDb(job.job, job.binaryParams));
  return null;
});

rpc.handle('forget', (run: string) => runs.delete(run));

rpc.handle('ready', async () => {
  await engine.firstLoad();
  await engine.current();
  return { ...engine.status };
});

rpc.handle('verify', () => engine.verify());

rpc.handle('close', async () => {
  engine.close();
  await pool?.end();
  return null;
});

engine.start();
engine.checkPeriodically();
