import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/config.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createService, type Service } from '../../src/server.js';
import type { Clock } from '../../src/shared/clock.js';
import { recordExamples, type Examples } from '../../rest/examples.js';

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

/** The real service on a free port (on `clock` when given: see test/helpers/clock.ts), on the suite's database (see global-setup.ts), over real HTTP. */
export async function startApp(env: Record<string, string> = {}, clock?: Clock): Promise<TestApp> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: ':memory:',
    DATABASE_URL: process.env.DATABASE_URL,
    EXPOSE_SQL_STATEMENTS: 'true',
    TRUST_PROXY: 'true',
    LOGIN_LIMIT_PER_ADDRESS: '100000',
    LOGIN_LIMIT_PER_LOGIN: '1000',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    ...env,
  });
  const service = await createService(config, undefined, clock);
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
