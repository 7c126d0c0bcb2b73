import { randomBytes } from 'node:crypto';
import { User } from '../src/identity/user.entity.js';
import jwt from 'jsonwebtoken';
import { hashToken } from '../src/identity/tokens.js';
import { requestScope, type RequestScope } from '../src/shared/request-scope.js';
import { startApp, useApp, type Reply, type TestApp } from './helpers/app.js';
import { cpf, email, lastMail, login, makeOrganization, makeUser, member, tokenIn, type Person } from './helpers/factories.js';

/** The documented User record (CONTRACT.md "Records that interface.md leaves open"): nothing more, never a hash. */
const USER_KEYS = [
  'bl_admin',
  'bl_verified',
  'county_id',
  'id',
  'organization_id',
  'organizations',
  'str_document',
  'str_email',
  'str_name',
  'str_phone',
  'str_type',
  'ts_created_at',
  'ts_terms_accepted_at',
  'ts_updated_at',
].sort();

const NEW_PASSWORD = 'a brand new passphrase';

const app = useApp();

const whoami = (token: string) => app.call('GET', '/api/whoami', { token });
const refresh = (token: string) => app.call('POST', '/api/refresh', { body: { refresh_token: token } });
const loginAs = (who: { email: string }, password: string) => app.call('POST', '/api/login', { body: { str_email: who.email, str_password: password } });

function expectTokenPair(body: Reply['body'], userId: string): void {
  expect(Object.keys(body.data).sort()).toEqual(['int_expires_in', 'str_access_token', 'str_refresh_token', 'str_token_type', 'user']);
  expect(body.data.str_token_type).toBe('Bearer');
  expect(body.data.int_expires_in).toBe(900);
  expect(typeof body.data.str_access_token).toBe('string');
  expect(body.data.str_access_token.split('.')).toHaveLength(3);
  expect(typeof body.data.str_refresh_token).toBe('string');
  expect(body.data.str_refresh_token.length).toBeGreaterThanOrEqual(32);
  expect(body.data.user.id).toBe(userId);
  expect(Object.keys(body.data.user).sort()).toEqual(USER_KEYS);
  expect(JSON.stringify(body)).not.toMatch(/password|argon2/i);
}

function expectError(res: Reply, status: number, code: string): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error: code });
}

function expectFields(res: Reply, code: string, fields: string[]): void {
  expectError(res, 422, code);
  expect(Object.keys(res.body.detail.fields).sort()).toEqual([...fields].sort());
}

async function passwordHashOf(userId: string): Promise<string> {
  const [row] = await app.service.orm.em.fork().execute<{ password_hash: string }[]>('select password_hash from "user" where id = ?', [userId]);
  return row!.password_hash;
}

describe('POST /api/login', () => {
  test('by e-mail: 200, a token pair and the user without its password hash', async () => {
    const person = await makeUser(app);
    const res = await loginAs(person, person.password);
    expect(res.status).toBe(200);
    expectTokenPair(res.body, person.user.id);
    expect(res.body.data.user).toMatchObject({ str_email: person.email, str_document: person.document, organization_id: null, organizations: [] });
    expect((await whoami(res.body.data.str_access_token)).status).toBe(200);
  });

  test('by CPF document, bare or punctuated', async () => {
    const person = await makeUser(app);
    const res = await app.call('POST', '/api/login', { body: { str_document: person.document, str_password: person.password } });
    expect(res.status).toBe(200);
    expectTokenPair(res.body, person.user.id);
    const d = person.document;
    const punctuated = `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;
    const again = await app.call('POST', '/api/login', { body: { str_document: punctuated, str_password: person.password } });
    expect(again.status).toBe(200);
    expect(again.body.data.user.id).toBe(person.user.id);
  });

  test('wrong password and unknown login: 401 INVALID_CREDENTIALS with identical bodies', async () => {
    const person = await makeUser(app);
    const wrong = await loginAs(person, 'not the password at all');
    const unknown = await app.call('POST', '/api/login', { body: { str_email: email('nobody'), str_password: person.password } });
    const unknownDocument = await app.call('POST', '/api/login', { body: { str_document: cpf(), str_password: person.password } });
    expectError(wrong, 401, 'INVALID_CREDENTIALS');
    expectError(unknown, 401, 'INVALID_CREDENTIALS');
    expectError(unknownDocument, 401, 'INVALID_CREDENTIALS');
    expect(unknown.body).toEqual(wrong.body);
    expect(unknownDocument.body).toEqual(wrong.body);
    expect(JSON.stringify(wrong.body)).not.toContain(person.email);
  });

  test('missing password: 422 naming str_password; missing login: 422 naming the login field', async () => {
    const person = await makeUser(app);
    expectFields(await app.call('POST', '/api/login', { body: { str_email: person.email } }), 'VALIDATION_FAILED', ['str_password']);
    expectFields(await app.call('POST', '/api/login', { body: { str_email: person.email, str_password: '' } }), 'VALIDATION_FAILED', ['str_password']);
    const noLogin = await app.call('POST', '/api/login', { body: { str_password: person.password } });
    expectFields(noLogin, 'VALIDATION_FAILED', ['str_email']);
  });

  test('registration not confirmed, right password: 403 FORBIDDEN and no session', async () => {
    const person = await makeUser(app, { confirmed: false });
    const res = await loginAs(person, person.password);
    expectError(res, 403, 'FORBIDDEN');
    expect(res.body.data).toBeUndefined();
    const [row] = await app.service.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from auth_session where user_id = ?', [person.user.id]);
    expect(row!.n).toBe(0);
  });

  test('unconfirmed user with a wrong password: 401, not 403 (no hint that the account exists)', async () => {
    const person = await makeUser(app, { confirmed: false });
    expectError(await loginAs(person, 'wrong wrong wrong'), 401, 'INVALID_CREDENTIALS');
  });
});

describe('GraphQL shares the core with REST', () => {
  const LOGIN = 'mutation($input: LoginInput) { login(input: $input) { str_access_token str_refresh_token str_token_type int_expires_in user { id str_email } } }';
  const REFRESH = 'mutation($input: RefreshInput) { refresh(input: $input) { str_access_token str_refresh_token int_expires_in user { id } } }';

  test('login, refresh and whoami over GraphQL; the tokens work on both doors', async () => {
    const person = await makeUser(app);
    const gLogin = await app.graphql(LOGIN, { input: { str_email: person.email, str_password: person.password } });
    expect(gLogin.status).toBe(200);
    expect(gLogin.body.errors).toBeUndefined();
    const pair = gLogin.body.data.login;
    expect(pair).toMatchObject({ str_token_type: 'Bearer', int_expires_in: 900, user: { id: person.user.id, str_email: person.email } });

    // A GraphQL-issued access token on REST.
    const rest = await whoami(pair.str_access_token);
    expect(rest.status).toBe(200);
    expect(rest.body.data.id).toBe(person.user.id);

    // A GraphQL-issued refresh token rotated over REST, then the REST-issued one over GraphQL.
    const restRefresh = await refresh(pair.str_refresh_token);
    expect(restRefresh.status).toBe(200);
    const gRefresh = await app.graphql(REFRESH, { input: { refresh_token: restRefresh.body.data.str_refresh_token } });
    expect(gRefresh.body.errors).toBeUndefined();
    expect(gRefresh.body.data.refresh.user.id).toBe(person.user.id);

    const gWhoami = await app.graphql('{ whoami { id str_email organization_id } }', {}, gRefresh.body.data.refresh.str_access_token);
    expect(gWhoami.body.data.whoami).toEqual({ id: person.user.id, str_email: person.email, organization_id: null });
  });

  test('the same error codes: INVALID_CREDENTIALS, UNAUTHENTICATED, VALIDATION_FAILED', async () => {
    const person = await makeUser(app);
    const wrong = await app.graphql(LOGIN, { input: { str_email: person.email, str_password: 'wrong password' } });
    expect(wrong.body.data).toBeNull();
    expect(wrong.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
    const rest = await loginAs(person, 'wrong password');
    expect(wrong.body.errors[0].extensions.detail).toEqual(rest.body.detail);

    const garbage = await app.graphql(REFRESH, { input: { refresh_token: 'garbage-garbage-garbage' } });
    expect(garbage.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');

    const missing = await app.graphql(REFRESH, { input: {} });
    expect(missing.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(missing.body.errors[0].extensions.detail.fields)).toEqual(['refresh_token']);

    const anonymous = await app.graphql('{ whoami { id } }');
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('POST /api/refresh', () => {
  test('rotates: a new pair whose tokens differ and work', async () => {
    const person = await makeUser(app);
    const first = await login(app, person);
    const res = await refresh(first.refresh);
    expect(res.status).toBe(200);
    expectTokenPair(res.body, person.user.id);
    expect(res.body.data.str_refresh_token).not.toBe(first.refresh);
    expect(res.body.data.str_access_token).not.toBe(first.access);
    expect((await whoami(res.body.data.str_access_token)).status).toBe(200);
    // The new refresh token rotates in turn.
    const next = await refresh(res.body.data.str_refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.data.str_refresh_token).not.toBe(res.body.data.str_refresh_token);
  });

  test('a retry inside the grace window returns exactly the same pair', async () => {
    const person = await makeUser(app);
    const first = await login(app, person);
    const a = await refresh(first.refresh);
    const b = await refresh(first.refresh);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.data.str_access_token).toBe(a.body.data.str_access_token);
    expect(b.body.data.str_refresh_token).toBe(a.body.data.str_refresh_token);
    expect(b.body).toEqual(a.body);
    // And the pair still works: the retry revoked nothing.
    expect((await whoami(a.body.data.str_access_token)).status).toBe(200);
    expect((await refresh(a.body.data.str_refresh_token)).status).toBe(200);
  });

  test('two refreshes of one token at the same moment both get the same pair (the second waits for the first)', async () => {
    const person = await makeUser(app);
    const first = await login(app, person);
    const replies = await Promise.all([refresh(first.refresh), refresh(first.refresh), refresh(first.refresh)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.data.str_refresh_token)).size).toBe(1);
    expect((await whoami(replies[0]!.body.data.str_access_token)).status).toBe(200);
  });

  test('reuse after the grace window revokes the whole family', async () => {
    const person = await makeUser(app);
    const first = await login(app, person);
    const rotated = await refresh(first.refresh);
    expect(rotated.status).toBe(200);
    const successor = rotated.body.data.str_refresh_token;
    const successorAccess = rotated.body.data.str_access_token;
    expect((await whoami(successorAccess)).status).toBe(200);

    // Simulate time: the old token was used a minute ago.
    const updated = await app.service.orm.em
      .fork()
      .execute('update refresh_token set ts_used_at = ? where token_hash = ?', [new Date(Date.now() - 60_000), hashToken(first.refresh)], 'run');
    expect((updated as unknown as { affectedRows: number }).affectedRows).toBe(1);

    expectError(await refresh(first.refresh), 401, 'UNAUTHENTICATED');
    expectError(await refresh(successor), 401, 'UNAUTHENTICATED');
    expectError(await whoami(successorAccess), 401, 'UNAUTHENTICATED');
    expectError(await whoami(first.access), 401, 'UNAUTHENTICATED');

    // Another session of the same user is not of that family.
    const other = await login(app, person);
    expect((await whoami(other.access)).status).toBe(200);
  });

  test('missing refresh_token: 422 naming it; garbage: 401', async () => {
    expectFields(await app.call('POST', '/api/refresh', { body: {} }), 'VALIDATION_FAILED', ['refresh_token']);
    expectFields(await app.call('POST', '/api/refresh', { body: { refresh_token: '' } }), 'VALIDATION_FAILED', ['refresh_token']);
    expectError(await refresh('garbage'), 401, 'UNAUTHENTICATED');
    expectError(await refresh('x'.repeat(43)), 401, 'UNAUTHENTICATED');
  });

  test('an access token is not a refresh token', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    expectError(await refresh(s.access), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /api/logout', () => {
  test('204, then the access token and the refresh token of that session are refused', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    const other = await login(app, person);
    const res = await app.call('POST', '/api/logout', { token: s.access });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectError(await whoami(s.access), 401, 'UNAUTHENTICATED');
    expectError(await refresh(s.refresh), 401, 'UNAUTHENTICATED');
    expectError(await app.call('POST', '/api/logout', { token: s.access }), 401, 'UNAUTHENTICATED');
    // Only that session: the user's other session goes on.
    expect((await whoami(other.access)).status).toBe(200);
    expect((await refresh(other.refresh)).status).toBe(200);
  });

  test('without a token: 401', async () => {
    expectError(await app.call('POST', '/api/logout'), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/whoami', () => {
  test('200 {data: User}', async () => {
    const owner = await member(app, 'OWNER');
    const res = await whoami(owner.access);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data).sort()).toEqual(USER_KEYS);
    expect(res.body.data).toMatchObject({
      id: owner.user.id,
      str_email: owner.email,
      str_document: owner.document,
      bl_admin: false,
      organization_id: owner.org.id,
      organizations: [{ id: owner.org.id, str_name: owner.org.str_name, str_role: 'OWNER' }],
    });
    expect(res.body.data.ts_created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  test('no token: 401 UNAUTHENTICATED', async () => {
    const res = await app.call('GET', '/api/whoami');
    expectError(res, 401, 'UNAUTHENTICATED');
  });
});

describe('PUT /api/self-update', () => {
  const selfUpdate = (token: string, body: unknown) => app.call('PUT', '/api/self-update', { token, body });

  test('changes name, phone and e-mail', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    const newEmail = email('renamed');
    const res = await selfUpdate(s.access, { str_name: 'Maria Renamed', str_phone: '+55 65 99999-0000', str_email: newEmail.toUpperCase() });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({ id: person.user.id, str_name: 'Maria Renamed', str_phone: '+55 65 99999-0000', str_email: newEmail });
    expect(Object.keys(res.body.data).sort()).toEqual(USER_KEYS);
    const me = await whoami(s.access);
    expect(me.body.data).toMatchObject({ str_name: 'Maria Renamed', str_phone: '+55 65 99999-0000', str_email: newEmail });
    expect((await loginAs({ email: newEmail }, person.password)).status).toBe(200);
    expectError(await loginAs(person, person.password), 401, 'INVALID_CREDENTIALS');
  });

  test('an e-mail taken by another user: 422 CONFLICT and nothing changes', async () => {
    const person = await makeUser(app);
    const other = await makeUser(app);
    const s = await login(app, person);
    const res = await selfUpdate(s.access, { str_name: 'Should Not Stick', str_email: other.email });
    expectFields(res, 'CONFLICT', ['str_email']);
    const me = await whoami(s.access);
    expect(me.body.data).toMatchObject({ str_name: 'Test User', str_email: person.email });
  });

  test('a malformed e-mail: 422 naming str_email', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    expectFields(await selfUpdate(s.access, { str_email: 'not-an-email' }), 'VALIDATION_FAILED', ['str_email']);
    expect((await whoami(s.access)).body.data.str_email).toBe(person.email);
  });

  test('no token: 401', async () => {
    expectError(await app.call('PUT', '/api/self-update', { body: { str_name: 'X' } }), 401, 'UNAUTHENTICATED');
  });

  test('password change needs the right str_current_password and 8..128 characters', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    const hash = await passwordHashOf(person.user.id);

    expectFields(await selfUpdate(s.access, { str_new_password: NEW_PASSWORD }), 'VALIDATION_FAILED', ['str_current_password']);
    expectFields(await selfUpdate(s.access, { str_current_password: 'not my password', str_new_password: NEW_PASSWORD }), 'VALIDATION_FAILED', ['str_current_password']);
    expectFields(await selfUpdate(s.access, { str_current_password: person.password, str_new_password: '1234567' }), 'VALIDATION_FAILED', ['str_new_password']);
    expectFields(await selfUpdate(s.access, { str_current_password: person.password, str_new_password: 'x'.repeat(129) }), 'VALIDATION_FAILED', ['str_new_password']);
    expectFields(await selfUpdate(s.access, { str_current_password: person.password }), 'VALIDATION_FAILED', ['str_new_password']);
    // A refused change also leaves the other fields alone.
    expectFields(await selfUpdate(s.access, { str_name: 'Not Stored', str_current_password: 'nope nope', str_new_password: NEW_PASSWORD }), 'VALIDATION_FAILED', ['str_current_password']);

    expect(await passwordHashOf(person.user.id)).toBe(hash);
    expect((await whoami(s.access)).body.data.str_name).toBe('Test User');
    expect((await loginAs(person, person.password)).status).toBe(200);
  });

  test('the edges 8 and 128 characters are accepted', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    const eight = '12345678';
    expect((await selfUpdate(s.access, { str_current_password: person.password, str_new_password: eight })).status).toBe(200);
    const long = 'y'.repeat(128);
    expect((await selfUpdate(s.access, { str_current_password: eight, str_new_password: long })).status).toBe(200);
    expect((await loginAs(person, long)).status).toBe(200);
  });

  test('a password change: old password fails, new works, other sessions revoked, this one kept', async () => {
    const person = await makeUser(app);
    const current = await login(app, person);
    const second = await login(app, person);
    expect((await whoami(second.access)).status).toBe(200);

    const res = await selfUpdate(current.access, { str_current_password: person.password, str_new_password: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(person.user.id);
    expect(JSON.stringify(res.body)).not.toMatch(/password|argon2/i);

    expectError(await loginAs(person, person.password), 401, 'INVALID_CREDENTIALS');
    expect((await loginAs(person, NEW_PASSWORD)).status).toBe(200);

    expectError(await whoami(second.access), 401, 'UNAUTHENTICATED');
    expectError(await refresh(second.refresh), 401, 'UNAUTHENTICATED');
    expect((await whoami(current.access)).status).toBe(200);
    expect((await refresh(current.refresh)).status).toBe(200);
  });
});

describe('POST /api/change-org and /api/reset-profile', () => {
  test('to an organization the user belongs to: a new pair with it active', async () => {
    const person = await makeUser(app);
    const org = await makeOrganization(app, [{ person, role: 'MANAGER' }]);
    const s = await login(app, person);
    expect((await whoami(s.access)).body.data.organization_id).toBeNull();

    const res = await app.call('POST', '/api/change-org', { token: s.access, body: { organization_id: org.id } });
    expect(res.status).toBe(200);
    expectTokenPair(res.body, person.user.id);
    expect(res.body.data.str_access_token).not.toBe(s.access);
    expect(res.body.data.str_refresh_token).not.toBe(s.refresh);
    expect(res.body.data.user.organization_id).toBe(org.id);
    expect((jwt.decode(res.body.data.str_access_token) as jwt.JwtPayload).org).toBe(org.id);

    const me = await whoami(res.body.data.str_access_token);
    expect(me.status).toBe(200);
    expect(me.body.data.organization_id).toBe(org.id);
    expect(me.body.data.organizations).toEqual([{ id: org.id, str_name: org.str_name, str_role: 'MANAGER' }]);

    // The organization survives a refresh of the new pair.
    const refreshed = await refresh(res.body.data.str_refresh_token);
    expect(refreshed.status).toBe(200);
    expect((await whoami(refreshed.body.data.str_access_token)).body.data.organization_id).toBe(org.id);
  });

  test('to an organization the user does not belong to: 404, nothing switched', async () => {
    const owner = await member(app, 'OWNER');
    const foreign = await makeOrganization(app);
    const res = await app.call('POST', '/api/change-org', { token: owner.access, body: { organization_id: foreign.id } });
    expectError(res, 404, 'NOT_FOUND');
    const me = await whoami(owner.access);
    expect(me.status).toBe(200);
    expect(me.body.data.organization_id).toBe(owner.org.id);
    // A uuid of no organization at all: the same answer.
    const none = await app.call('POST', '/api/change-org', { token: owner.access, body: { organization_id: '00000000-0000-4000-8000-000000000000' } });
    expectError(none, 404, 'NOT_FOUND');
  });

  test('missing organization_id: 422 naming it; no token: 401', async () => {
    const owner = await member(app, 'OWNER');
    expectFields(await app.call('POST', '/api/change-org', { token: owner.access, body: {} }), 'VALIDATION_FAILED', ['organization_id']);
    expectFields(await app.call('POST', '/api/change-org', { token: owner.access }), 'VALIDATION_FAILED', ['organization_id']);
    expectError(await app.call('POST', '/api/change-org', { body: { organization_id: owner.org.id } }), 401, 'UNAUTHENTICATED');
    expect((await whoami(owner.access)).body.data.organization_id).toBe(owner.org.id);
  });

  test('reset-profile: a new pair with no active organization', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/reset-profile', { token: owner.access });
    expect(res.status).toBe(200);
    expectTokenPair(res.body, owner.user.id);
    expect(res.body.data.user.organization_id).toBeNull();
    expect((jwt.decode(res.body.data.str_access_token) as jwt.JwtPayload).org).toBeUndefined();
    const me = await whoami(res.body.data.str_access_token);
    expect(me.body.data.organization_id).toBeNull();
    // Still a member: only the active profile changed.
    expect(me.body.data.organizations).toEqual([{ id: owner.org.id, str_name: owner.org.str_name, str_role: 'OWNER' }]);
    expectError(await app.call('POST', '/api/reset-profile'), 401, 'UNAUTHENTICATED');
  });
});

describe('password recovery', () => {
  const requestRecovery = (address: string) => app.call('POST', '/api/request-recovery-password', { body: { str_email: address } });
  const recover = (body: unknown) => app.call('POST', '/api/recover-password', { body });

  async function recoveryToken(person: Person): Promise<string> {
    const res = await requestRecovery(person.email);
    expect(res.status).toBe(204);
    const token = tokenIn(await lastMail(app, person.email));
    expect(token).not.toBe('');
    return token;
  }

  test('204 for a known and an unknown e-mail; only the known one gets mail', async () => {
    const person = await makeUser(app);
    const unknown = email('ghost');
    const known = await requestRecovery(person.email);
    const ghost = await requestRecovery(unknown);
    expect(known.status).toBe(204);
    expect(ghost.status).toBe(204);
    expect(known.body).toBeUndefined();
    expect(ghost.body).toBeUndefined();
    const mail = await lastMail(app, person.email);
    expect(mail).not.toBeNull();
    expect(tokenIn(mail)).not.toBe('');
    expect(await lastMail(app, unknown)).toBeNull();
  });

  test('a known and an unknown e-mail run the same SQL statements, text for text (no enumeration by timing)', async () => {
    const person = await makeUser(app);
    const unknown = email('ghost');
    // Over HTTP: as many statements for either (X-SQL-Statements).
    const known = await requestRecovery(person.email.toUpperCase());
    const ghost = await requestRecovery(unknown);
    expect([known.status, ghost.status]).toEqual([204, 204]);
    expect(known.sql).toBeGreaterThan(0);
    expect(ghost.sql).toBe(known.sql);
    // In the core: the very same statement texts in the same order (parameters aside).
    const ran = async (address: string): Promise<string[]> => {
      const scope: RequestScope = { requestId: 't', statements: 0, texts: [] };
      await requestScope.run(scope, () => app.service.core.auth.requestRecovery(app.service.orm.em.fork(), address));
      return scope.texts!;
    };
    const knownTexts = await ran(person.email);
    expect(knownTexts.length).toBeGreaterThan(0);
    expect(await ran(email('ghost'))).toEqual(knownTexts);
    // And only the known address got its mail (and a usable code).
    expect(tokenIn(await lastMail(app, person.email))).not.toBe('');
    expect(await lastMail(app, unknown)).toBeNull();
  });

  test('missing str_email: 422 naming it', async () => {
    expectFields(await app.call('POST', '/api/request-recovery-password', { body: {} }), 'VALIDATION_FAILED', ['str_email']);
  });

  test('the mailed token sets a new password once', async () => {
    const person = await makeUser(app);
    const token = await recoveryToken(person);
    const res = await recover({ str_token: token, str_password: NEW_PASSWORD });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await loginAs(person, NEW_PASSWORD)).status).toBe(200);
    expectError(await loginAs(person, person.password), 401, 'INVALID_CREDENTIALS');

    const reused = await recover({ str_token: token, str_password: 'yet another passphrase' });
    expectFields(reused, 'VALIDATION_FAILED', ['str_token']);
    expect((await loginAs(person, NEW_PASSWORD)).status).toBe(200);
    expectError(await loginAs(person, 'yet another passphrase'), 401, 'INVALID_CREDENTIALS');
  });

  test('a made-up token: 422 naming str_token', async () => {
    const res = await recover({ str_token: 'made-up-token-made-up-token-made-up-token', str_password: NEW_PASSWORD });
    expectFields(res, 'VALIDATION_FAILED', ['str_token']);
    expectFields(await recover({ str_password: NEW_PASSWORD }), 'VALIDATION_FAILED', ['str_token']);
  });

  test('a too-short or missing password: 422 naming str_password, and the token is not spent', async () => {
    const person = await makeUser(app);
    const token = await recoveryToken(person);
    expectFields(await recover({ str_token: token, str_password: 'short' }), 'VALIDATION_FAILED', ['str_password']);
    expectFields(await recover({ str_token: token }), 'VALIDATION_FAILED', ['str_password']);
    expect((await loginAs(person, person.password)).status).toBe(200);
    expect((await recover({ str_token: token, str_password: NEW_PASSWORD })).status).toBe(204);
    expect((await loginAs(person, NEW_PASSWORD)).status).toBe(200);
  });

  test('a recovery token does not confirm a registration', async () => {
    const person = await makeUser(app);
    const token = await recoveryToken(person);
    expectFields(await app.call('POST', '/api/confirm-registration', { body: { str_token: token, str_password: NEW_PASSWORD } }), 'VALIDATION_FAILED', ['str_token']);
    expectError(await loginAs(person, NEW_PASSWORD), 401, 'INVALID_CREDENTIALS');
  });
});

describe('POST /api/confirm-registration', () => {
  test('a user created by an owner confirms with the mailed token and then logs in', async () => {
    const owner = await member(app, 'OWNER');
    const newEmail = email('invited');
    const created = await app.call('POST', '/api/users', { token: owner.access, body: { str_name: 'Invited User', str_email: newEmail, str_document: cpf() } });
    expect(created.status).toBe(202);
    const userId = (await app.service.orm.em.fork().findOneOrFail(User, { str_email: newEmail })).id;

    const mail = await lastMail(app, newEmail);
    expect(mail).not.toBeNull();
    const token = tokenIn(mail);
    expect(token).not.toBe('');

    // Before confirmation there is no password to log in with.
    expectError(await loginAs({ email: newEmail }, NEW_PASSWORD), 401, 'INVALID_CREDENTIALS');

    // Bad inputs leave the token usable.
    expectFields(await app.call('POST', '/api/confirm-registration', { body: { str_token: token, str_password: 'short' } }), 'VALIDATION_FAILED', ['str_password']);
    expectFields(await app.call('POST', '/api/confirm-registration', { body: { str_token: 'not-the-token-not-the-token-not-the-token', str_password: NEW_PASSWORD } }), 'VALIDATION_FAILED', ['str_token']);

    const res = await app.call('POST', '/api/confirm-registration', { body: { str_token: token, str_password: NEW_PASSWORD } });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();

    const signedIn = await loginAs({ email: newEmail }, NEW_PASSWORD);
    expect(signedIn.status).toBe(200);
    expectTokenPair(signedIn.body, userId);

    // Single use.
    expectFields(await app.call('POST', '/api/confirm-registration', { body: { str_token: token, str_password: 'another passphrase' } }), 'VALIDATION_FAILED', ['str_token']);
    expect((await loginAs({ email: newEmail }, NEW_PASSWORD)).status).toBe(200);
  });
});

/** An address no other run uses (IPv6 documentation range). */
const randomAddress = () => `2001:db8::${randomBytes(6).toString('hex').match(/.{4}/g)!.join(':')}`;

describe('login throttling', () => {
  test('per login: after 3 failures the 4th attempt, even with the right password, is 429', async () => {
    const limited = await startApp({ LOGIN_LIMIT_PER_LOGIN: '3' });
    try {
      const person = await makeUser(limited);
      const other = await makeUser(limited);
      const attempt = (who: Person, password: string) => limited.call('POST', '/api/login', { body: { str_email: who.email, str_password: password } });
      for (let i = 0; i < 3; i++) expectError(await attempt(person, 'wrong password'), 401, 'INVALID_CREDENTIALS');
      const blocked = await attempt(person, person.password);
      expectError(blocked, 429, 'RATE_LIMITED');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(blocked.body.data).toBeUndefined();
      // The same login by another spelling is the same login.
      expectError(await limited.call('POST', '/api/login', { body: { str_email: person.email.toUpperCase(), str_password: person.password } }), 429, 'RATE_LIMITED');
      // Another login from the same address is not affected.
      expect((await attempt(other, other.password)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  test('per account and address: e-mail and document guesses count together; the owner elsewhere is not locked out; instances share the count on PostgreSQL', async () => {
    const env = { LOGIN_LIMIT_PER_LOGIN: '4' };
    const first = await startApp(env);
    const second = process.env.DATABASE_URL ? await startApp(env) : first;
    try {
      const person = await makeUser(first);
      // Addresses of this run only: on PostgreSQL the counters outlive the test, as they should.
      const [address, elsewhere] = [randomAddress(), randomAddress()];
      const guess = (on: TestApp, body: Record<string, string>, from = address) => on.call('POST', '/api/login', { body, headers: { 'X-Forwarded-For': from } });
      expectError(await guess(first, { str_email: person.email, str_password: 'wrong one' }), 401, 'INVALID_CREDENTIALS');
      expectError(await guess(first, { str_document: person.document, str_password: 'wrong two' }), 401, 'INVALID_CREDENTIALS');
      expectError(await guess(second, { str_email: person.email, str_password: 'wrong three' }), 401, 'INVALID_CREDENTIALS');
      expectError(await guess(second, { str_document: person.document, str_password: 'wrong four' }), 401, 'INVALID_CREDENTIALS');
      expectError(await guess(first, { str_document: person.document, str_password: person.password }), 429, 'RATE_LIMITED');
      expectError(await guess(second, { str_email: person.email, str_password: person.password }), 429, 'RATE_LIMITED');
      // The owner, from its own address, signs in.
      expect((await guess(first, { str_email: person.email, str_password: person.password }, elsewhere)).status).toBe(200);
    } finally {
      await first.close();
      if (second !== first) await second.close();
    }
  });

  test('a login or an address past the counters\' key (255 characters) is counted, not a 500', async () => {
    const person = await makeUser(app);
    for (const body of [{ str_email: '9'.repeat(255), str_password: 'wrong' }, { str_document: 'a'.repeat(255), str_password: 'wrong' }, { str_email: `${'a'.repeat(240)}@example.com`, str_password: 'wrong' }]) {
      expectError(await app.call('POST', '/api/login', { body }), 401, 'INVALID_CREDENTIALS');
    }
    const far = `${randomAddress()}${'0'.repeat(300)}`;
    expectError(await app.call('POST', '/api/login', { body: { str_email: person.email, str_password: 'wrong' }, headers: { 'X-Forwarded-For': far } }), 401, 'INVALID_CREDENTIALS');
    expect((await app.call('POST', '/api/login', { body: { str_email: person.email, str_password: person.password }, headers: { 'X-Forwarded-For': far } })).status).toBe(200);
  });

  test('per address: the 6th attempt from one address is 429, another address gets through', async () => {
    const limited = await startApp({ LOGIN_LIMIT_PER_ADDRESS: '5' });
    try {
      const person = await makeUser(limited);
      const from = (address: string) =>
        limited.call('POST', '/api/login', { body: { str_email: person.email, str_password: person.password }, headers: { 'X-Forwarded-For': address } });
      const [address, other] = [randomAddress(), randomAddress()];
      for (let i = 0; i < 5; i++) expect((await from(address)).status).toBe(200);
      const blocked = await from(address);
      expectError(blocked, 429, 'RATE_LIMITED');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await from(other)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
