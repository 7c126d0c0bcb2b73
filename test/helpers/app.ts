import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/config.js';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createService, type Service } from '../../src/server.js';
import type { Clock } from '../../src/shared/clock.js';
import { recordExamples, type Examples } from '../../rest/examples.js';
import { checkAnswer } from './openapi-check.js';

/**
 * RECORD_OPENAPI_EXAMPLES=<file> (`npm run docs:examples`): each app keeps the first successful
 * exchange of every REST route and adds the routes the file lacks when it closes (jest runs the
 * files one after another).
 */
const recordTo = process.env.RECORD_OPENAPI_EXAMPLES;
/** Files whose requests are made to be strange: nothing of theirs is an example. */
const NOT_EXAMPLES = /(fuzz|input-boundary|resilience|http)\.test\.ts$/;
function saveExamples(recorded: Examples): void {
  if (!recordTo || NOT_EXAMPLES.test(expect.getState().testPath ?? '')) return;
  const known: Examples = existsSync(recordTo) ? JSON.parse(readFileSync(recordTo, 'utf8')) : {};
  const all = { ...recorded, ...known };
  writeFileSync(recordTo, `${JSON.stringify(Object.fromEntries(Object.keys(all).sort().map((k) => [k, all[k]])), null, 1)}\n`);
}

/**
 * On PGlite every service would run all migrations on a fresh in-memory database (10-15 s each,
 * dozens of services a run) and load the county list (src/places/county.autoload.ts, 1-2 s): the
 * first migrated database is dumped, right after its start and before any test writes, to an image
 * named after the migrations' sources, the county load's and PGlite's version, and every later
 * service starts from it (PGLITE_IMAGE; migrations then find nothing to do, the county table is full).
 */
const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);
const TRACE_SQL = new URL('../../src/trace/sql/', import.meta.url);
const STARTED_FROM = ['../../src/places/county.autoload.ts', '../../docs/data/municipios.csv', '../../docs/data/estados.csv'];
export const migratedImage = (() => {
  // Named after the PGlite MikroORM runs, too: another version may not read this one's data directory.
  const pglite = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/pglite')).resolve('@electric-sql/pglite');
  const pgliteVersion = (JSON.parse(readFileSync(join(pglite, '../../package.json'), 'utf8')) as { version: string }).version;
  const hash = createHash('sha256').update(pgliteVersion);
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(new URL(file, MIGRATIONS)));
  // The trace's SQL functions, which migrations apply from their files.
  for (const file of readdirSync(TRACE_SQL).sort()) hash.update(file).update(readFileSync(new URL(file, TRACE_SQL)));
  // The start also loads the county list into the empty database: the image holds it, so it changes with it.
  for (const file of STARTED_FROM) hash.update(readFileSync(new URL(file, import.meta.url)));
  return join(tmpdir(), `livestock-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
})();

/** A PGlite service's database as an image PGLITE_IMAGE reads, written aside and renamed: a reader never sees half an image. */
export async function dumpImage(service: Service, path: string): Promise<void> {
  const pglite = (await service.orm.em.getConnection().getNativeClient()) as unknown as PGlite;
  // A live database's image starts by replaying the WAL written since its last checkpoint (the
  // migrations', the county list's): checkpointed first, each start from it skips that (~0.1 s of CPU).
  await pglite.exec('checkpoint');
  const image = await pglite.dumpDataDir('none');
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.from(await image.arrayBuffer()));
  renameSync(partial, path);
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** SQL statements the request ran (X-SQL-Statements). */
  sql: number;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (for malformed JSON and wrong content types). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  service: Service;
  config: Config;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>, token?: string): Promise<Reply<T>>;
  close(): Promise<void>;
}

/** Fails, showing the error and its detail, unless the reply has this status. */
export function expectStatus(res: Reply, status: number): void {
  expect({ status: res.status, error: res.body?.error, detail: res.body?.detail }).toEqual({ status, error: undefined, detail: undefined });
}

/** POST that must answer `status` (201 unless said); the reply. */
export async function mustPost(app: TestApp, path: string, token: string, body: unknown, status = 201): Promise<Reply> {
  const res = await app.call('POST', path, { token, body });
  expectStatus(res, status);
  return res;
}

/** A production service's settings in tests: production needs a mailer; nothing listens at this one, so a mail there is recorded FAILED. */
export const PRODUCTION_ENV = { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9' };

/** The configuration of a test's service (startApp's, and global-setup.ts's first start of a run), with `env` over it. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: ':memory:',
    DATABASE_URL: process.env.DATABASE_URL,
    // Set, every test's reads go through the replicas (.ci/run sets it for test/replicas.test.ts).
    DATABASE_REPLICA_URLS: process.env.DATABASE_REPLICA_URLS,
    EXPOSE_SQL_STATEMENTS: 'true',
    // Off unless a file turns it on (test/actor-cache.test.ts, test/read-statements.test.ts) or
    // TEST_ACTOR_CACHE=true: with it, a token's first request counts one statement more than the
    // next, and the many tests that compare two requests' statements would compare a cold and a warm one.
    ACTOR_CACHE: process.env.TEST_ACTOR_CACHE ?? 'false',
    // TEST_TRACE_GRAPH=false: every file's trace walked in PostgreSQL (the service's fallback) instead of in memory.
    TRACE_GRAPH: process.env.TEST_TRACE_GRAPH ?? 'true',
    TRUST_PROXY: 'true',
    LOGIN_LIMIT_PER_ADDRESS: '100000',
    LOGIN_LIMIT_PER_LOGIN: '1000',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    // Closing a test's service does not wait for its idle keep-alive connections (test/shutdown.test.ts holds the grace).
    SHUTDOWN_GRACE_MS: '0',
    ...env,
  });
}

/** The real service on a free port (on `clock` when given: see test/helpers/clock.ts), on the suite's database (see global-setup.ts), over real HTTP. */
export async function startApp(env: Record<string, string> = {}, clock?: Clock): Promise<TestApp> {
  const config = testConfig(env);
  // An image only where the service would start from an empty database it migrates itself.
  const fresh = !config.DATABASE_URL && config.inMemory && !env.PGLITE_IMAGE && !config.ADMIN_EMAIL;
  const imaged = fresh && existsSync(migratedImage);
  const service = await createService(imaged ? { ...config, PGLITE_IMAGE: migratedImage } : config, undefined, clock);
  if (fresh && !imaged) await dumpImage(service, migratedImage);
  const recorded: Examples = {};
  if (recordTo) service.app.middleware.unshift(recordExamples(recorded));
  const server = await service.listen(0);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async <T>(method: string, path: string, o: CallOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    // Every REST answer against the published document: a mismatch fails the test that received it.
    await checkAnswer(url, method, path, res.status, res.headers.get('content-type'), parsed);
    return { status: res.status, body: parsed as T, headers: res.headers, sql: Number(res.headers.get('x-sql-statements') ?? NaN) };
  };
  return {
    url,
    service,
    config,
    call,
    graphql: (query, variables, token) => call('POST', '/graphql', { body: { query, variables }, token }),
    close: async () => {
      saveExamples(recorded);
      await service.close();
    },
  };
}

/**
 * An object that stands for one made in a `beforeAll`, read in the tests after it: every property
 * (and key, and prototype) is the made one's. Read before it is made, it says so.
 */
export function madeBeforeAll<T extends object>(what: string, make: () => Promise<T>): T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  });
  const it = (): T => {
    if (!made) throw new Error(`${what} is made in beforeAll: read it inside a test or a later hook`);
    return made;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(it(), key),
    has: (_, key) => Reflect.has(it(), key),
    ownKeys: () => Reflect.ownKeys(it()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(it(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(it()),
  });
}

/**
 * The file's service: started (startApp(env, clock)) before its tests and closed after them, in
 * place of a `let app` set by a `beforeAll` and closed by an `afterAll`. A `beforeAll` written
 * after it runs once it is up.
 */
export function useApp(env: Record<string, string> = {}, clock?: Clock): TestApp {
  let started: TestApp | undefined;
  const app = madeBeforeAll('the app', async () => (started = await startApp(env, clock)));
  afterAll(() => started?.close());
  return app;
}
