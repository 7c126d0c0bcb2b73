/**
 * GraphQL over HTTP, as graphql-http's audit reads it (the reference implementation's own server
 * audit, over real HTTP): no MUST fails and no SHOULD warns. Its MAY notices are GET requests
 * without a preflight header, which Apollo's CSRF prevention refuses on purpose (test/cors.test.ts).
 */
import { auditServer } from 'graphql-http';
import { useApp } from './helpers/app.js';

const app = useApp();

test('graphql-http audit: 0 MUST failures, 0 SHOULD warnings', async () => {
  const results = await auditServer({ url: `${app.url}/graphql` });
  expect(results.length).toBeGreaterThan(50);
  const notOk = results.filter((r) => r.status === 'error' || r.status === 'warn').map((r) => `${r.status} ${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`);
  expect(notOk).toEqual([]);
  const notices = results.filter((r) => r.status === 'notice');
  for (const n of notices) expect(n.name).toMatch(/GET/);
});

describe('request failures keep their codes; the status follows the media type asked for', () => {
  const send = (accept: string | undefined, query: string) =>
    app.call('POST', '/graphql', { body: { query }, headers: accept ? { accept } : {} });

  test.each([
    ['{ whoami { id ', 'GRAPHQL_PARSE_FAILED'],
    ['{ whoamii { id } }', 'GRAPHQL_VALIDATION_FAILED'],
  ])('%s → %s', async (query, code) => {
    const legacy = await send('application/json', query);
    expect({ status: legacy.status, code: legacy.body.errors[0].extensions.code, type: legacy.headers.get('content-type') }).toEqual({ status: 200, code, type: expect.stringMatching(/^application\/json/) });
    expect(legacy.body.data).toBeUndefined();
    const modern = await send('application/graphql-response+json', query);
    expect({ status: modern.status, code: modern.body.errors[0].extensions.code }).toEqual({ status: 400, code });
    for (const accept of [undefined, '*/*']) expect((await send(accept, query)).status).toBe(400);
  });

  test('variables that do not coerce name the variable; a persisted query the server does not have is PERSISTED_QUERY_NOT_FOUND', async () => {
    const coerce = await app.call('POST', '/graphql', { headers: { accept: 'application/json' }, body: { query: 'query($n: Int!) { counties(page: {int_max_results: $n}) { meta { int_total_results } } }', variables: { n: 'abc' } } });
    expect(coerce.status).toBe(200);
    expect(coerce.body.errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', detail: { fields: { n: [expect.any(String)] } } });
    const apq = await app.call('POST', '/graphql', { body: { extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } } });
    expect(apq.status).toBe(200);
    expect(apq.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  test('a domain error keeps its domain code and status', async () => {
    const res = await send('application/json', '{ whoami { id } }');
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
