/** /metrics over real HTTP, read by a Prometheus text-format parser. */
import parsePrometheusTextFormat, { type Family, type Sample } from 'parse-prometheus-text-format';
import { startApp, useApp, type TestApp } from './helpers/app.js';
import { member } from './helpers/factories.js';

const TOKEN = 'metrics-token-0123456789';
const app = useApp();

interface Scrape {
  /** Each family with its declared type (the parser throws on a line that is not the text format). */
  types: Map<string, Family['type']>;
  /** Every sample line by its own name (`x_bucket`, `x_count`, `x_sum` apart), labels intact: the parser folds a labelled histogram's samples into one. */
  samples: Map<string, Sample[]>;
}

async function scrape(a: TestApp = app): Promise<Scrape> {
  const res = await fetch(`${a.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const types = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f.type]));
  const samples = new Map<string, Sample[]>();
  for (const f of parsePrometheusTextFormat(text.split('\n').filter((l) => !l.startsWith('# TYPE')).join('\n'))) samples.set(f.name, [...(samples.get(f.name) ?? []), ...f.metrics]);
  return { types, samples };
}

const sample = (m: Scrape, name: string, labels: Record<string, string>): Sample | undefined =>
  m.samples.get(name)?.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
const value = (m: Scrape, name: string, labels: Record<string, string> = {}) => sample(m, name, labels)?.value;

describe('/metrics', () => {
  test('requests are counted and timed per route template, method and status; SQL statements per route', async () => {
    const owner = await member(app);
    const missing = '00000000-0000-4000-8000-000000000001';
    for (let i = 0; i < 3; i++) expect((await app.call('GET', `/api/establishments/${missing}`, { token: owner.access })).status).toBe(404);
    expect((await app.call('GET', '/api/whoami')).status).toBe(401);
    expect((await app.call('GET', '/api/whoami', { token: owner.access })).status).toBe(200);

    const m = await scrape();
    const byId = { method: 'GET', route: '/api/establishments/:id', status: '404' };
    expect(m.types.get('http_requests_total')).toBe('COUNTER');
    expect(value(m, 'http_requests_total', byId)).toBe('3');
    expect(value(m, 'http_requests_total', { method: 'GET', route: '/api/whoami', status: '401' })).toBe('1');
    expect(value(m, 'http_requests_total', { method: 'GET', route: '/api/whoami', status: '200' })).toBe('1');
    expect(value(m, 'http_requests_total', { method: 'POST', route: '/api/login', status: '200' })).toBe('1');
    // The raw path never becomes a label (unbounded cardinality).
    expect(JSON.stringify([...m.samples.values()])).not.toContain(missing);

    expect(m.types.get('http_request_duration_seconds')).toBe('HISTOGRAM');
    expect(value(m, 'http_request_duration_seconds_count', byId)).toBe('3');
    expect(value(m, 'http_request_duration_seconds_bucket', { ...byId, le: '+Inf' })).toBe('3');
    expect(Number(value(m, 'http_request_duration_seconds_sum', byId))).toBeGreaterThan(0);

    // whoami: twice (one refused before any SQL), the signed-in one ran its authentication at least.
    const whoami = { method: 'GET', route: '/api/whoami' };
    expect(value(m, 'http_request_sql_statements_count', whoami)).toBe('2');
    expect(Number(value(m, 'http_request_sql_statements_sum', whoami))).toBeGreaterThanOrEqual(1);
  });

  test('GraphQL operations are counted per name, type and outcome', async () => {
    const owner = await member(app);
    for (let i = 0; i < 2; i++) expect((await app.graphql('query Me { whoami { id } }', {}, owner.access)).status).toBe(200);
    expect((await app.graphql('{ whoami { id ', {}, owner.access)).status).toBe(400);
    expect((await app.graphql('query Broken { whoamii { id } }', {}, owner.access)).status).toBe(400);
    const m = await scrape();
    expect(m.types.get('graphql_operations_total')).toBe('COUNTER');
    expect(value(m, 'graphql_operations_total', { operation: 'Me', type: 'query', code: 'OK' })).toBe('2');
    expect(value(m, 'graphql_operations_total', { operation: 'anonymous', type: 'none', code: 'GRAPHQL_PARSE_FAILED' })).toBe('1');
    expect(value(m, 'graphql_operations_total', { operation: 'Broken', code: 'GRAPHQL_VALIDATION_FAILED' })).toBe('1');
    expect(value(m, 'graphql_operation_duration_seconds_count', { operation: 'Me', type: 'query', code: 'OK' })).toBe('2');
    expect(Number(value(m, 'http_requests_total', { method: 'POST', route: '/graphql', status: '200' }))).toBeGreaterThanOrEqual(2);
  });

  test('process metrics, the event log and (on PostgreSQL) the pool', async () => {
    await member(app);
    const m = await scrape();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) expect(m.samples.has(name)).toBe(true);
    const [row] = await app.service.db.rows<{ seq: string }>({ sql: 'select max(seq)::text as seq from event', params: [] });
    expect(m.types.get('event_log_last_seq')).toBe('GAUGE');
    expect(Number(value(m, 'event_log_last_seq'))).toBeGreaterThanOrEqual(Number(row!.seq));
    expect(Number(row!.seq)).toBeGreaterThan(0);
    if (process.env.DATABASE_URL) {
      expect(sample(m, 'db_pool_connections', { state: 'idle' })).toBeDefined();
      expect(value(m, 'db_pool_max_connections')).toBe(String(app.config.DB_POOL_MAX));
    } else {
      expect(m.samples.has('db_pool_connections')).toBe(false);
    }
  });

  // Two more services, each migrating a fresh database: on PGlite under load that alone passes the default 60 s.
  test('METRICS_TOKEN puts /metrics behind a bearer token; METRICS_ENABLED=false removes it', async () => {
    const guarded = await startApp({ METRICS_TOKEN: TOKEN });
    const off = await startApp({ METRICS_ENABLED: 'false' });
    try {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${TOKEN}x` }] as Record<string, string>[]) {
        const res = await guarded.call('GET', '/metrics', { headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'UNAUTHENTICATED', detail: expect.any(String) });
      }
      const ok = await guarded.call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(ok.body).toContain('http_requests_total');
      const gone = await off.call('GET', '/metrics');
      expect(gone.status).toBe(404);
    } finally {
      await guarded.close();
      await off.close();
    }
  }, 240_000);
});
