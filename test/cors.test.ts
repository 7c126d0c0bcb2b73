/** CORS from the CORS_ORIGINS allow-list, over real HTTP, as a browser sends it. */
import { ConfigError, loadConfig } from '../src/config.js';
import { PRODUCTION_ENV, useApp, type TestApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { rawRequest } from './helpers/raw-http.js';

const FRONTEND = 'http://localhost:5173';
const OTHER = 'https://evil.example';

const app = useApp({ CORS_ORIGINS: `${FRONTEND}, https://app.example.org` });
const closed = useApp();
const open = useApp({ CORS_ORIGINS: '*' });
const development = useApp({ NODE_ENV: 'development' });
const production = useApp(PRODUCTION_ENV);

const preflight = (a: TestApp, path: string, method: string, origin: string, headers = 'authorization,content-type') =>
  rawRequest(a.url + path, 'OPTIONS', { origin, 'access-control-request-method': method, 'access-control-request-headers': headers });

describe('CORS', () => {
  test('a preflight from an allowed origin is answered on /graphql: the origin, methods, headers, no credentials', async () => {
    const res = await preflight(app, '/graphql', 'POST', FRONTEND, 'content-type,authorization,apollo-require-preflight');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(FRONTEND);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    const allowHeaders = String(res.headers['access-control-allow-headers']).toLowerCase().split(',');
    for (const h of ['authorization', 'content-type', 'apollo-require-preflight', 'idempotency-key']) expect(allowHeaders).toContain(h);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(String(res.headers.vary)).toMatch(/origin/i);
  });

  test('every REST path and method of the OpenAPI document answers its preflight', async () => {
    const doc = (await app.call('GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      for (const method of Object.keys(operations)) {
        const res = await preflight(app, concrete, method.toUpperCase(), 'https://app.example.org');
        expect({ path, method, status: res.status, origin: res.headers['access-control-allow-origin'] }).toEqual({ path, method, status: 204, origin: 'https://app.example.org' });
        expect(String(res.headers['access-control-allow-methods'])).toContain(method.toUpperCase());
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThan(50);
    expect(checked).toContain('post /api/login');
  });

  test('a preflight from an origin not in the list is a 403 in the contract shape, without CORS headers', async () => {
    for (const [a, origin] of [[app, OTHER], [app, 'http://localhost:5174'], [closed, FRONTEND]] as const) {
      const res = await preflight(a, '/api/login', 'POST', origin);
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ error: 'FORBIDDEN', detail: expect.stringContaining(origin) });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
    }
  });

  test('answers to an allowed origin carry it, errors included, and expose the headers a frontend reads', async () => {
    const owner = await member(app);
    const ok = await rawRequest(`${app.url}/api/whoami`, 'GET', { origin: FRONTEND, authorization: `Bearer ${owner.access}` });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(FRONTEND);
    expect(String(ok.headers['access-control-expose-headers']).toLowerCase()).toContain('x-request-id');
    const denied = await rawRequest(`${app.url}/api/whoami`, 'GET', { origin: FRONTEND });
    expect(denied.status).toBe(401);
    expect(denied.json()).toEqual({ error: 'UNAUTHENTICATED', detail: expect.anything() });
    expect(denied.headers['access-control-allow-origin']).toBe(FRONTEND);
    const gql = await rawRequest(`${app.url}/graphql`, 'POST', { origin: FRONTEND, 'content-type': 'application/json', authorization: `Bearer ${owner.access}` }, JSON.stringify({ query: '{ whoami { id } }' }));
    expect(gql.status).toBe(200);
    expect(gql.json().data.whoami.id).toBe(owner.user.id);
    expect(gql.headers['access-control-allow-origin']).toBe(FRONTEND);
  });

  test('answers to any other origin carry no CORS header; "*" allows every origin, still without credentials', async () => {
    const other = await rawRequest(`${app.url}/health`, 'GET', { origin: OTHER });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const star = await preflight(open, '/api/login', 'POST', OTHER);
    expect(star.status).toBe(204);
    expect(star.headers['access-control-allow-origin']).toBe('*');
    expect(star.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test("Apollo's CSRF prevention holds for requests a browser sends without a preflight", async () => {
    const simpleGet = await rawRequest(`${app.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, 'GET', { origin: FRONTEND, accept: 'application/json' });
    expect(simpleGet.status).toBe(400);
    expect(simpleGet.text).toMatch(/CSRF/i);
    const withHeader = await rawRequest(`${app.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, 'GET', { origin: FRONTEND, accept: 'application/json', 'apollo-require-preflight': 'true' });
    expect(withHeader.status).toBe(200);
    expect(withHeader.json()).toEqual({ data: { __typename: 'Query' } });
    const formPost = await rawRequest(`${app.url}/graphql`, 'POST', { origin: OTHER, 'content-type': 'text/plain' }, '{"query":"mutation { logout }"}');
    expect(formPost.status).toBe(400);
  });
});

describe('development without CORS_ORIGINS: a frontend on the loopback, any port, is let in; production stays closed', () => {
  const LOOPBACK = ['http://localhost:3000', 'http://localhost:5173', 'http://127.0.0.1:8080', 'http://localhost'];

  test('development: a preflight from http://localhost:* or http://127.0.0.1:* is answered with that origin', async () => {
    for (const origin of LOOPBACK) {
      const res = await preflight(development, '/graphql', 'POST', origin, 'content-type,authorization,apollo-require-preflight');
      expect({ origin, status: res.status, allowed: res.headers['access-control-allow-origin'] }).toEqual({ origin, status: 204, allowed: origin });
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
    const owner = await member(development);
    const ok = await rawRequest(`${development.url}/api/whoami`, 'GET', { origin: 'http://localhost:3000', authorization: `Bearer ${owner.access}` });
    expect([ok.status, ok.headers['access-control-allow-origin']]).toEqual([200, 'http://localhost:3000']);
  });

  test('development: any other origin, https on the loopback, or a host that only starts like it, is still refused', async () => {
    for (const origin of [OTHER, 'https://localhost:3000', 'http://localhost.evil.example:3000', 'http://127.0.0.1.evil.example', 'http://192.168.0.10:3000']) {
      const res = await preflight(development, '/api/login', 'POST', origin);
      expect({ origin, status: res.status, allowed: res.headers['access-control-allow-origin'] }).toEqual({ origin, status: 403, allowed: undefined });
    }
  });

  test('production (and test) without CORS_ORIGINS refuse the loopback origins', async () => {
    for (const a of [production, closed]) {
      for (const origin of LOOPBACK) {
        const res = await preflight(a, '/api/login', 'POST', origin);
        expect({ origin, status: res.status, allowed: res.headers['access-control-allow-origin'] }).toEqual({ origin, status: 403, allowed: undefined });
      }
    }
  });

  test('development with CORS_ORIGINS set: the list alone', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).corsLoopback).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development', CORS_ORIGINS: 'https://app.example.org' }).corsLoopback).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SMTP_URL: PRODUCTION_ENV.SMTP_URL }).corsLoopback).toBe(false);
  });
});

describe('CORS_ORIGINS', () => {
  const refused = (value: string): string => {
    try {
      loadConfig({ CORS_ORIGINS: value });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error(`accepted ${value}`);
  };

  test('a list of origins is read; unset is none', () => {
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example , http://localhost:3000,https://a.example' }).CORS_ORIGINS).toEqual(['https://a.example', 'http://localhost:3000']);
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
  });

  test('anything that is not an origin stops the start naming CORS_ORIGINS and the value', () => {
    for (const bad of ['https://a.example/', 'https://a.example/app', 'ftp://a.example', 'a.example', '*,https://a.example', 'https://A.example']) {
      const message = refused(bad);
      expect(message).toMatch(/CORS_ORIGINS/);
    }
  });
});
