import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import type { Db } from '../src/db/sql.js';
import WebSocket from 'ws';
import { startApp, useApp, type TestApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { animalBody, identify } from './helpers/identify.js';
import { holding, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockTags } from './helpers/tags.js';
import type { TraceProgressEvent } from '../src/trace/trace-progress.js';

/**
 * Issue 24: the traceProgress subscription. A subscriber hears the phases of the traces its own
 * session runs (STARTED, WALKED or REUSED, ANSWERED), from whichever instance runs them
 * (PostgreSQL: NOTIFY; PGlite: in process), and nothing of another caller's.
 */

const app = useApp();
const county = useCounty(app);

/** A phase as a subscriber gets it (whose trace it is never reaches the client). */
type Phase = Omit<TraceProgressEvent, 'user_id' | 'session_id'>;

const QUERY = `subscription { traceProgress { run_id str_phase str_seed_kind seed_id str_direction ts_from ts_to int_max_hops int_establishments int_animals int_total_results str_error_code ts_started_at ts_at } }`;

function wsClient(on: TestApp, token: string, onClosed: (code: number) => void = () => undefined): WsClient {
  return createWsClient({
    url: `${on.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined,
    on: { closed: (e) => onClosed((e as { code: number }).code) },
  });
}

function follow(client: Pick<WsClient, 'subscribe'>) {
  const phases: Phase[] = [];
  const errors: unknown[] = [];
  let done!: () => void;
  const ended = new Promise<void>((r) => (done = r));
  const stop = client.subscribe<{ traceProgress: Phase }>({ query: QUERY }, {
    next: (r) => {
      if (r.errors) errors.push(...r.errors);
      if (r.data) phases.push(r.data.traceProgress);
    },
    error: (e) => (errors.push(e), done()),
    complete: () => done(),
  });
  return { phases, errors, ended, stop };
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `n` subscribers at `a`, and on PostgreSQL its connection LISTENing (a subscriber counts before its LISTEN took effect). */
function subscribed(a: TestApp, n: number): boolean {
  const progress = a.service.core.traceProgress;
  return progress.size >= n && (!process.env.DATABASE_URL || progress.listeningNow);
}

/** `n` animals identified at the holding's unit now (each one stay there). */
async function identifyN(on: TestApp, token: string, h: Holding['unit'], n: number): Promise<void> {
  const { codes } = await stockTags(on, h.unitId, n);
  await identify(on, token, h, codes.map((c) => animalBody(c)));
}

const since = new Date(Date.now() - 86_400_000).toISOString();
const question = (h: Holding) => ({ establishment_id: h.unit.establishmentId, ts_from: since, ts_to: new Date(Date.now() + 3_600_000).toISOString(), str_direction: 'BOTH', int_max_hops: 2 });

describe('traceProgress over graphql-ws', () => {
  it("sends the subscriber's own trace STARTED, WALKED, ANSWERED (then REUSED for the same question), nothing of a refused question, nothing to another caller", async () => {
    const farm = await holding(app, county);
    const other = await holding(app, county);
    await identifyN(app, farm.owner.access, farm.unit, 3);
    const mine = wsClient(app, farm.owner.access);
    const theirs = wsClient(app, other.owner.access);
    try {
      const own = follow(mine);
      const foreign = follow(theirs);
      await until('two subscribers', () => subscribed(app, 2));

      const asked = question(farm);
      const res = await app.call<{ meta: { int_total_results: number }; int_total_establishments: number }>('POST', '/api/trace', { token: farm.owner.access, body: asked });
      expect(res.status).toBe(200);
      const total = res.body.meta.int_total_results;
      expect(total).toBe(3);
      await until('the first trace answered', () => own.phases.some((p) => p.str_phase === 'ANSWERED'));
      expect(own.phases.map((p) => p.str_phase)).toEqual(['STARTED', 'WALKED', 'ANSWERED']);
      const [started, walked, answered] = own.phases as [Phase, Phase, Phase];
      expect(new Set(own.phases.map((p) => p.run_id)).size).toBe(1);
      expect(started).toMatchObject({ str_seed_kind: 'ESTABLISHMENT', seed_id: farm.unit.establishmentId, str_direction: 'BOTH', int_max_hops: 2, ts_from: asked.ts_from, ts_to: asked.ts_to, int_animals: null, int_total_results: null });
      expect(walked).toMatchObject({ int_establishments: res.body.int_total_establishments, int_animals: total });
      expect(answered).toMatchObject({ int_total_results: total, str_error_code: null });
      expect(Date.parse(answered.ts_at)).toBeGreaterThanOrEqual(Date.parse(started.ts_started_at));

      // A refused question (ts_to before ts_from) publishes nothing: the phases start with the checked question.
      const refused = await app.call('POST', '/api/trace', { token: farm.owner.access, body: { ...asked, ts_to: since, ts_from: asked.ts_to } });
      expect(refused.status).toBe(422);
      // The same question again within a minute, the data unchanged: the stored answer is reused.
      expect((await app.call('POST', '/api/trace', { token: farm.owner.access, body: asked })).status).toBe(200);
      await until('the second trace answered', () => own.phases.filter((p) => p.str_phase === 'ANSWERED').length === 2);
      expect(own.phases.slice(3).map((p) => p.str_phase)).toEqual(['STARTED', 'REUSED', 'ANSWERED']);
      expect(own.phases[4]).toMatchObject({ int_animals: total, int_establishments: res.body.int_total_establishments });
      expect(own.phases[5]!.run_id).not.toBe(started.run_id);

      // The other owner's trace reaches only the other owner; its subscription heard nothing of the farm's.
      expect(foreign.phases).toEqual([]);
      expect((await app.call('POST', '/api/trace', { token: other.owner.access, body: question(other) })).status).toBe(200);
      await until("the other owner's trace answered", () => foreign.phases.some((p) => p.str_phase === 'ANSWERED'));
      expect(foreign.phases.map((p) => p.seed_id)).toEqual([other.unit.establishmentId, other.unit.establishmentId, other.unit.establishmentId]);
      expect(own.phases).toHaveLength(6);
      expect([...own.errors, ...foreign.errors]).toEqual([]);
    } finally {
      await mine.dispose();
      await theirs.dispose();
    }
  });

  it('a subscriber on another instance hears a trace run on this one (PostgreSQL: NOTIFY)', async () => {
    if (!process.env.DATABASE_URL) return; // PGlite is one process: its phases never leave it
    const farm = await holding(app, county);
    await identifyN(app, farm.owner.access, farm.unit, 2);
    const second = await startApp();
    const client = wsClient(second, farm.owner.access);
    try {
      const own = follow(client);
      await until('the subscriber', () => subscribed(second, 1));
      expect(app.service.core.traceProgress.size).toBe(0);
      const res = await app.call<{ meta: { int_total_results: number } }>('POST', '/api/trace', { token: farm.owner.access, body: question(farm) });
      expect(res.status).toBe(200);
      await until('the trace answered', () => own.phases.some((p) => p.str_phase === 'ANSWERED'));
      expect(own.phases.map((p) => p.str_phase)).toEqual(['STARTED', 'WALKED', 'ANSWERED']);
      expect(own.phases[2]!.int_total_results).toBe(res.body.meta.int_total_results);
    } finally {
      await client.dispose();
      await second.close();
    }
  });

  it('a listening connection that is lost is opened again, and phases are heard again (PostgreSQL)', async () => {
    if (!process.env.DATABASE_URL) return; // PGlite: in process, no connection to lose
    const farm = await holding(app, county);
    await identifyN(app, farm.owner.access, farm.unit, 1);
    const client = wsClient(app, farm.owner.access);
    try {
      const own = follow(client);
      await until('the subscriber listening', () => app.service.core.traceProgress.size >= 1 && app.service.core.traceProgress.listeningNow);
      const [ended] = await rows<{ n: number }>(app, "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = ?", [`livestock-trace-progress ${process.pid}`]);
      expect(ended!.n).toBe(1);
      await until('the connection lost', () => !app.service.core.traceProgress.listeningNow);
      await until('listening again', () => app.service.core.traceProgress.listeningNow);
      expect((await app.call('POST', '/api/trace', { token: farm.owner.access, body: question(farm) })).status).toBe(200);
      await until('the trace answered', () => own.phases.some((p) => p.str_phase === 'ANSWERED'));
      expect(own.phases.map((p) => p.str_phase)).toEqual(['STARTED', 'WALKED', 'ANSWERED']);
    } finally {
      await client.dispose();
    }
  });

  it('a walk that fails after STARTED sends FAILED with its code', async () => {
    const farm = await holding(app, county);
    await identifyN(app, farm.owner.access, farm.unit, 1);
    const client = wsClient(app, farm.owner.access);
    try {
      const own = follow(client);
      await until('the subscriber', () => subscribed(app, 1));
      // The service's own trace on the real database, but for the walk's first statement (in memory: the units the caller sees; in SQL: trace_runs), which fails.
      const real = app.service.db;
      const failing: Db = { ...real, primary: undefined, bulk: undefined, rows: (q) => (q.sql.includes('trace_runs(') || q.sql.includes('with ordinality as su(') ? Promise.reject(new Error('the walk failed')) : real.rows(q)) };
      const actor = await app.service.core.auth.authenticate(real, farm.owner.access);
      await expect(app.service.core.trace.trace(failing, actor, question(farm), null)).rejects.toThrow('the walk failed');
      await until('FAILED', () => own.phases.some((p) => p.str_phase === 'FAILED'));
      expect(own.phases.map((p) => [p.str_phase, p.str_error_code])).toEqual([['STARTED', null], ['FAILED', 'INTERNAL']]);
    } finally {
      await client.dispose();
    }
  });

  it('graphql-sse: the same phases; a logout ends the stream (and closes a graphql-ws socket, 4403)', async () => {
    const farm = await holding(app, county);
    await identifyN(app, farm.owner.access, farm.unit, 1);
    const sse = createSseClient({ url: `${app.url}/graphql/stream`, headers: { Authorization: `Bearer ${farm.owner.access}` }, retryAttempts: 0 });
    let closedWith = 0;
    const ws = wsClient(app, farm.owner.access, (code) => (closedWith = code));
    try {
      const streamed = follow(sse as unknown as WsClient);
      const socket = follow(ws);
      await until('two subscribers', () => subscribed(app, 2));
      expect((await app.call('POST', '/api/trace', { token: farm.owner.access, body: question(farm) })).status).toBe(200);
      await until('the trace answered on both', () => [streamed, socket].every((f) => f.phases.some((p) => p.str_phase === 'ANSWERED')));
      expect(streamed.phases.map((p) => p.str_phase)).toEqual(['STARTED', 'WALKED', 'ANSWERED']);
      expect(streamed.phases.map((p) => p.run_id)).toEqual(socket.phases.map((p) => p.run_id));
      expect((await app.call('POST', '/api/logout', { token: farm.owner.access })).status).toBe(204);
      await Promise.all([streamed.ended, socket.ended]);
      await until('the socket closed', () => closedWith !== 0);
      expect(closedWith).toBe(4403);
      await until('no subscribers', () => app.service.core.traceProgress.size === 0);
    } finally {
      sse.dispose();
      await ws.dispose();
    }
  });
});
