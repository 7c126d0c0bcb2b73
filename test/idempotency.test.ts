import { randomUUID } from 'node:crypto';
import { ALREADY_REGISTERED } from '../src/identity/organization.service.js';
import { useApp } from './helpers/app.js';
import { cnpj, cpf, email, member } from './helpers/factories.js';

const app = useApp();

const key = () => `key-${randomUUID()}`;
const orgBody = () => ({ str_name: 'Fazenda Boa Vista', str_document: cnpj() });
const CONFLICT = { error: 'CONFLICT', detail: { fields: { 'Idempotency-Key': ['was used with another request'] } } };

async function orgsWithDocument(document: string): Promise<number> {
  const [{ n }] = await app.service.orm.em.fork().execute('select count(*)::int as n from organization where str_document = ?', [document]);
  return n;
}

async function usersWithEmail(address: string): Promise<number> {
  const [{ n }] = await app.service.orm.em.fork().execute('select count(*)::int as n from "user" where str_email = ?', [address]);
  return n;
}

test('a repeat with the same key and body replays the stored 201 and creates one row only', async () => {
  const owner = await member(app);
  const k = key();
  const body = orgBody();
  const first = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(first.status).toBe(201);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(first.body.data.str_document).toBe(body.str_document);

  // Key order does not matter: the body is compared in canonical form.
  const reordered = { str_document: body.str_document, str_name: body.str_name };
  const again = await app.call('POST', '/api/organizations', { token: owner.access, body: reordered, headers: { 'Idempotency-Key': k } });
  expect(again.status).toBe(201);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(await orgsWithDocument(body.str_document)).toBe(1);

  // Statements: a keyed first run costs two more than an unkeyed one on PGlite (claim, store), four
  // on PostgreSQL (the claim's own transaction: begin, claim, store, commit); a replay runs only the
  // token check, the claim (with its begin and rollback on PostgreSQL) and the read.
  const plain = await app.call('POST', '/api/organizations', { token: owner.access, body: orgBody() });
  expect(plain.status).toBe(201);
  const onPostgres = !!process.env.DATABASE_URL;
  expect(first.sql).toBe(plain.sql + (onPostgres ? 4 : 2));
  expect(again.sql).toBe(onPostgres ? 5 : 3);
});

test('the same key with another body is a 422 CONFLICT naming the header, and writes nothing', async () => {
  const owner = await member(app);
  const k = key();
  const first = await app.call('POST', '/api/organizations', { token: owner.access, body: orgBody(), headers: { 'Idempotency-Key': k } });
  expect(first.status).toBe(201);
  const other = orgBody();
  const res = await app.call('POST', '/api/organizations', { token: owner.access, body: other, headers: { 'Idempotency-Key': k } });
  expect(res.status).toBe(422);
  expect(res.body).toEqual(CONFLICT);
  expect(res.headers.get('idempotent-replayed')).toBeNull();
  expect(await orgsWithDocument(other.str_document)).toBe(0);
});

test('the same key on another path is a 422 CONFLICT, and writes nothing', async () => {
  const owner = await member(app);
  const k = key();
  const first = await app.call('POST', '/api/organizations', { token: owner.access, body: orgBody(), headers: { 'Idempotency-Key': k } });
  expect(first.status).toBe(201);
  const user = { str_name: 'Peão', str_email: email('idem'), str_document: cpf() };
  const res = await app.call('POST', '/api/users', { token: owner.access, body: user, headers: { 'Idempotency-Key': k } });
  expect(res.status).toBe(422);
  expect(res.body).toEqual(CONFLICT);
  expect(await usersWithEmail(user.str_email)).toBe(0);
});

test('two concurrent requests with one key: exactly one runs, one row', async () => {
  const owner = await member(app);
  const k = key();
  const body = orgBody();
  const replies = await Promise.all([1, 2].map(() => app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } })));
  const fresh = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
  expect(fresh).toHaveLength(1);
  const other = replies.find((r) => r !== fresh[0])!;
  if (other.status === 201) {
    expect(other.headers.get('idempotent-replayed')).toBe('true');
    expect(other.body).toEqual(fresh[0].body);
  } else {
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['Idempotency-Key']);
    expect(other.body.detail.fields['Idempotency-Key'][0]).toMatch(/in progress/);
  }
  expect(await orgsWithDocument(body.str_document)).toBe(1);
});

test('a 4xx answer is stored and replayed too', async () => {
  const owner = await member(app);
  const k = key();
  const body = { str_name: 'Sem documento' };
  const first = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(first.status).toBe(422);
  expect(first.body.error).toBe('VALIDATION_FAILED');
  expect(Object.keys(first.body.detail.fields)).toEqual(['str_document']);
  const again = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(again.status).toBe(422);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
});

test("a key belongs to its caller: another user's same key runs fresh", async () => {
  const a = await member(app);
  const b = await member(app);
  const k = key();
  const bodyA = orgBody();
  const resA = await app.call('POST', '/api/organizations', { token: a.access, body: bodyA, headers: { 'Idempotency-Key': k } });
  expect(resA.status).toBe(201);
  const bodyB = orgBody();
  const resB = await app.call('POST', '/api/organizations', { token: b.access, body: bodyB, headers: { 'Idempotency-Key': k } });
  expect(resB.status).toBe(201);
  expect(resB.headers.get('idempotent-replayed')).toBeNull();
  expect(resB.body.data.id).not.toBe(resA.body.data.id);
  expect(await orgsWithDocument(bodyB.str_document)).toBe(1);
  // And B's repeat of A's exact body is not A's replay either: it runs, and finds the document taken.
  const copy = await app.call('POST', '/api/organizations', { token: b.access, body: bodyA, headers: { 'Idempotency-Key': key() } });
  expect(copy.status).toBe(422);
  expect(copy.body).toEqual({ error: 'CONFLICT', detail: { fields: { str_document: [ALREADY_REGISTERED] } } });
});

test.each([
  ['too long', 'k'.repeat(256)],
  ['a control character', 'abc\tdef'],
  ['empty', ''],
])('an invalid key (%s) is a 400 naming the header, and writes nothing', async (_label, value) => {
  const owner = await member(app);
  const body = orgBody();
  const res = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': value } });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('BAD_REQUEST');
  expect(res.body.detail).toMatch(/Idempotency-Key/);
  expect(await orgsWithDocument(body.str_document)).toBe(0);
});

test('a key of 255 printable characters is accepted', async () => {
  const owner = await member(app);
  const body = orgBody();
  const res = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': `${randomUUID()} ~!`.padEnd(255, 'x') } });
  expect(res.status).toBe(201);
});

test('a key older than 24 hours is ignored and overwritten', async () => {
  const owner = await member(app);
  const k = key();
  const first = await app.call('POST', '/api/organizations', { token: owner.access, body: orgBody(), headers: { 'Idempotency-Key': k } });
  expect(first.status).toBe(201);
  await app.service.orm.em.fork().execute(`update idempotency_key set ts_created_at = now() - interval '25 hours' where str_caller = ? and str_key = ?`, [`user:${owner.user.id}`, k]);
  const body = orgBody();
  const res = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(res.status).toBe(201);
  expect(res.headers.get('idempotent-replayed')).toBeNull();
  expect(res.body.data.id).not.toBe(first.body.data.id);
  expect(await orgsWithDocument(body.str_document)).toBe(1);
  // The key now holds the new request.
  const again = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(res.body);
});

test('an unauthenticated POST is keyed by the client address', async () => {
  const owner = await member(app);
  const k = key();
  const body = { str_email: owner.email };
  const first = await app.call('POST', '/api/request-recovery-password', { body, headers: { 'Idempotency-Key': k, 'X-Forwarded-For': '203.0.113.7' } });
  expect(first.status).toBe(204);
  const again = await app.call('POST', '/api/request-recovery-password', { body, headers: { 'Idempotency-Key': k, 'X-Forwarded-For': '203.0.113.7' } });
  expect(again.status).toBe(204);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  const elsewhere = await app.call('POST', '/api/request-recovery-password', { body, headers: { 'Idempotency-Key': k, 'X-Forwarded-For': '203.0.113.8' } });
  expect(elsewhere.status).toBe(204);
  expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
});

test('answers carrying tokens are never stored: a keyed login runs again and leaves no row', async () => {
  const owner = await member(app);
  const k = key();
  const body = { str_email: owner.email, str_password: owner.password };
  const first = await app.call('POST', '/api/login', { body, headers: { 'Idempotency-Key': k, 'X-Forwarded-For': '203.0.113.9' } });
  expect(first.status).toBe(200);
  const again = await app.call('POST', '/api/login', { body, headers: { 'Idempotency-Key': k, 'X-Forwarded-For': '203.0.113.9' } });
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBeNull();
  expect(again.body.data.str_refresh_token).not.toBe(first.body.data.str_refresh_token);
  const stored = await app.service.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from idempotency_key where str_key = ?`, [k]);
  expect(stored[0]!.n).toBe(0);
});

test('a claim whose request died (no answer within its lease) is released to the next retry', async () => {
  const owner = await member(app);
  const k = key();
  const body = orgBody();
  const em = app.service.orm.em.fork();
  // What a process killed mid-request leaves: a claim without a response, older than the lease.
  await em.execute(`insert into idempotency_key (str_caller, str_key, str_method, str_path, str_body_hash, ts_created_at) values (?, ?, 'POST', '/api/organizations', 'x', now() - interval '3 minutes')`, [
    `user:${owner.user.id}`,
    k,
  ]);
  const retry = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(retry.status).toBe(201);
  const replay = await app.call('POST', '/api/organizations', { token: owner.access, body, headers: { 'Idempotency-Key': k } });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(retry.body);
});

test('a POST without the header is unaffected: a repeat runs again', async () => {
  const owner = await member(app);
  const body = orgBody();
  const first = await app.call('POST', '/api/organizations', { token: owner.access, body });
  expect(first.status).toBe(201);
  const again = await app.call('POST', '/api/organizations', { token: owner.access, body });
  expect(again.status).toBe(422);
  expect(again.body).toEqual({ error: 'CONFLICT', detail: { fields: { str_document: [ALREADY_REGISTERED] } } });
  expect(again.headers.get('idempotent-replayed')).toBeNull();
  expect(await orgsWithDocument(body.str_document)).toBe(1);
});

test('a create retried with its client id and the same body answers what the first create answered, not the record as it is now', async () => {
  const owner = await member(app);
  const id = randomUUID();
  const body = { id: id.toUpperCase(), str_name: 'Fazenda Primeira', str_type: 'FARM' };
  const first = await app.call('POST', '/api/establishments', { token: owner.access, body });
  expect(first.status).toBe(201);
  const renamed = await app.call('PATCH', `/api/establishments/${id}`, { token: owner.access, body: { str_name: 'Fazenda Renomeada' } });
  expect(renamed.status).toBe(200);
  const replay = await app.call('POST', '/api/establishments', { token: owner.access, body });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(first.body);
  // Another body under the same id is the service's CONFLICT, as before.
  const other = await app.call('POST', '/api/establishments', { token: owner.access, body: { ...body, str_name: 'Outra' } });
  expect(other.status).toBe(422);
  expect(other.body).toMatchObject({ error: 'CONFLICT', detail: { fields: { id: [expect.any(String)] } } });
});
