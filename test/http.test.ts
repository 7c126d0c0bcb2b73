import 'reflect-metadata';
import { connect, type AddressInfo } from 'node:net';
import { AuthSession } from '../src/identity/session.entity.js';
import { User } from '../src/identity/user.entity.js';
import { createService } from '../src/server.js';
import { authRoutes } from '../rest/auth.routes.js';
import { routes } from '../rest/router.js';
import { useApp, type Reply, type TestApp } from './helpers/app.js';
import { cpf, email, makeUser, member, type Person } from './helpers/factories.js';

const app = useApp();

const sessionsOf = (person: Person) => app.service.orm.em.fork().count(AuthSession, { user_id: person.user.id });

/** The contract's error shape: exactly `error` and `detail`, nothing that leaks internals. */
function expectErrorBody(res: Reply, code: string): void {
  expect(res.body).toEqual({ error: code, detail: expect.anything() });
  expect(Object.keys(res.body).sort()).toEqual(['detail', 'error']);
  const text = JSON.stringify(res.body).toLowerCase();
  for (const leak of ['stack', 'select ', 'insert ', 'at file:']) expect(text).not.toContain(leak);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

describe('probes and headers', () => {
  test('GET /health and GET /ready answer 200', async () => {
    const health = await app.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', details: { trace_engine: { str_state: expect.stringMatching(/^(off|loading|current|stale|failed)$/) } } });
    const ready = await app.call('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  test('every response carries an X-Request-Id; a sane incoming one is echoed, an insane one replaced', async () => {
    const replies = await Promise.all([
      app.call('GET', '/health'),
      app.call('GET', '/nowhere'),
      app.call('POST', '/api/login', { raw: '{', headers: { 'content-type': 'application/json' } }),
      app.graphql('{ __typename }'),
    ]);
    const ids = replies.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[\w.-]{1,128}$/);
    expect(new Set(ids).size).toBe(ids.length);

    const echoed = await app.call('GET', '/health', { headers: { 'X-Request-Id': 'client-req.42_abc' } });
    expect(echoed.headers.get('x-request-id')).toBe('client-req.42_abc');
    const echoedOnError = await app.call('GET', '/nowhere', { headers: { 'X-Request-Id': 'client-req-404' } });
    expect(echoedOnError.headers.get('x-request-id')).toBe('client-req-404');

    for (const insane of ['has spaces in it', 'x'.repeat(129), 'semi;colon', '<script>']) {
      const res = await app.call('GET', '/health', { headers: { 'X-Request-Id': insane } });
      const id = res.headers.get('x-request-id');
      expect(id).not.toBe(insane);
      expect(id).toMatch(/^[\w.-]{1,128}$/);
    }
  });

  test('security headers are set, on success and on errors', async () => {
    for (const res of [await app.call('GET', '/health'), await app.call('GET', '/nowhere'), await app.graphql('{ __typename }')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toMatch(/^(DENY|SAMEORIGIN)$/);
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });
});

describe('errors over REST', () => {
  test('an unknown path is 404 NOT_FOUND', async () => {
    for (const [method, path] of [['GET', '/nowhere'], ['POST', '/api/nowhere'], ['GET', '/api/users/x/y/z']] as const) {
      const res = await app.call(method, path);
      expect(res.status).toBe(404);
      expectErrorBody(res, 'NOT_FOUND');
    }
  });

  test('a malformed JSON body is 400 BAD_REQUEST and signs nobody in', async () => {
    const person = await makeUser(app);
    const raw = `{"str_email": "${person.email}", "str_password": "${person.password}"`;
    const res = await app.call('POST', '/api/login', { raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'BAD_REQUEST');
    expect(await sessionsOf(person)).toBe(0);
  });

  test('a body that is not application/json is 400 BAD_REQUEST', async () => {
    const person = await makeUser(app);
    const raw = JSON.stringify({ str_email: person.email, str_password: person.password });
    const plain = await app.call('POST', '/api/login', { raw }); // fetch labels a string body text/plain
    expect(plain.status).toBe(400);
    expectErrorBody(plain, 'BAD_REQUEST');
    const form = await app.call('POST', '/api/login', { raw: `str_email=${person.email}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(400);
    expectErrorBody(form, 'BAD_REQUEST');
    expect(await sessionsOf(person)).toBe(0);
  });

  test('a JSON array as the body is 422', async () => {
    const person = await makeUser(app);
    const res = await app.call('POST', '/api/login', { body: [{ str_email: person.email, str_password: person.password }] });
    expect(res.status).toBe(422);
    expectErrorBody(res, 'VALIDATION_FAILED');
    expect(res.body.detail.fields).toEqual({ body: [expect.any(String)] });
    expect(await sessionsOf(person)).toBe(0);
  });

  test('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE and writes nothing', async () => {
    const person = await makeUser(app);
    // The right credentials plus an unknown 1.2 MiB field: under the limit this would sign in (unknown fields are ignored).
    const res = await app.call('POST', '/api/login', { body: { str_email: person.email, str_password: person.password, padding: 'x'.repeat(1.2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expectErrorBody(res, 'PAYLOAD_TOO_LARGE');
    expect(await sessionsOf(person)).toBe(0);
    // Control: the same login under the limit works and writes its session.
    const ok = await app.call('POST', '/api/login', { body: { str_email: person.email, str_password: person.password, padding: 'x'.repeat(1024) } });
    expect(ok.status).toBe(200);
    expect(await sessionsOf(person)).toBe(1);
  });

  test('a large create body over the limit writes no user', async () => {
    const owner = await member(app);
    const mail = email('big');
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { str_name: 'Big', str_email: mail, str_document: cpf(), str_phone: '9'.repeat(1.2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expectErrorBody(res, 'PAYLOAD_TOO_LARGE');
    expect(await app.service.orm.em.fork().count(User, { str_email: mail })).toBe(0);
  });

  test("what Node's HTTP parser refuses (a URL past 16 KiB, a malformed request) is 400 BAD_REQUEST in the same shape", async () => {
    const owner = await member(app);
    for (const path of [`/api/users/${'x'.repeat(900_000)}`, `/api/users?str_name=${'x'.repeat(20_000)}`]) {
      const res = await app.call('GET', path, { token: owner.access });
      expect(res.status).toBe(400);
      expectErrorBody(res, 'BAD_REQUEST');
      expect(res.body.detail).toMatch(/16 KiB/);
      expect(res.headers.get('x-request-id')).toMatch(/^[\w.-]{1,128}$/);
    }
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(app.url).port), '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'BAD_REQUEST', detail: 'malformed HTTP request' });
    // The server still answers.
    expect((await app.call('GET', '/api/whoami', { token: owner.access })).status).toBe(200);
  });

  test('auth and validation errors keep the same shape', async () => {
    const replies: [Reply, string][] = [
      [await app.call('GET', '/api/whoami'), 'UNAUTHENTICATED'],
      [await app.call('GET', '/api/whoami', { token: 'not.a.jwt' }), 'UNAUTHENTICATED'],
      [await app.call('POST', '/api/login', { body: { str_email: email(), str_password: 'wrong password' } }), 'INVALID_CREDENTIALS'],
      [await app.call('GET', '/api/users/not-a-uuid', { token: (await member(app)).access }), 'BAD_REQUEST'],
    ];
    expect(replies.map(([r]) => r.status)).toEqual([401, 401, 401, 400]);
    for (const [res, code] of replies) expectErrorBody(res, code);
  });
});

describe('GraphQL', () => {
  test('POST /graphql with application/json runs the query', async () => {
    const owner = await member(app);
    const res = await app.graphql('query Me { whoami { id str_email } }', {}, owner.access);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { whoami: { id: owner.user.id, str_email: owner.email } } });
  });

  test('CSRF prevention refuses a simple GET or text/plain POST without the preflight header', async () => {
    const query = encodeURIComponent('{ __typename }');
    const get = await app.call('GET', `/graphql?query=${query}`);
    expect(get.status).not.toBe(200);
    expect(get.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(get.body)).not.toContain('"__typename":"Mutation"');
    expect(JSON.stringify(get.body)).not.toContain('"data"');

    const plain = await app.call('POST', '/graphql', { raw: JSON.stringify({ query: '{ __typename }' }), headers: { 'content-type': 'text/plain' } });
    expect(plain.status).not.toBe(200);
    expect(plain.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(plain.body)).not.toContain('"data"');

    // Control: the same GET with the preflight header is answered.
    const preflighted = await app.call('GET', `/graphql?query=${query}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(preflighted.status).toBe(200);
    expect(preflighted.body).toEqual({ data: { __typename: 'Query' } });
  });

  test('GraphQL errors carry extensions.code and extensions.detail', async () => {
    const res = await app.graphql('{ whoami { id } }');
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', detail: expect.anything() });
    expect(JSON.stringify(res.body).toLowerCase()).not.toContain('stack');
  });

  test('a missing required input field is VALIDATION_FAILED naming it, and writes nothing', async () => {
    const owner = await member(app);
    const document = cpf();
    const res = await app.graphql('mutation Create($input: UserCreateInput!) { createUser(input: $input) { str_status } }', { input: { str_name: 'No Mail', str_document: document } }, owner.access);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.errors[0].extensions.detail.fields)).toEqual(['str_email']);
    expect(res.body.errors[0].extensions.detail.fields.str_email).toEqual([expect.any(String)]);
    expect(await app.service.orm.em.fork().count(User, { str_document: document })).toBe(0);
  });

  test('a wrongly typed input field is VALIDATION_FAILED naming it', async () => {
    const owner = await member(app);
    const res = await app.graphql('mutation Create($input: UserCreateInput!) { createUser(input: $input) { str_status } }', { input: { str_name: 'Typed', str_email: email(), str_document: cpf(), bl_admin: 'yes' } }, owner.access);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.errors[0].extensions.detail.fields)).toEqual(['bl_admin']);
  });
});

describe('OpenAPI', () => {
  test('GET /api/openapi.json is an OpenAPI 3.1 document listing every route with its statuses', async () => {
    const res = await app.call('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toEqual({ title: expect.any(String), version: expect.any(String), description: expect.any(String), license: { name: expect.any(String), identifier: expect.any(String) } });
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const where = `${route.method} ${path}`;
      const operation = doc.paths?.[path]?.[route.method.toLowerCase()];
      expect({ where, listed: Boolean(operation) }).toEqual({ where, listed: true });
      expect({ where, success: Object.keys(operation.responses).includes(String(route.status)) }).toEqual({ where, success: true });
      for (const param of path.match(/\{(\w+)\}/g) ?? []) {
        const name = param.slice(1, -1);
        expect({ where, param: operation.parameters.some((p: { name: string; in: string }) => p.name === name && p.in === 'path') }).toEqual({ where, param: true });
      }
      if (route.auth) expect({ where, unauthenticated: '401' in operation.responses }).toEqual({ where, unauthenticated: true });
    }
    for (const route of authRoutes) {
      const where = `${route.method} ${route.path}`;
      const responses = Object.keys(doc.paths[route.path][route.method.toLowerCase()].responses);
      expect({ where, responses: responses.filter((s) => ['400', '401', '403', '404', '422', '500'].includes(s)).sort() }).toEqual({ where, responses: ['400', '401', '403', '404', '422', '500'] });
    }
  });
});

describe('graceful shutdown', () => {
  test('close() lets an in-flight login finish and answer before the server goes away', async () => {
    // The suite's configuration, with a shutdown timeout long enough never to cut the request off.
    const config = { ...app.config, SHUTDOWN_TIMEOUT_MS: 60_000 };
    const service = await createService(config);
    const server = await service.listen(0);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const person = await makeUser({ service } as TestApp);

    const arrived = new Promise<void>((resolve) => server.once('request', () => resolve()));
    const inFlight = fetch(`${url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ str_email: person.email, str_password: person.password }),
    });
    await arrived; // the request reached the server; argon2 verification is still to come
    const closed = service.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    // Answered while shutting down: the keep-alive connection is closed too, so close() does not wait on an idle client.
    expect(res.headers.get('connection')).toBe('close');
    const body = (await res.json()) as { data: { user: { id: string } } };
    expect(body.data.user.id).toBe(person.user.id);
    await closed;
    // Closed: new connections are refused.
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});

test('an idle keep-alive connection is still open after 6 s: the client (or a proxy) closes it first, never the server as a request arrives', async () => {
  const { hostname, port } = new URL(app.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const answers = () => received.match(/HTTP\/1\.1 200 OK\r\n/g)?.length ?? 0;
  const until = async (n: number) => {
    for (let i = 0; i < 100 && answers() < n; i++) await new Promise((r) => setTimeout(r, 50));
  };
  const ask = () => socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  ask();
  await until(1);
  // Node's own default would have closed it after 5 s.
  await new Promise((r) => setTimeout(r, 6000));
  ask();
  await until(2);
  expect(answers()).toBe(2);
  socket.destroy();
}, 20_000);
