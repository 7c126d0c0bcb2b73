import { randomUUID } from 'node:crypto';
import { ALREADY_REGISTERED } from '../src/identity/organization.service.js';
import { useApp } from './helpers/app.js';
import { cnpj, login, makeOrganization, makeUser, member, type Person } from './helpers/factories.js';
import { Membership, type Role } from '../src/identity/membership.entity.js';
import { Organization } from '../src/identity/organization.entity.js';

let adminToken: string;

const app = useApp();
beforeAll(async () => {
  adminToken = (await login(app, await makeUser(app, { admin: true }))).access;
});

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const formatCnpj = (d: string) => `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
const uniqueName = () => `Fazenda ${randomUUID().slice(0, 8)}`;

/** Organizations matching a filter, as the administrator (who sees every one) searches them. */
async function countOrgs(filter: Record<string, unknown>): Promise<number> {
  const res = await app.call('POST', '/api/organizations/search', { token: adminToken, body: filter });
  expect(res.status).toBe(200);
  return res.body.meta.int_total_results;
}

/** The role a user holds in an organization, read straight from the database (null: not a member). */
async function roleIn(orgId: string, userId: string): Promise<Role | null> {
  return (await app.service.orm.em.fork().findOne(Membership, { organization_id: orgId, user_id: userId }))?.str_role ?? null;
}

async function addMember(org: Organization, role: Role): Promise<Person> {
  const p = await makeUser(app);
  const em = app.service.orm.em.fork();
  await em.persist(em.create(Membership, { user_id: p.user.id, organization_id: org.id, str_role: role })).flush();
  return p;
}

/** A signed-in user with no organization. */
async function loner(): Promise<Person & { access: string }> {
  const p = await makeUser(app);
  return { ...p, access: (await login(app, p)).access };
}

describe('POST /api/organizations', () => {
  test('creates it (201) and the caller becomes its OWNER, visible in whoami', async () => {
    const caller = await loner();
    const doc = cnpj();
    const name = uniqueName();
    const res = await app.call('POST', '/api/organizations', { token: caller.access, body: { str_name: name, str_document: formatCnpj(doc) } });
    expect(res.status).toBe(201);
    const org = res.body.data;
    expect(org.id).toMatch(UUID_RE);
    expect(org.str_name).toBe(name);
    expect(org.str_document).toBe(doc);
    expect(org.ts_created_at).toMatch(ISO_Z);
    expect(org.ts_updated_at).toMatch(ISO_Z);
    const who = await app.call('GET', '/api/whoami', { token: caller.access });
    expect(who.status).toBe(200);
    expect(who.body.data.organizations).toEqual([{ id: org.id, str_name: name, str_role: 'OWNER' }]);
    expect(await roleIn(org.id, caller.user.id)).toBe('OWNER');
    const read = await app.call('GET', `/api/organizations/${org.id}`, { token: caller.access });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(org);
  });

  test.each(['str_name', 'str_document'])('missing %s: 422 naming it, nothing written', async (field) => {
    const caller = await loner();
    const name = uniqueName();
    const sent: Record<string, unknown> = { str_name: name, str_document: cnpj() };
    delete sent[field];
    const res = await app.call('POST', '/api/organizations', { token: caller.access, body: sent });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
    expect(res.body.detail.fields[field]).toEqual(['is required']);
    if (field !== 'str_name') expect(await countOrgs({ str_name: name })).toBe(0);
  });

  test.each(['12.345.678/0001-00', '00000000000000', 'ABC', '123'])('an invalid str_document (%s): 422 naming it, nothing written', async (document) => {
    const caller = await loner();
    const name = uniqueName();
    const res = await app.call('POST', '/api/organizations', { token: caller.access, body: { str_name: name, str_document: document } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_document']);
    expect(await countOrgs({ str_name: name })).toBe(0);
  });

  test('a document already taken: 422 CONFLICT naming str_document, nothing written', async () => {
    const existing = await makeOrganization(app);
    const caller = await loner();
    const name = uniqueName();
    const res = await app.call('POST', '/api/organizations', { token: caller.access, body: { str_name: name, str_document: formatCnpj(existing.str_document) } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    // A CNPJ is public: the answer says it is registered and where to ask to join, nothing of a person.
    expect(res.body.detail).toEqual({ fields: { str_document: [ALREADY_REGISTERED] } });
    expect(ALREADY_REGISTERED).toContain('POST /api/invite-requests');
    expect(await countOrgs({ str_name: name })).toBe(0);
    expect(await countOrgs({ str_document: existing.str_document })).toBe(1);
    const who = await app.call('GET', '/api/whoami', { token: caller.access });
    expect(who.body.data.organizations).toEqual([]);
  });

  test('a non-administrator naming another owner: 403', async () => {
    const caller = await loner();
    const other = await makeUser(app);
    const name = uniqueName();
    const res = await app.call('POST', '/api/organizations', { token: caller.access, body: { str_name: name, str_document: cnpj(), owner_user_id: other.user.id } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countOrgs({ str_name: name })).toBe(0);
  });

  test('concurrent creates with one document: one 201, the others 422 CONFLICT naming str_document, one row', async () => {
    const caller = await loner();
    const doc = cnpj();
    const replies = await Promise.all([0, 1, 2, 3].map(() => app.call('POST', '/api/organizations', { token: caller.access, body: { str_name: uniqueName(), str_document: doc } })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    for (const r of replies.filter((x) => x.status !== 201)) expect(r.body).toEqual({ error: 'CONFLICT', detail: { fields: { str_document: [ALREADY_REGISTERED] } } });
    expect(await countOrgs({ str_document: doc })).toBe(1);
  });

  test('unknown body fields are ignored and listed in the Warning header', async () => {
    const caller = await loner();
    const res = await app.call('POST', '/api/organizations', { token: caller.access, body: { str_name: uniqueName(), str_document: cnpj(), str_fax: '123' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('str_fax');
  });
});

describe('GET /api/organizations', () => {
  test('reads its own (200), not another (404), and a non-uuid id is 400', async () => {
    const a = await member(app, 'VIEWER');
    const b = await member(app, 'OWNER');
    const own = await app.call('GET', `/api/organizations/${a.org.id}`, { token: a.access });
    expect(own.status).toBe(200);
    expect(own.body.data.id).toBe(a.org.id);
    expect(own.body.data.str_document).toBe(a.org.str_document);
    const other = await app.call('GET', `/api/organizations/${b.org.id}`, { token: a.access });
    expect(other.status).toBe(404);
    expect(other.body.error).toBe('NOT_FOUND');
    const bad = await app.call('GET', '/api/organizations/xyz', { token: a.access });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('BAD_REQUEST');
  });

  test("lists only the caller's organizations", async () => {
    const a = await member(app, 'OWNER');
    const second = await makeOrganization(app, [{ person: a, role: 'VIEWER' }]);
    await makeOrganization(app);
    const res = await app.call('GET', '/api/organizations', { token: a.access });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
    expect(res.body.data.map((o: { id: string }) => o.id).sort()).toEqual([a.org.id, second.id].sort());
    const page = await app.call('GET', '/api/organizations?int_max_results=1&int_current_page=3', { token: a.access });
    expect(page.body).toEqual({ data: [], meta: { int_current_page: 3, int_max_results: 1, int_total_results: 2, int_total_pages: 2 } });
  });

  test('search by name without accents, within the caller only', async () => {
    const a = await member(app, 'OWNER');
    const tag = randomUUID().slice(0, 8);
    const em = app.service.orm.em.fork();
    const mine = await makeOrganization(app, [{ person: a, role: 'OWNER' }]);
    await em.nativeUpdate(Organization, { id: mine.id }, { str_name: `Agropecuária São João ${tag}` });
    const theirs = await makeOrganization(app);
    await em.nativeUpdate(Organization, { id: theirs.id }, { str_name: `Agropecuária São João ${tag}` });
    const res = await app.call('POST', '/api/organizations/search', { token: a.access, body: { str_query: `agropecuaria sao joao ${tag}` } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([mine.id]);
    const unknown = await app.call('POST', '/api/organizations/search', { token: a.access, body: { str_city: 'x' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.accepted_keys).toEqual(expect.arrayContaining(['str_name', 'str_document', 'str_query']));
  });
});

describe('PUT/PATCH /api/organizations/{id}', () => {
  test.each([
    ['PUT', 'OWNER'],
    ['PATCH', 'MANAGER'],
  ] as const)('%s by an %s: 200', async (method, role) => {
    const caller = await member(app, role);
    const name = uniqueName();
    const res = await app.call(method, `/api/organizations/${caller.org.id}`, { token: caller.access, body: { str_name: name } });
    expect(res.status).toBe(200);
    expect(res.body.data.str_name).toBe(name);
    expect(res.body.data.str_document).toBe(caller.org.str_document);
    expect(await countOrgs({ id: caller.org.id, str_name: name })).toBe(1);
  });

  test('an OPERATOR: 403, nothing changed', async () => {
    const caller = await member(app, 'OPERATOR');
    const res = await app.call('PATCH', `/api/organizations/${caller.org.id}`, { token: caller.access, body: { str_name: 'Renamed' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await countOrgs({ id: caller.org.id, str_name: caller.org.str_name })).toBe(1);
  });

  test('an outsider: 404, nothing changed', async () => {
    const outsider = await member(app, 'OWNER');
    const target = await member(app, 'OWNER');
    for (const method of ['PUT', 'PATCH']) {
      const res = await app.call(method, `/api/organizations/${target.org.id}`, { token: outsider.access, body: { str_name: 'Renamed' } });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    expect(await countOrgs({ id: target.org.id, str_name: target.org.str_name })).toBe(1);
  });

  test('an invalid or taken document: 422, nothing changed', async () => {
    const owner = await member(app, 'OWNER');
    const other = await makeOrganization(app);
    const invalid = await app.call('PATCH', `/api/organizations/${owner.org.id}`, { token: owner.access, body: { str_document: '11.111.111/1111-11' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(invalid.body.detail.fields)).toEqual(['str_document']);
    const taken = await app.call('PATCH', `/api/organizations/${owner.org.id}`, { token: owner.access, body: { str_document: other.str_document } });
    expect(taken.status).toBe(422);
    expect(taken.body.error).toBe('CONFLICT');
    expect(Object.keys(taken.body.detail.fields)).toEqual(['str_document']);
    expect(await countOrgs({ id: owner.org.id, str_document: owner.org.str_document })).toBe(1);
  });
});

describe('members', () => {
  test('GET /members is paged and carries each user', async () => {
    const owner = await member(app, 'OWNER');
    const others = [await addMember(owner.org, 'MANAGER'), await addMember(owner.org, 'VIEWER')];
    const res = await app.call('GET', `/api/organizations/${owner.org.id}/members`, { token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 3, int_total_pages: 1 });
    const byUser = new Map(res.body.data.map((m: { user_id: string }) => [m.user_id, m]));
    expect([...byUser.keys()].sort()).toEqual([owner.user.id, ...others.map((o) => o.user.id)].sort());
    const mgr = byUser.get(others[0]!.user.id) as Record<string, any>;
    expect(mgr.organization_id).toBe(owner.org.id);
    expect(mgr.str_role).toBe('MANAGER');
    expect(mgr.user.id).toBe(others[0]!.user.id);
    expect(mgr.user.str_email).toBe(others[0]!.email);
    expect(mgr.ts_created_at).toMatch(ISO_Z);
    const seen: string[] = [];
    for (const p of [1, 2]) {
      const page = await app.call('GET', `/api/organizations/${owner.org.id}/members?int_max_results=2&int_current_page=${p}`, { token: owner.access });
      expect(page.status).toBe(200);
      expect(page.body.meta).toEqual({ int_current_page: p, int_max_results: 2, int_total_results: 3, int_total_pages: 2 });
      seen.push(...page.body.data.map((m: { user_id: string }) => m.user_id));
    }
    expect(new Set(seen).size).toBe(3);
    const bad = await app.call('GET', `/api/organizations/${owner.org.id}/members?int_max_results=0`, { token: owner.access });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields)).toEqual(['int_max_results']);
  });

  test('a VIEWER reads the members', async () => {
    const viewer = await member(app, 'VIEWER');
    const res = await app.call('GET', `/api/organizations/${viewer.org.id}/members`, { token: viewer.access });
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([viewer.user.id]);
  });

  test('POST /members adds one (201); adding it again: 422 CONFLICT', async () => {
    const manager = await member(app, 'MANAGER');
    const newcomer = await makeUser(app);
    const res = await app.call('POST', `/api/organizations/${manager.org.id}/members`, { token: manager.access, body: { user_id: newcomer.user.id, str_role: 'OPERATOR' } });
    expect(res.status).toBe(201);
    expect(res.body.data.user_id).toBe(newcomer.user.id);
    expect(res.body.data.organization_id).toBe(manager.org.id);
    expect(res.body.data.str_role).toBe('OPERATOR');
    expect(res.body.data.user.id).toBe(newcomer.user.id);
    expect(await roleIn(manager.org.id, newcomer.user.id)).toBe('OPERATOR');
    // now a member: visible as a user of the organization
    expect((await app.call('GET', `/api/users/${newcomer.user.id}`, { token: manager.access })).status).toBe(200);
    const again = await app.call('POST', `/api/organizations/${manager.org.id}/members`, { token: manager.access, body: { user_id: newcomer.user.id, str_role: 'VIEWER' } });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('CONFLICT');
    expect(Object.keys(again.body.detail.fields)).toEqual(['user_id']);
    expect(await roleIn(manager.org.id, newcomer.user.id)).toBe('OPERATOR');
  });

  test('concurrent adds of one user: one 201, the others 422 CONFLICT naming user_id', async () => {
    const owner = await member(app, 'OWNER');
    const newcomer = await makeUser(app);
    const replies = await Promise.all(
      [0, 1, 2, 3].map(() => app.call('POST', `/api/organizations/${owner.org.id}/members`, { token: owner.access, body: { user_id: newcomer.user.id, str_role: 'VIEWER' } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    for (const r of replies.filter((x) => x.status !== 201)) expect(r.body).toEqual({ error: 'CONFLICT', detail: { fields: { user_id: ['is already a member'] } } });
    expect(await roleIn(owner.org.id, newcomer.user.id)).toBe('VIEWER');
  });

  test('the SQL statements of a members page do not grow with its size (2 vs 20)', async () => {
    const small = await member(app, 'OWNER');
    await addMember(small.org, 'VIEWER');
    const large = await member(app, 'OWNER');
    for (let i = 0; i < 19; i++) await addMember(large.org, 'VIEWER');
    const a = await app.call('GET', `/api/organizations/${small.org.id}/members`, { token: small.access });
    const b = await app.call('GET', `/api/organizations/${large.org.id}/members`, { token: large.access });
    expect(a.body.data).toHaveLength(2);
    expect(b.body.data).toHaveLength(20);
    expect(b.body.data.every((m: { user: { id: string } }) => typeof m.user.id === 'string')).toBe(true);
    expect(a.sql).toBeGreaterThan(0);
    expect(b.sql).toBe(a.sql);
  });

  test('POST /members with a bad body: 422 naming the field; unknown user: 404', async () => {
    const owner = await member(app, 'OWNER');
    const newcomer = await makeUser(app);
    const noRole = await app.call('POST', `/api/organizations/${owner.org.id}/members`, { token: owner.access, body: { user_id: newcomer.user.id } });
    expect(noRole.status).toBe(422);
    expect(Object.keys(noRole.body.detail.fields)).toEqual(['str_role']);
    const badRole = await app.call('POST', `/api/organizations/${owner.org.id}/members`, { token: owner.access, body: { user_id: newcomer.user.id, str_role: 'EMPEROR' } });
    expect(badRole.status).toBe(422);
    expect(Object.keys(badRole.body.detail.fields)).toEqual(['str_role']);
    const noUser = await app.call('POST', `/api/organizations/${owner.org.id}/members`, { token: owner.access, body: { str_role: 'VIEWER' } });
    expect(noUser.status).toBe(422);
    expect(Object.keys(noUser.body.detail.fields)).toEqual(['user_id']);
    const ghost = await app.call('POST', `/api/organizations/${owner.org.id}/members`, { token: owner.access, body: { user_id: randomUUID(), str_role: 'VIEWER' } });
    expect(ghost.status).toBe(404);
    expect(ghost.body.error).toBe('NOT_FOUND');
    expect(await roleIn(owner.org.id, newcomer.user.id)).toBeNull();
  });

  test('a MANAGER granting OWNER: 403, nothing written; an OWNER may', async () => {
    const manager = await member(app, 'MANAGER');
    const newcomer = await makeUser(app);
    const res = await app.call('POST', `/api/organizations/${manager.org.id}/members`, { token: manager.access, body: { user_id: newcomer.user.id, str_role: 'OWNER' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await roleIn(manager.org.id, newcomer.user.id)).toBeNull();
    const owner = await member(app, 'OWNER', manager.org);
    const ok = await app.call('POST', `/api/organizations/${manager.org.id}/members`, { token: owner.access, body: { user_id: newcomer.user.id, str_role: 'OWNER' } });
    expect(ok.status).toBe(201);
    expect(await roleIn(manager.org.id, newcomer.user.id)).toBe('OWNER');
  });

  test('an OPERATOR may not add members: 403', async () => {
    const operator = await member(app, 'OPERATOR');
    const newcomer = await makeUser(app);
    const res = await app.call('POST', `/api/organizations/${operator.org.id}/members`, { token: operator.access, body: { user_id: newcomer.user.id, str_role: 'VIEWER' } });
    expect(res.status).toBe(403);
    expect(await roleIn(operator.org.id, newcomer.user.id)).toBeNull();
  });

  test('PATCH /members/{user_id} changes the role; a MANAGER may not promote to OWNER', async () => {
    const owner = await member(app, 'OWNER');
    const target = await addMember(owner.org, 'VIEWER');
    const res = await app.call('PATCH', `/api/organizations/${owner.org.id}/members/${target.user.id}`, { token: owner.access, body: { str_role: 'MANAGER' } });
    expect(res.status).toBe(200);
    expect(res.body.data.str_role).toBe('MANAGER');
    expect(res.body.data.user_id).toBe(target.user.id);
    expect(await roleIn(owner.org.id, target.user.id)).toBe('MANAGER');
    const manager = await member(app, 'MANAGER', owner.org);
    const promote = await app.call('PATCH', `/api/organizations/${owner.org.id}/members/${target.user.id}`, { token: manager.access, body: { str_role: 'OWNER' } });
    expect(promote.status).toBe(403);
    expect(await roleIn(owner.org.id, target.user.id)).toBe('MANAGER');
    const bad = await app.call('PATCH', `/api/organizations/${owner.org.id}/members/${target.user.id}`, { token: owner.access, body: { str_role: 'KING' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields)).toEqual(['str_role']);
    const notMember = await app.call('PATCH', `/api/organizations/${owner.org.id}/members/${randomUUID()}`, { token: owner.access, body: { str_role: 'VIEWER' } });
    expect(notMember.status).toBe(404);
  });

  test('DELETE /members/{user_id}: 204, then gone', async () => {
    const owner = await member(app, 'OWNER');
    const target = await addMember(owner.org, 'OPERATOR');
    const res = await app.call('DELETE', `/api/organizations/${owner.org.id}/members/${target.user.id}`, { token: owner.access });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await roleIn(owner.org.id, target.user.id)).toBeNull();
    const list = await app.call('GET', `/api/organizations/${owner.org.id}/members`, { token: owner.access });
    expect(list.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([owner.user.id]);
    expect((await app.call('GET', `/api/users/${target.user.id}`, { token: owner.access })).status).toBe(404);
    const again = await app.call('DELETE', `/api/organizations/${owner.org.id}/members/${target.user.id}`, { token: owner.access });
    expect(again.status).toBe(404);
  });

  test('demoting or removing the last OWNER: 422 RULE_VIOLATED, nothing changed', async () => {
    const owner = await member(app, 'OWNER');
    const demote = await app.call('PATCH', `/api/organizations/${owner.org.id}/members/${owner.user.id}`, { token: owner.access, body: { str_role: 'MANAGER' } });
    expect(demote.status).toBe(422);
    expect(demote.body.error).toBe('RULE_VIOLATED');
    expect(demote.body.detail.rule).toBe('ORGANIZATION_NEEDS_AN_OWNER');
    const remove = await app.call('DELETE', `/api/organizations/${owner.org.id}/members/${owner.user.id}`, { token: owner.access });
    expect(remove.status).toBe(422);
    expect(remove.body.error).toBe('RULE_VIOLATED');
    expect(await roleIn(owner.org.id, owner.user.id)).toBe('OWNER');
    // with a second owner, demoting the first is allowed
    const second = await addMember(owner.org, 'OWNER');
    const ok = await app.call('PATCH', `/api/organizations/${owner.org.id}/members/${second.user.id}`, { token: owner.access, body: { str_role: 'VIEWER' } });
    expect(ok.status).toBe(200);
    expect(await roleIn(owner.org.id, second.user.id)).toBe('VIEWER');
  });

  test('a MANAGER may not remove an OWNER: 403', async () => {
    const owner = await member(app, 'OWNER');
    await addMember(owner.org, 'OWNER');
    const manager = await member(app, 'MANAGER', owner.org);
    const res = await app.call('DELETE', `/api/organizations/${owner.org.id}/members/${owner.user.id}`, { token: manager.access });
    expect(res.status).toBe(403);
    expect(await roleIn(owner.org.id, owner.user.id)).toBe('OWNER');
  });

  test("every members endpoint on another organization: 404, nothing changed", async () => {
    const outsider = await member(app, 'OWNER');
    const target = await member(app, 'OWNER');
    const victim = await addMember(target.org, 'OPERATOR');
    const newcomer = await makeUser(app);
    const base = `/api/organizations/${target.org.id}/members`;
    const calls: [string, string, unknown][] = [
      ['GET', base, undefined],
      ['POST', base, { user_id: newcomer.user.id, str_role: 'VIEWER' }],
      ['POST', base, { user_id: outsider.user.id, str_role: 'OWNER' }],
      ['PATCH', `${base}/${victim.user.id}`, { str_role: 'VIEWER' }],
      ['DELETE', `${base}/${victim.user.id}`, undefined],
      ['DELETE', `${base}/${target.user.id}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await app.call(method, path, { token: outsider.access, body });
      expect({ method, path, status: res.status, error: res.body?.error }).toEqual({ method, path, status: 404, error: 'NOT_FOUND' });
    }
    expect(await roleIn(target.org.id, newcomer.user.id)).toBeNull();
    expect(await roleIn(target.org.id, outsider.user.id)).toBeNull();
    expect(await roleIn(target.org.id, victim.user.id)).toBe('OPERATOR');
    expect(await roleIn(target.org.id, target.user.id)).toBe('OWNER');
  });

  test('a non-uuid user_id in the path: 400', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.call('DELETE', `/api/organizations/${owner.org.id}/members/nope`, { token: owner.access });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('BAD_REQUEST');
  });
});

describe('GraphQL shares the core', () => {
  test('createOrganization then organization, and REST sees the same record', async () => {
    const caller = await loner();
    const doc = cnpj();
    const name = uniqueName();
    const created = await app.graphql('mutation($input: OrganizationCreateInput!) { createOrganization(input: $input) { id str_name str_document } }', { input: { str_name: name, str_document: formatCnpj(doc) } }, caller.access);
    expect(created.body.errors).toBeUndefined();
    const org = created.body.data.createOrganization;
    expect(org).toEqual({ id: expect.stringMatching(UUID_RE), str_name: name, str_document: doc });
    const read = await app.graphql('query($id: UUID!) { organization(id: $id) { id str_name } }', { id: org.id }, caller.access);
    expect(read.body.data.organization).toEqual({ id: org.id, str_name: name });
    const rest = await app.call('GET', `/api/organizations/${org.id}`, { token: caller.access });
    expect(rest.body.data.str_document).toBe(doc);
    const dup = await app.graphql('mutation($input: OrganizationCreateInput!) { createOrganization(input: $input) { id } }', { input: { str_name: uniqueName(), str_document: doc } }, caller.access);
    expect(dup.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(Object.keys(dup.body.errors[0].extensions.detail.fields)).toEqual(['str_document']);
  });
});

describe('tenancy', () => {
  test('a user of organization A neither sees nor changes organization B (REST and GraphQL)', async () => {
    const a = await member(app, 'OWNER');
    const b = await member(app, 'OWNER');
    const rest = await app.call('GET', `/api/organizations/${b.org.id}`, { token: a.access });
    expect(rest.status).toBe(404);
    const put = await app.call('PUT', `/api/organizations/${b.org.id}`, { token: a.access, body: { str_name: 'Taken Over' } });
    expect(put.status).toBe(404);
    const read = await app.graphql('query($id: UUID!) { organization(id: $id) { id } }', { id: b.org.id }, a.access);
    expect(read.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(read.body.data).toBeNull();
    const update = await app.graphql('mutation($id: UUID!) { updateOrganization(id: $id, input: { str_name: "Taken Over" }) { id } }', { id: b.org.id }, a.access);
    expect(update.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const members = await app.graphql('query($id: UUID!) { organizationMembers(id: $id) { data { user_id } } }', { id: b.org.id }, a.access);
    expect(members.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const add = await app.graphql('mutation($id: UUID!, $u: UUID!) { addOrganizationMember(id: $id, input: { user_id: $u, str_role: OWNER }) { id } }', { id: b.org.id, u: a.user.id }, a.access);
    expect(add.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const list = await app.graphql('{ organizations { data { id } } }', {}, a.access);
    expect(list.body.data.organizations.data).toEqual([{ id: a.org.id }]);
    expect(await countOrgs({ id: b.org.id, str_name: b.org.str_name })).toBe(1);
    expect(await roleIn(b.org.id, a.user.id)).toBeNull();
  });
});
