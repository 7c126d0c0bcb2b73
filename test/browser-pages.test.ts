/**
 * The pages a person opens in a browser, over real HTTP: the GraphQL IDE at GET /graphql and the
 * API documentation at GET /api/docs, served from the service's own assets (built from npm by
 * web/build.mjs during `npm install`), nothing from a CDN. test/browser.test.ts drives them in
 * headless Chromium where one exists.
 */
import { parse, validate, type OperationDefinitionNode } from 'graphql';
import { loadConfig } from '../src/config.js';
import { DEFAULT_QUERY } from '../src/http/browser-pages.js';
import { buildOpenApi } from '../rest/openapi.js';
import { routes } from '../rest/router.js';
import { PRODUCTION_ENV, startApp, useApp, type TestApp } from './helpers/app.js';
import { makeUser } from './helpers/factories.js';

const app = useApp();
const production = useApp(PRODUCTION_ENV);

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const CDNS = /cdn\.jsdelivr|unpkg\.com|cdnjs|embeddable-sandbox|apollo-server-landing-page|fonts\.googleapis|fonts\.gstatic|esm\.sh/;

/** Every script and stylesheet a page links, each fetched: all from this service. */
async function linkedAssets(a: TestApp, html: string): Promise<Map<string, Response>> {
  const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => /\.(js|css)$/.test(u));
  expect(urls.length).toBeGreaterThanOrEqual(2);
  const out = new Map<string, Response>();
  for (const u of urls) {
    expect(u).toMatch(/^\/[a-z]/); // same origin, absolute path
    out.set(u, await fetch(a.url + u));
  }
  return out;
}

describe('the GraphQL IDE at GET /graphql', () => {
  test('a browser gets GraphiQL from the service: its page, its scripts and styles, no CDN, a CSP of its own', async () => {
    const res = await app.call('GET', '/graphql', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = res.body as string;
    expect(html).toContain('<div id="graphiql">');
    expect(html).toContain('id="token"');
    expect(html).not.toMatch(CDNS);
    expect(html).not.toMatch(/(?:src|href)="https?:/);
    const assets = await linkedAssets(app, html);
    for (const [url, r] of assets) {
      expect({ url, status: r.status }).toEqual({ url, status: 200 });
      expect(r.headers.get('content-type')).toMatch(url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const text = await r.text();
      expect(text.length).toBeGreaterThan(10_000);
      if (url.endsWith('graphiql.js')) {
        expect(text).not.toMatch(CDNS);
        expect(text).toContain('explorer'); // the explorer plugin is in the bundle
      }
    }
    for (const worker of ['editor.worker.js', 'json.worker.js', 'graphql.worker.js']) expect((await fetch(`${app.url}/graphql/assets/${worker}`)).status).toBe(200);
    expect((await app.call('GET', '/graphql/assets/..%2Fversions.json')).status).toBe(404);
    expect((await app.call('GET', '/graphql/assets/nope.js')).body).toEqual({ error: 'NOT_FOUND', detail: expect.any(String) });
  });

  test("the default query is valid against the schema, and its operations run as the IDE's fetcher sends them", async () => {
    const document = parse(DEFAULT_QUERY);
    expect(validate(app.service.schema, document)).toEqual([]);
    const names = document.definitions.map((d) => (d as OperationDefinitionNode).name?.value);
    expect(names).toEqual(['Login', 'Me', 'CreateOrganization', 'ChooseOrganization', 'Establishments']);
    const person = await makeUser(app, { admin: true });
    const login = await app.call('POST', '/graphql', { body: { query: DEFAULT_QUERY.replace('admin@example.com', person.email).replace('change-me-please', person.password), operationName: 'Login' } });
    expect(login.status).toBe(200);
    const token = login.body.data.login.str_access_token as string;
    const me = await app.call('POST', '/graphql', { token, body: { query: DEFAULT_QUERY, operationName: 'Me' } });
    expect(me.body.data.whoami.str_email).toBe(person.email);
  });

  test('GRAPHQL_IDE follows introspection; asking for the IDE without introspection stops the start naming it', () => {
    expect(loadConfig({}).GRAPHQL_IDE).toBe(true);
    expect(loadConfig({ ...PRODUCTION_ENV, JWT_SECRET: 'x'.repeat(32) }).GRAPHQL_IDE).toBe(false);
    expect(loadConfig({ GRAPHQL_IDE: 'false' }).GRAPHQL_IDE).toBe(false);
    expect(() => loadConfig({ GRAPHQL_INTROSPECTION: 'false', GRAPHQL_IDE: 'true' })).toThrow(/GRAPHQL_IDE/);
  });

  test('clients that ask for JSON still reach GraphQL; production has no IDE', async () => {
    const json = await app.call('GET', '/graphql', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect(json.headers.get('content-type')).toMatch(/json/);
    const get = await app.call('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { ...HTML, 'apollo-require-preflight': 'true' } });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ data: { __typename: 'Query' } });
    const prod = await production.call('GET', '/graphql', { headers: HTML });
    expect(String(prod.body)).not.toContain('id="graphiql"');
    expect(prod.status).toBe(400);
    expect((await production.call('GET', '/graphql/assets/graphiql.js')).status).toBe(404);
  });
});

describe('the API documentation at GET /api/docs', () => {
  test('Swagger UI from the service over its OpenAPI document, no CDN', async () => {
    for (const a of [app, production]) {
      const res = await a.call('GET', '/api/docs', { headers: HTML });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = res.body as string;
      expect(html).toContain('/api/openapi.json');
      expect(html).not.toMatch(CDNS);
      const assets = await linkedAssets(a, html);
      for (const [url, r] of assets) expect({ url, status: r.status }).toEqual({ url, status: 200 });
      expect(await assets.get('/api/docs/assets/swagger-ui-bundle.js')!.text()).toContain('SwaggerUIBundle');
      expect(assets.get('/api/docs/assets/swagger-ui.css')!.headers.get('cache-control')).toBe('public, max-age=600');
    }
  });

  test('the OpenAPI document has servers, a license, a description, and a description for every operation', async () => {
    const doc = (await app.call('GET', '/api/openapi.json')).body;
    expect(doc.servers[0]).toEqual({ url: '/', description: expect.any(String) });
    // The default PUBLIC_URL is this machine: the relative server says the same to a reader anywhere.
    expect(app.config.PUBLIC_URL).toMatch(/localhost/);
    expect(doc.servers).toHaveLength(1);
    const published = buildOpenApi(routes, app.service.schema, { publicUrl: 'https://gta.agro.gov.br' });
    expect(published.servers).toContainEqual({ url: 'https://gta.agro.gov.br', description: 'PUBLIC_URL' });
    expect(doc.info.license).toEqual({ name: expect.any(String), identifier: expect.stringMatching(/^LicenseRef-/) });
    expect(doc.info.description).toContain('Authorization: Bearer');
    const missing: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { description?: string; summary?: string }>>)) {
      for (const [method, op] of Object.entries(ops)) {
        operations++;
        if (!op.description || op.description.length < 40 || !op.summary) missing.push(`${method} ${path}`);
      }
    }
    expect(operations).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  test('API_DOCS=false leaves the document and removes the page', async () => {
    const off = await startApp({ API_DOCS: 'false' });
    try {
      expect((await off.call('GET', '/api/docs', { headers: HTML })).status).toBe(404);
      expect((await off.call('GET', '/api/openapi.json')).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
