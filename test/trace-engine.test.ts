import { readdirSync, readFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { GraphEngine } from '../src/trace/engine/graph-engine.js';
import { pgGraphSource, pgliteGraphSource, type GraphSource } from '../src/trace/graph/trace-graph.source.js';
import type { TraceInput } from '../src/trace/trace.service.js';
import { useApp } from './helpers/app.js';
import { login, makeUser } from './helpers/factories.js';
import type { Holding } from './helpers/movements.js';
import { at, networkPlaces, travelNetwork } from './helpers/trace-network.js';

/**
 * The trace's engine (src/trace/engine/; ARCHITECTURE.md, "Derived engines"): a thread of its own at
 * a lower priority, never waited on (a graph that is not current answers in SQL while it reloads),
 * observable in /health and /metrics, its failed loads retried.
 */
const app = useApp();
const graphOn = process.env.TEST_TRACE_GRAPH !== 'false';
const whenGraph = graphOn ? test : test.skip;
let places: Holding[];
let vehicleId: string;
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
  await app.service.core.trace.ready();
});

const engine = () => app.service.core.trace.engineStatus!;
/** Waits (a bounded number of polls) until the engine's graph is current again. */
async function untilCurrent(): Promise<void> {
  for (let i = 0; i < 600 && engine().state !== 'current'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(engine().state).toBe('current');
}

describe('the trace engine', () => {
  whenGraph('GET /health and GET /metrics show its graph: current, its stays and bytes, its walks and its SQL fallbacks', async () => {
    await travelNetwork(app, places, vehicleId, 11);
    await app.service.core.trace.ready();
    const health = await app.call('GET', '/health');
    expect(health.status).toBe(200);
    const details = (health.body as { details: { trace_engine: Record<string, unknown> } }).details.trace_engine;
    expect(details).toMatchObject({ str_state: 'current', str_thread: 'running', int_load_failures: 0, str_last_error: null });
    expect(details.int_stays).toBeGreaterThan(0);
    expect(details.int_bytes).toBeGreaterThan(0);
    expect(details.num_last_load_seconds).toBeGreaterThanOrEqual(0);
    expect(details.int_age_seconds).toBeGreaterThanOrEqual(0);
    const metrics = await app.call<string>('GET', '/metrics');
    const text = metrics.body;
    expect(text).toContain('trace_graph_state{state="current"} 1');
    expect(text).toContain('trace_graph_state{state="stale"} 0');
    expect(text).toMatch(new RegExp(`^trace_graph_stays ${details.int_stays as number}$`, 'm'));
    expect(text).toMatch(/^trace_sql_fallbacks_total \d+$/m);
  });

  whenGraph('a graph whose change rows are gone holds no trace up: it walks in SQL (the same answer) while the graph reloads, then in memory again', async () => {
    const { units } = await travelNetwork(app, places, vehicleId, 23);
    const admin = await login(app, await makeUser(app, { admin: true }));
    const db = app.service.db;
    const actor = await app.service.core.auth.authenticate(db, admin.access);
    const input: TraceInput = { control_unit_id: units[0], ts_from: at(10), ts_to: at(80), str_direction: 'BOTH' };
    const trace = app.service.core.trace;
    const em = () => app.service.orm.em.fork();
    await trace.ready();
    await em().execute('delete from trace_run');
    const walks = trace.walksInMemory;
    const inMemory = await trace.trace(db, actor, input, { int_max_results: 5000 });
    await trace.settled();
    expect(trace.walksInMemory).toBe(walks + 2);
    // Every change row the graph would read is gone (as a purge past its horizon leaves it).
    await em().execute(`update trace_change_cutoff set xid = greatest(xid::text::numeric, pg_current_xact_id()::text::numeric + 1)::text::xid8`);
    await em().execute('delete from trace_run');
    const { fallbacks, staleReloads } = engine();
    const inSql = await trace.trace(db, actor, input, { int_max_results: 5000 });
    expect(inSql).toEqual(inMemory);
    expect(trace.walksInMemory).toBe(walks + 2);
    expect(engine().fallbacks).toBe(fallbacks + 1);
    expect(engine().staleReloads).toBe(staleReloads + 1);
    await untilCurrent();
    await em().execute('delete from trace_run');
    const again = await trace.trace(db, actor, input, { int_max_results: 5000 });
    expect(again).toEqual(inMemory);
    expect(trace.walksInMemory).toBe(walks + 4);
  });

  whenGraph('a write that reached no trigger is found by the comparison with the database: the graph reloads, and holds it', async () => {
    const { units } = await travelNetwork(app, places, vehicleId, 31);
    const trace = app.service.core.trace;
    await trace.ready();
    expect(await trace.verifyGraph()).toBe('equal');
    const [{ animal_id: animal } = { animal_id: '' }] = await app.service.orm.em.fork().execute<{ animal_id: string }[]>('select animal_id from animal_stay where control_unit_id = ? limit 1', [units[0]]);
    // A bulk writer's way: no trigger runs, no change row is written.
    await app.service.orm.em.fork().transactional(async (em) => {
      await em.execute(`set local session_replication_role = replica`);
      await em.execute(`update animal_stay set ts_from = ts_from - interval '1 second' where animal_id = ?`, [animal]);
    });
    const { mismatches } = engine();
    expect(await trace.verifyGraph()).toBe('mismatch');
    expect(engine().mismatches).toBe(mismatches + 1);
    await untilCurrent();
    expect(await trace.verifyGraph()).toBe('equal');
    const health = await app.call<{ details: { trace_engine: { int_mismatches: number } } }>('GET', '/health');
    expect(health.body.details.trace_engine.int_mismatches).toBe(mismatches + 1);
  });

  whenGraph('its thread runs at the configured lower priority (Linux keeps a nice value per thread)', () => {
    const tasks = (() => {
      try {
        return readdirSync('/proc/self/task');
      } catch {
        return null;
      }
    })();
    if (!tasks) return; // not Linux: nothing to read
    // The 19th field of a task's stat is its nice value (after the parenthesised name, which may hold spaces).
    const nice = tasks.map((t) => Number(readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
    expect(nice).toContain(app.config.TRACE_ENGINE_NICE);
    expect(nice).toContain(0);
  });
});

describe('the graph engine\'s loads', () => {
  test('a load that fails is tried again after a wait, and the graph is then current; until then it gives no graph', async () => {
    const native = await app.service.orm.em.getConnection().getNativeClient();
    const real: GraphSource = process.env.DATABASE_URL ? pgGraphSource(native as pg.Pool) : pgliteGraphSource(native as unknown as PGlite);
    let failing = 2;
    const source: GraphSource = { ...real, load: (onChunk, chunk) => (failing-- > 0 ? Promise.reject(new Error('the database went away')) : real.load(onChunk, chunk)) };
    const states: string[] = [];
    const graphs = new GraphEngine(source, { retryFirstMs: 5, retryMaxMs: 20, purgeEveryMs: 0 }, (s) => states.push(s.state));
    graphs.start();
    await graphs.firstLoad();
    expect(graphs.status).toMatchObject({ state: 'failed', loadFailures: 1, lastError: 'the database went away' });
    expect(await graphs.current()).toBeNull();
    for (let i = 0; i < 600 && graphs.status.state !== 'current'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(graphs.status).toMatchObject({ state: 'current', loads: 1, loadFailures: 2, lastError: null });
    expect(states).toEqual(['failed', 'failed', 'current']);
    expect(await graphs.current()).not.toBeNull();
    graphs.close();
  });
});
