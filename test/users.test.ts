import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { cpf, email, lastMail, login, makeOrganization, makeUser, member, PASSWORD, tokenIn, type Person } from './helpers/factories.js';
import { SentMessage } from '../src/shared/sent-message.entity.js';
import { Membership, type Role } from '../src/identity/membership.entity.js';
import type { Organization } from '../src/identity/organization.entity.js';
import { User } from '../src/identity/user.entity.js';

let admin: Person & { access: string };

const app = useApp();
beforeAll(async () => {
  const person = await makeUser(app, { admin: true });
  admin = { ...person, access: (await login(app, person)).access };
});

const formatCpf = (d: string) => `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;

/** How many users match a filter, as the administrator (who sees everyone) searches them. */
async function countUsers(filter: Record<string, unknown>): Promise<number> {
  const res = await app.call('POST', '/api/users/search', { token: admin.access, body: filter });
  expect(res.status).toBe(200);
  return res.body.meta.int_total_results;
}

/** Users added straight to an organization with a role (set-up). */
async function addMembers(org: Organization, n: number, role: Role = 'VIEWER', names?: string[]): Promise<Person[]> {
  const people: Person[] = [];
  for (let i = 0; i < n; i++) {
    const p = await makeUser(app);
    const em = app.service.orm.em.fork();
    if (names?.[i]) {
      p.user.str_name = names[i]!;
      await em.nativeUpdate(User, { id: p.user.id }, { str_name: names[i] });
    }
    await em.persist(em.create(Membership, { user_id: p.user.id, organization_id: org.id, str_role: role })).flush();
    people.push(p);
  }
  return people;
}

const newUserBody = () => {
  const doc = cpf();
  const mail = email('new');
  return { str_name: 'Maria Nova', str_email: mail.toUpperCase(), str_document: formatCpf(doc), str_type: 'PRODUCER', _doc: doc, _mail: mail };
};
const body = (b: ReturnType<typeof newUserBody>) => ({ str_name: b.str_name, str_email: b.str_email, str_document: b.str_document, str_type: b.str_type });

describe('POST /api/users', () => {
  const INVITED = (mail: string) => ({ data: { str_status: 'INVITED', str_email: mail } });

  /** The members of an organization as its owner lists them: [user id, role]. */
  async function membersOf(owner: { access: string; org: Organization }): Promise<[string, string][]> {
    const res = await app.call('GET', `/api/organizations/${owner.org.id}/members?int_max_results=500`, { token: owner.access });
    expect(res.status).toBe(200);
    return res.body.data.map((m: { user_id: string; str_role: string }) => [m.user_id, m.str_role]);
  }

  test.each(['OWNER', 'MANAGER'] as const)('a %s invites a new address: 202 INVITED, an inactive account that joins (OPERATOR) on confirming', async (role) => {
    const caller = await member(app, role);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: caller.access, body: body(b) });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(INVITED(b._mail));
    const [created] = await app.service.orm.em.fork().find(User, { str_email: b._mail });
    expect(created).toMatchObject({ str_name: 'Maria Nova', str_document: b._doc, str_type: 'PRODUCER', password_hash: null });
    // Not a member until the person confirms.
    expect((await membersOf(caller)).map(([id]) => id)).not.toContain(created!.id);
    const mail = await lastMail(app, b._mail);
    expect(mail?.str_template).toBe('CONFIRM_REGISTRATION');
    expect((await app.call('POST', '/api/confirm-registration', { body: { str_token: tokenIn(mail), str_password: PASSWORD } })).status).toBe(204);
    expect(await membersOf(caller)).toContainEqual([created!.id, 'OPERATOR']);
    const session = await login(app, { user: created!, email: b._mail, document: b._doc, password: PASSWORD });
    const me = await app.call('GET', '/api/whoami', { token: session.access });
    expect(me.body.data.organization_id).toBe(caller.org.id);
  });

  test('an explicit str_role is the role the person joins with', async () => {
    const owner = await member(app, 'OWNER');
    const b = newUserBody();
    expect((await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_role: 'VIEWER' } })).status).toBe(202);
    await app.call('POST', '/api/confirm-registration', { body: { str_token: tokenIn(await lastMail(app, b._mail)), str_password: PASSWORD } });
    const [created] = await app.service.orm.em.fork().find(User, { str_email: b._mail });
    expect(await membersOf(owner)).toContainEqual([created!.id, 'VIEWER']);
  });

  test('an existing address (any case): the same 202, no account made, an invitation its owner accepts; the member appears then', async () => {
    const owner = await member(app);
    const existing = await makeUser(app);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_email: existing.email.toUpperCase(), str_role: 'MANAGER' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(INVITED(existing.email));
    expect(await countUsers({ str_document: b._doc })).toBe(0);
    expect((await membersOf(owner)).map(([id]) => id)).not.toContain(existing.user.id);
    const mail = await lastMail(app, existing.email);
    expect(mail?.str_template).toBe('ORGANIZATION_INVITE');
    expect(mail?.str_body).toContain(owner.org.str_name);
    const accepted = await app.call('POST', '/api/organization-invites/accept', { body: { str_token: tokenIn(mail) } });
    expect(accepted.status).toBe(204);
    expect(await membersOf(owner)).toContainEqual([existing.user.id, 'MANAGER']);
    const again = await app.call('POST', '/api/organization-invites/accept', { body: { str_token: tokenIn(mail) } });
    expect(again.status).toBe(422);
    expect(Object.keys(again.body.detail.fields)).toEqual(['str_token']);
  });

  test('an existing CPF under another address: the same 202 naming the address sent; the account’s own address is asked, and may decline', async () => {
    const owner = await member(app);
    const existing = await makeUser(app);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_document: formatCpf(existing.document) } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(INVITED(b._mail));
    expect(await countUsers({ str_email: b._mail })).toBe(0);
    expect(await lastMail(app, b._mail)).toBeNull();
    const mail = await lastMail(app, existing.email);
    expect(mail?.str_template).toBe('ORGANIZATION_INVITE');
    expect((await app.call('POST', '/api/organization-invites/decline', { body: { str_token: tokenIn(mail) } })).status).toBe(204);
    const late = await app.call('POST', '/api/organization-invites/accept', { body: { str_token: tokenIn(mail) } });
    expect(late.status).toBe(422);
    expect((await membersOf(owner)).map(([id]) => id)).not.toContain(existing.user.id);
  });

  test('an unknown or empty invitation code: 422 naming str_token', async () => {
    for (const str_token of ['x'.repeat(43), '']) {
      const res = await app.call('POST', '/api/organization-invites/accept', { body: { str_token } });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.detail.fields)).toEqual(['str_token']);
    }
  });

  test.each(['OPERATOR', 'VIEWER'] as const)('an %s may not create users (403, nothing written)', async (role) => {
    const caller = await member(app, role);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: caller.access, body: body(b) });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countUsers({ str_email: b._mail })).toBe(0);
  });

  test('a signed-in user without an active organization may not create users', async () => {
    const person = await makeUser(app);
    const { access } = await login(app, person);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: access, body: body(b) });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countUsers({ str_document: b._doc })).toBe(0);
  });

  test('without a token: 401', async () => {
    const res = await app.call('POST', '/api/users', { body: body(newUserBody()) });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHENTICATED');
  });

  test('an administrator may set bl_admin on a new account', async () => {
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: admin.access, body: { ...body(b), bl_admin: true } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(INVITED(b._mail));
    expect(await countUsers({ str_email: b._mail, bl_admin: true })).toBe(1);
  });

  test('a manager setting bl_admin: 403 and nothing written', async () => {
    const manager = await member(app, 'MANAGER');
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: manager.access, body: { ...body(b), bl_admin: true } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countUsers({ str_email: b._mail })).toBe(0);
  });

  test.each(['str_name', 'str_email', 'str_document'])('missing %s: 422 naming it, nothing written', async (field) => {
    const owner = await member(app);
    const b = newUserBody();
    const sent: Record<string, unknown> = body(b);
    delete sent[field];
    const res = await app.call('POST', '/api/users', { token: owner.access, body: sent });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
    expect(res.body.detail.fields[field]).toEqual(['is required']);
    if (field !== 'str_email') expect(await countUsers({ str_email: b._mail })).toBe(0);
    if (field !== 'str_document') expect(await countUsers({ str_document: b._doc })).toBe(0);
  });

  test.each(['str_name', 'str_email', 'str_document'])('blank %s: 422 naming it', async (field) => {
    const owner = await member(app);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), [field]: '   ' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
  });

  test('a malformed e-mail: 422 naming str_email, nothing written', async () => {
    const owner = await member(app);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_email: 'not-an-email' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_email']);
    expect(await countUsers({ str_document: b._doc })).toBe(0);
  });

  test('an invalid CPF: 422 naming str_document, nothing written', async () => {
    const owner = await member(app);
    const b = newUserBody();
    const good = b._doc;
    const bad = good.slice(0, 10) + String((Number(good[10]) + 1) % 10);
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_document: bad } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_document']);
    expect(await countUsers({ str_email: b._mail })).toBe(0);
    const repeated = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_document: '111.111.111-11' } });
    expect(repeated.status).toBe(422);
    expect(Object.keys(repeated.body.detail.fields)).toEqual(['str_document']);
  });

  test('an unknown str_type: 422 naming it', async () => {
    const owner = await member(app);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_type: 'WIZARD' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_type']);
    expect(await countUsers({ str_email: b._mail })).toBe(0);
  });

  test('concurrent invitations of one new address: every answer 202, one account', async () => {
    const owner = await member(app);
    const mail = email('race');
    const replies = await Promise.all(
      [0, 1, 2, 3, 4].map(() => app.call('POST', '/api/users', { token: owner.access, body: { str_name: 'Racer', str_email: mail, str_document: cpf() } })),
    );
    expect(replies.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(await countUsers({ str_email: mail })).toBe(1);
  });

  test('the same client id and body again: the same answer, one mail; another body: 422 CONFLICT naming id', async () => {
    const owner = await member(app);
    const b = newUserBody();
    const id = randomUUID();
    const first = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), id } });
    const again = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), id } });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(first.body);
    const mails = await app.service.orm.em.fork().count(SentMessage, { str_to: b._mail });
    expect(mails).toBe(1);
    const other = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(newUserBody()), id } });
    expect(other.status).toBe(422);
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
  });

  test('unknown body fields are ignored and listed in the Warning header', async () => {
    const owner = await member(app);
    const b = newUserBody();
    const res = await app.call('POST', '/api/users', { token: owner.access, body: { ...body(b), str_legacy_code: 'X1', int_shoe_size: 42 } });
    expect(res.status).toBe(202);
    const warning = res.headers.get('warning');
    expect(warning).toContain('str_legacy_code');
    expect(warning).toContain('int_shoe_size');
    const clean = await app.call('POST', '/api/users', { token: owner.access, body: body(newUserBody()) });
    expect(clean.status).toBe(202);
    expect(clean.headers.get('warning')).toBeNull();
  });
});

describe('GET /api/users/{id}', () => {
  test('a member reads a user of its organization (whole for an owner or manager, name and type for the others) and itself', async () => {
    const viewer = await member(app, 'VIEWER');
    const manager = await member(app, 'MANAGER', viewer.org);
    const [other] = await addMembers(viewer.org, 1, 'OPERATOR');
    const whole = await app.call('GET', `/api/users/${other!.user.id}`, { token: manager.access });
    expect(whole.status).toBe(200);
    expect(whole.body.data.str_email).toBe(other!.email);
    expect(whole.body.data.organizations).toEqual([{ id: viewer.org.id, str_name: viewer.org.str_name, str_role: 'OPERATOR' }]);
    const res = await app.call('GET', `/api/users/${other!.user.id}`, { token: viewer.access });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: other!.user.id, str_name: other!.user.str_name, str_type: other!.user.str_type, str_email: null, str_document: null, str_phone: null, organizations: [] });
    const self = await app.call('GET', `/api/users/${viewer.user.id}`, { token: viewer.access });
    expect(self.status).toBe(200);
    expect(self.body.data.organization_id).toBe(viewer.org.id);
  });

  test('a user of another organization: 404, never 403', async () => {
    const a = await member(app, 'OWNER');
    const b = await member(app, 'OWNER');
    const res = await app.call('GET', `/api/users/${b.user.id}`, { token: a.access });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
    const unknown = await app.call('GET', `/api/users/${randomUUID()}`, { token: a.access });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'NOT_FOUND', detail: res.body.detail });
  });

  test('a path id that is not a uuid: 400 BAD_REQUEST', async () => {
    const a = await member(app);
    const res = await app.call('GET', '/api/users/not-a-uuid', { token: a.access });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('BAD_REQUEST');
  });
});

describe('PUT/PATCH /api/users/{id}', () => {
  test.each(['PUT', 'PATCH'])('%s by a manager of the organization changes a member', async (method) => {
    const manager = await member(app, 'MANAGER');
    const [target] = await addMembers(manager.org, 1, 'OPERATOR');
    const res = await app.call(method, `/api/users/${target!.user.id}`, { token: manager.access, body: { str_name: 'Renamed Person', str_phone: '+55 11 99999-0000' } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(target!.user.id);
    expect(res.body.data.str_name).toBe('Renamed Person');
    expect(res.body.data.str_phone).toBe('+55 11 99999-0000');
    expect(res.body.data.str_email).toBe(target!.email);
    const read = await app.call('GET', `/api/users/${target!.user.id}`, { token: manager.access });
    expect(read.body.data.str_name).toBe('Renamed Person');
  });

  test('an update to an invalid e-mail: 422 naming it, nothing changed', async () => {
    const manager = await member(app, 'MANAGER');
    const [target] = await addMembers(manager.org, 1, 'OPERATOR');
    const res = await app.call('PATCH', `/api/users/${target!.user.id}`, { token: manager.access, body: { str_email: 'nope' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_email']);
    expect(await countUsers({ id: target!.user.id, str_email: target!.email })).toBe(1);
  });

  test('a manager setting bl_admin on a member: 403, nothing changed', async () => {
    const manager = await member(app, 'MANAGER');
    const [target] = await addMembers(manager.org, 1, 'OPERATOR');
    const res = await app.call('PATCH', `/api/users/${target!.user.id}`, { token: manager.access, body: { bl_admin: true } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countUsers({ id: target!.user.id, bl_admin: false })).toBe(1);
  });

  test('a manager changing an owner: 403, nothing changed', async () => {
    const manager = await member(app, 'MANAGER');
    const [owner] = await addMembers(manager.org, 1, 'OWNER');
    const res = await app.call('PATCH', `/api/users/${owner!.user.id}`, { token: manager.access, body: { str_name: 'Demoted Name' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countUsers({ id: owner!.user.id, str_name: 'Test User' })).toBe(1);
  });

  test('an operator changing another member: 403', async () => {
    const operator = await member(app, 'OPERATOR');
    const [target] = await addMembers(operator.org, 1, 'VIEWER');
    const res = await app.call('PATCH', `/api/users/${target!.user.id}`, { token: operator.access, body: { str_name: 'Hijacked' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countUsers({ id: target!.user.id, str_name: 'Hijacked' })).toBe(0);
  });

  test.each(['PUT', 'PATCH'])('%s by the manager of another organization: 404, nothing changed', async (method) => {
    const outsider = await member(app, 'MANAGER');
    const owner = await member(app, 'OWNER');
    const [target] = await addMembers(owner.org, 1, 'OPERATOR');
    const res = await app.call(method, `/api/users/${target!.user.id}`, { token: outsider.access, body: { str_name: 'Hijacked' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
    expect(await countUsers({ id: target!.user.id, str_name: 'Test User' })).toBe(1);
  });

  test('a non-uuid path id: 400', async () => {
    const manager = await member(app, 'MANAGER');
    const res = await app.call('PATCH', '/api/users/123', { token: manager.access, body: { str_name: 'X' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('BAD_REQUEST');
  });
});

describe('GET /api/users', () => {
  test('lists only the members of the active organization, with pagination meta', async () => {
    const owner = await member(app, 'OWNER');
    const mine = await addMembers(owner.org, 2, 'VIEWER');
    const stranger = await member(app, 'OWNER');
    const res = await app.call('GET', '/api/users', { token: owner.access });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    expect(res.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 3, int_total_pages: 1 });
    const ids = res.body.data.map((u: { id: string }) => u.id).sort();
    expect(ids).toEqual([owner.user.id, ...mine.map((p) => p.user.id)].sort());
    expect(ids).not.toContain(stranger.user.id);
    expect(ids).not.toContain(admin.user.id);
  });

  test('a caller without an active organization sees only itself', async () => {
    const person = await makeUser(app);
    await makeOrganization(app, [{ person, role: 'OWNER' }]);
    const { access } = await login(app, person);
    const res = await app.call('GET', '/api/users', { token: access });
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: { id: string }) => u.id)).toEqual([person.user.id]);
    expect(res.body.meta.int_total_results).toBe(1);
  });

  test('int_max_results=2 pages through every member once; a page past the end is empty with true totals', async () => {
    const owner = await member(app, 'OWNER');
    await addMembers(owner.org, 4, 'VIEWER');
    const seen: string[] = [];
    for (const [page, size] of [
      [1, 2],
      [2, 2],
      [3, 1],
    ] as const) {
      const res = await app.call('GET', `/api/users?int_max_results=2&int_current_page=${page}`, { token: owner.access });
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ int_current_page: page, int_max_results: 2, int_total_results: 5, int_total_pages: 3 });
      expect(res.body.data).toHaveLength(size);
      seen.push(...res.body.data.map((u: { id: string }) => u.id));
    }
    expect(new Set(seen).size).toBe(5);
    const all = await app.call('GET', '/api/users', { token: owner.access });
    expect(seen).toEqual(all.body.data.map((u: { id: string }) => u.id));
    const past = await app.call('GET', '/api/users?int_max_results=2&int_current_page=4', { token: owner.access });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], meta: { int_current_page: 4, int_max_results: 2, int_total_results: 5, int_total_pages: 3 } });
  });

  test('the default order is ts_created_at descending', async () => {
    const owner = await member(app, 'OWNER');
    await addMembers(owner.org, 3, 'VIEWER');
    const res = await app.call('GET', '/api/users', { token: owner.access });
    const stamps = res.body.data.map((u: { ts_created_at: string }) => u.ts_created_at);
    expect(stamps).toEqual([...stamps].sort().reverse());
  });

  test.each([
    ['int_max_results', '0'],
    ['int_max_results', '501'],
    ['int_max_results', 'abc'],
    ['int_max_results', '-1'],
    ['int_current_page', '0'],
    ['int_current_page', 'abc'],
  ])('%s=%s: 422 naming the parameter', async (param, value) => {
    const owner = await member(app);
    const res = await app.call('GET', `/api/users?${param}=${value}`, { token: owner.access });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([param]);
  });

  test('int_max_results=500 is accepted', async () => {
    const owner = await member(app);
    const res = await app.call('GET', '/api/users?int_max_results=500', { token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body.meta.int_max_results).toBe(500);
  });

  test('filters as query parameters', async () => {
    const owner = await member(app, 'OWNER');
    const [target] = await addMembers(owner.org, 2, 'VIEWER');
    const res = await app.call('GET', `/api/users?str_email=${encodeURIComponent(target!.email)}`, { token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: { id: string }) => u.id)).toEqual([target!.user.id]);
    const unknown = await app.call('GET', '/api/users?str_colour=blue', { token: owner.access });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.detail.fields)).toEqual(['str_colour']);
  });

  test('the SQL statements of a page do not grow with its size (2 members vs 20)', async () => {
    const small = await member(app, 'OWNER');
    await addMembers(small.org, 1, 'VIEWER');
    const large = await member(app, 'OWNER');
    await addMembers(large.org, 19, 'OPERATOR');
    const a = await app.call('GET', '/api/users', { token: small.access });
    const b = await app.call('GET', '/api/users', { token: large.access });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.data).toHaveLength(2);
    expect(b.body.data).toHaveLength(20);
    expect(b.body.data.every((u: { organizations: unknown[] }) => u.organizations.length === 1)).toBe(true);
    expect(Number.isInteger(a.sql)).toBe(true);
    expect(a.sql).toBeGreaterThan(0);
    expect(b.sql).toBe(a.sql);
  });
});

describe('POST /api/users/search', () => {
  test('str_query matches without accents and case', async () => {
    const owner = await member(app, 'OWNER');
    const tag = randomUUID().slice(0, 6);
    const [joao] = await addMembers(owner.org, 2, 'VIEWER', [`João da Conceição ${tag}`, `Pedro Silva ${tag}`]);
    for (const q of ['conceicao', 'CONCEIÇÃO', 'joao da']) {
      const res = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_query: q } });
      expect(res.status).toBe(200);
      expect(res.body.data.map((u: { id: string }) => u.id)).toEqual([joao!.user.id]);
      expect(res.body.meta.int_total_results).toBe(1);
    }
    const both = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_query: tag } });
    expect(both.body.meta.int_total_results).toBe(2);
  });

  test('str_query does not reach users of another organization', async () => {
    const owner = await member(app, 'OWNER');
    const other = await member(app, 'OWNER');
    const tag = randomUUID().slice(0, 8);
    await addMembers(other.org, 1, 'VIEWER', [`Hidden ${tag}`]);
    const res = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_query: tag } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.int_total_results).toBe(0);
  });

  test('an unknown filter key: 422 whose detail lists the accepted keys', async () => {
    const owner = await member(app);
    const res = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_nickname: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_nickname']);
    expect(res.body.detail.accepted_keys).toEqual(expect.arrayContaining(['str_query', 'str_name', 'str_email', 'str_document', 'str_order_by', 'str_order', 'ts_created_at_from', 'ts_created_at_to']));
    expect(res.body.detail.accepted_keys).not.toContain('password_hash');
  });

  test('an empty body means no filter', async () => {
    const owner = await member(app);
    await addMembers(owner.org, 1);
    const res = await app.call('POST', '/api/users/search', { token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body.meta.int_total_results).toBe(2);
  });

  test('str_order_by and str_order', async () => {
    const owner = await member(app, 'OWNER');
    await addMembers(owner.org, 3, 'VIEWER', ['Charlie Z', 'Alpha Z', 'Bravo Z']);
    const asc = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_order_by: 'str_name', str_order: 'ASC' } });
    expect(asc.status).toBe(200);
    expect(asc.body.data.map((u: { str_name: string }) => u.str_name)).toEqual(['Alpha Z', 'Bravo Z', 'Charlie Z', 'Test User']);
    const desc = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_order_by: 'str_name', str_order: 'DESC' } });
    expect(desc.body.data.map((u: { str_name: string }) => u.str_name)).toEqual(['Test User', 'Charlie Z', 'Bravo Z', 'Alpha Z']);
    const paged = await app.call('POST', '/api/users/search?int_max_results=1&int_current_page=2', { token: owner.access, body: { str_order_by: 'str_name', str_order: 'ASC' } });
    expect(paged.body.data.map((u: { str_name: string }) => u.str_name)).toEqual(['Bravo Z']);
    expect(paged.body.meta).toEqual({ int_current_page: 2, int_max_results: 1, int_total_results: 4, int_total_pages: 4 });
  });

  test('a bad str_order_by or str_order: 422 naming it', async () => {
    const owner = await member(app);
    const by = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_order_by: 'password_hash' } });
    expect(by.status).toBe(422);
    expect(Object.keys(by.body.detail.fields)).toEqual(['str_order_by']);
    const dir = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_order: 'UP' } });
    expect(dir.status).toBe(422);
    expect(Object.keys(dir.body.detail.fields)).toEqual(['str_order']);
  });
});

describe('GraphQL shares the core', () => {
  const CREATE = 'mutation($input: UserCreateInput!) { createUser(input: $input) { str_status str_email } }';

  test('createUser answers as REST; once the person confirms, users lists them', async () => {
    const manager = await member(app, 'MANAGER');
    const b = newUserBody();
    const created = await app.graphql(CREATE, { input: body(b) }, manager.access);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createUser).toEqual({ str_status: 'INVITED', str_email: b._mail });
    const list = () => app.graphql('query($f: JSONObject) { users(filter: $f) { data { str_document } meta { int_total_results } } }', { f: { str_email: b._mail } }, manager.access);
    expect((await list()).body.data.users.meta.int_total_results).toBe(0);
    const confirmed = await app.graphql('mutation($t: String) { confirmRegistration(input: { str_token: $t, str_password: "correct horse battery" }) }', { t: tokenIn(await lastMail(app, b._mail)) });
    expect(confirmed.body.errors).toBeUndefined();
    expect((await list()).body.data.users).toEqual({ data: [{ str_document: b._doc }], meta: { int_total_results: 1 } });
  });

  test('createUser errors carry the same codes as REST', async () => {
    const operator = await member(app, 'OPERATOR');
    const b = newUserBody();
    const forbidden = await app.graphql(CREATE, { input: body(b) }, operator.access);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const owner = await member(app);
    const invalid = await app.graphql(CREATE, { input: { ...body(b), str_email: 'bad' } }, owner.access);
    expect(invalid.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(invalid.body.errors[0].extensions.detail.fields)).toEqual(['str_email']);
    const missing = await app.graphql(CREATE, { input: { str_email: b._mail, str_document: b._doc } }, owner.access);
    expect(missing.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(missing.body.errors[0].extensions.detail.fields).toHaveProperty('str_name');
    expect(await countUsers({ str_email: b._mail })).toBe(0);
  });
});

describe('tenancy', () => {
  test("a user of organization A neither sees nor changes B's users (REST and GraphQL)", async () => {
    const a = await member(app, 'OWNER');
    const b = await member(app, 'OWNER');
    const [bUser] = await addMembers(b.org, 1, 'OPERATOR');
    for (const target of [b.user.id, bUser!.user.id]) {
      const read = await app.call('GET', `/api/users/${target}`, { token: a.access });
      expect(read.status).toBe(404);
      expect(read.body.error).toBe('NOT_FOUND');
      const put = await app.call('PUT', `/api/users/${target}`, { token: a.access, body: { str_name: 'Taken Over' } });
      expect(put.status).toBe(404);
      const gqlRead = await app.graphql('query($id: UUID!) { user(id: $id) { id } }', { id: target }, a.access);
      expect(gqlRead.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(gqlRead.body.data).toBeNull();
      const gqlUpdate = await app.graphql('mutation($id: UUID!) { updateUser(id: $id, input: { str_name: "Taken Over" }) { id } }', { id: target }, a.access);
      expect(gqlUpdate.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const list = await app.graphql('{ users { data { id } } }', {}, a.access);
    const ids = list.body.data.users.data.map((u: { id: string }) => u.id);
    expect(ids).toEqual([a.user.id]);
    expect(await countUsers({ str_name: 'Taken Over' })).toBe(0);
  });

  test('switching the active organization switches what is visible', async () => {
    const a = await member(app, 'OWNER');
    const b = await makeOrganization(app, [{ person: a, role: 'VIEWER' }]);
    const [bUser] = await addMembers(b, 1, 'OPERATOR');
    expect((await app.call('GET', `/api/users/${bUser!.user.id}`, { token: a.access })).status).toBe(404);
    const inB = await login(app, a, b.id);
    expect((await app.call('GET', `/api/users/${bUser!.user.id}`, { token: inB.access })).status).toBe(200);
    // a VIEWER of B may not create users there
    const res = await app.call('POST', '/api/users', { token: inB.access, body: body(newUserBody()) });
    expect(res.status).toBe(403);
  });
});
