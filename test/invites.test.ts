import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { cpf, email, lastMail, login, makeUser, member, tokenIn, type Person, type Session } from './helpers/factories.js';
import { ISO_Z, UUID_RE, unitCode, useCounty } from './helpers/places.js';
import { Invite } from '../src/access/invite.entity.js';
import { User } from '../src/identity/user.entity.js';


const app = useApp();
const county = useCounty(app);

const db = () => app.service.orm.em.fork();
const invitesOfUnit = (unitId: string) => db().find(Invite, { control_unit_id: unitId });
/** Besides gta, there only when the invite is for a GTA (interface.md: optional, not nullable). */
const INVITE_KEYS = ['id', 'bl_accepted', 'bl_restricted', 'control_unit', 'user', 'str_movimentation_type', 'str_type', 'str_status', 'ts_expires_at', 'ts_created_at', 'ts_updated_at'].sort();
const future = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

async function place(token: string, over: Record<string, unknown> = {}): Promise<{ establishmentId: string; unitId: string }> {
  const e = await app.call('POST', '/api/establishments', { token, body: { str_name: 'Fazenda', str_type: 'FARM', county_id: county.id, ...over } });
  expect(e.status).toBe(201);
  const u = await app.call('POST', '/api/control-units', { token, body: { establishment_id: e.body.data.id, str_code: unitCode(), str_name: 'Retiro', str_type: 'PRODUCTION' } });
  expect(u.status).toBe(201);
  return { establishmentId: e.body.data.id, unitId: u.body.data.id };
}

async function setup() {
  const owner = await member(app, 'OWNER');
  const invitee = await member(app, 'OWNER');
  const p = await place(owner.access);
  return { owner, invitee, ...p };
}

async function invite(token: string, unitId: string, userId: string, over: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/invites', { token, body: { control_unit_id: unitId, user_id: userId, str_movimentation_type: 'BOTH', str_type: 'OPERATOR', ...over } });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** A GTA `issuer` (an owner of the origin's organization) issues from unit `from` to unit `to`. */
async function issue(issuer: Person & Session, from: string, to: string) {
  const gta = { str_code: String(Math.floor(Math.random() * 1e9)), int_animal_quantity: 5, str_purpose: 'FATTENING', from_control_unit_id: from, to_control_unit_id: to, ts_valid_until: future() };
  const res = await app.call('POST', '/api/gtas', { token: issuer.access, body: { gta, user_id: issuer.user.id } });
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('POST /api/invites', () => {
  it('creates an invite (201) with the record interface.md documents', async () => {
    const { owner, invitee, unitId } = await setup();
    const res = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'INGRESS', ts_expires_at: future() } });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(INVITE_KEYS);
    expect(d.id).toMatch(UUID_RE);
    expect(d.bl_accepted).toBe(false);
    expect(d.bl_restricted).toBe(false);
    expect(d.ts_created_at).toMatch(ISO_Z);
    expect(d.ts_updated_at).toMatch(ISO_Z);
    expect(d.ts_expires_at).toMatch(ISO_Z);
    expect(d.str_movimentation_type).toBe('INGRESS');
    expect(d.str_type).toBe('VIEWER');
    expect(d.str_status).toBe('PENDING');
    expect(d.user.id).toBe(invitee.user.id);
    expect(d.control_unit.id).toBe(unitId);
    expect(d.control_unit).not.toHaveProperty('establishment');
    expect(d.control_unit.establishment_id).toMatch(UUID_RE);
  });

  it('invites a new e-mail: registers the user and mails a confirm-registration code', async () => {
    const { owner, unitId } = await setup();
    const address = email('invitee');
    const doc = cpf();
    const res = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, str_movimentation_type: 'EGRESS', to_user: { str_email: address, str_name: 'Convidado', str_document: doc } } });
    expect(res.status).toBe(201);
    const user = await db().findOneOrFail(User, { str_email: address });
    expect(res.body.data.user.id).toBe(user.id);
    expect(user.str_document).toBe(doc);
    expect(user.password_hash).toBeNull();
    const mail = await lastMail(app, address);
    expect(mail?.str_subject).toBe('Confirm your registration');
    const token = tokenIn(mail);
    expect(token).not.toBe('');
    expect((await app.call('POST', '/api/confirm-registration', { body: { str_token: token, str_password: 'a new password 1' } })).status).toBe(204);
  });

  it('invites an existing user by e-mail without registering or mailing', async () => {
    const { owner, invitee, unitId } = await setup();
    const res = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, str_movimentation_type: 'EGRESS', to_user: { str_email: invitee.email.toUpperCase() } } });
    expect(res.status).toBe(201);
    expect(res.body.data.user.id).toBe(invitee.user.id);
    expect(await lastMail(app, invitee.email)).toBeNull();
  });

  it('refuses bad input with 422 naming each field, writing nothing', async () => {
    const { owner, invitee, unitId, establishmentId } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ user_id: invitee.user.id, str_movimentation_type: 'BOTH' }, 'control_unit_id'],
      [{ establishment_id: establishmentId, user_id: invitee.user.id, str_movimentation_type: 'BOTH' }, 'control_unit_id'],
      [{ control_unit_id: unitId, str_movimentation_type: 'BOTH' }, 'user_id'],
      [{ control_unit_id: unitId, user_id: invitee.user.id }, 'str_movimentation_type'],
      [{ control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'SIDEWAYS' }, 'str_movimentation_type'],
      [{ control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', str_type: 'OWNER' }, 'str_type'],
      [{ control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', bl_restricted: true }, 'gta_id'],
      [{ control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', ts_expires_at: 'tomorrow' }, 'ts_expires_at'],
      [{ control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', ts_expires_at: '2001-01-01T00:00:00Z' }, 'ts_expires_at'],
      [{ control_unit_id: unitId, user_id: 'nope', str_movimentation_type: 'BOTH' }, 'user_id'],
      [{ control_unit_id: unitId, user_id: randomUUID(), str_movimentation_type: 'BOTH' }, 'user_id'],
      [{ control_unit_id: unitId, str_movimentation_type: 'BOTH', to_user: { str_name: 'x' } }, 'to_user.str_email'],
      [{ control_unit_id: unitId, str_movimentation_type: 'BOTH', to_user: { str_email: email() } }, 'to_user.str_document'],
      [{ control_unit_id: randomUUID(), user_id: invitee.user.id, str_movimentation_type: 'BOTH' }, 'control_unit_id'],
      [{ control_unit_id: unitId, establishment_id: randomUUID(), user_id: invitee.user.id, str_movimentation_type: 'BOTH' }, 'establishment_id'],
    ];
    for (const [body, field] of cases) {
      const res = await app.call('POST', '/api/invites', { token: owner.access, body });
      expect([res.status, res.body.error, Object.keys(res.body.detail?.fields ?? {})]).toEqual([422, 'VALIDATION_FAILED', expect.arrayContaining([field])]);
    }
    expect(await invitesOfUnit(unitId)).toHaveLength(0);
  });

  it("honours the establishment's lst_invite_movimentation_types", async () => {
    const owner = await member(app, 'OWNER');
    const invitee = await member(app, 'OWNER');
    const { unitId, establishmentId } = await place(owner.access);
    const set = await app.call('PATCH', `/api/establishments/${establishmentId}`, { token: owner.access, body: { lst_invite_movimentation_types: ['INGRESS'] } });
    expect([set.status, set.body.data.lst_invite_movimentation_types]).toEqual([200, ['INGRESS']]);
    for (const type of ['EGRESS', 'BOTH']) {
      const bad = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: type } });
      expect([bad.status, bad.body.error, bad.body.detail.fields]).toEqual([422, 'VALIDATION_FAILED', { str_movimentation_type: ['the establishment accepts INGRESS'] }]);
    }
    expect(await invitesOfUnit(unitId)).toHaveLength(0);
    await invite(owner.access, unitId, invitee.user.id, { str_movimentation_type: 'INGRESS' });
    // null lifts the restriction
    await app.call('PATCH', `/api/establishments/${establishmentId}`, { token: owner.access, body: { lst_invite_movimentation_types: null } });
    await invite(owner.access, unitId, (await member(app, 'OWNER')).user.id, { str_movimentation_type: 'EGRESS' });
  });

  it('only owners and managers of the unit organization invite; other organizations get 422 (unit not visible)', async () => {
    const { owner, invitee, unitId } = await setup();
    const viewer = await member(app, 'VIEWER', owner.org);
    const r1 = await app.call('POST', '/api/invites', { token: viewer.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH' } });
    expect([r1.status, r1.body.error]).toEqual([403, 'FORBIDDEN']);
    const manager = await member(app, 'MANAGER', owner.org);
    await invite(manager.access, unitId, invitee.user.id);
    const stranger = await member(app, 'OWNER');
    const r2 = await app.call('POST', '/api/invites', { token: stranger.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH' } });
    expect([r2.status, r2.body.error, Object.keys(r2.body.detail.fields)]).toEqual([422, 'VALIDATION_FAILED', ['control_unit_id']]);
    expect(await invitesOfUnit(unitId)).toHaveLength(1);
  });

  it('a client id makes the create idempotent; another body with it is a CONFLICT', async () => {
    const { owner, invitee, unitId } = await setup();
    const id = randomUUID();
    const body = { id, control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH' };
    const first = await app.call('POST', '/api/invites', { token: owner.access, body });
    const again = await app.call('POST', '/api/invites', { token: owner.access, body });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.data.id).toBe(id);
    expect(again.body.data.ts_created_at).toBe(first.body.data.ts_created_at);
    const other = await app.call('POST', '/api/invites', { token: owner.access, body: { ...body, str_movimentation_type: 'INGRESS' } });
    expect([other.status, other.body.error, Object.keys(other.body.detail.fields)]).toEqual([422, 'CONFLICT', ['id']]);
    expect(await invitesOfUnit(unitId)).toHaveLength(1);
  });
});

describe('reading invites', () => {
  it('the author organization and the invitee see it; others get 404', async () => {
    const { owner, invitee, unitId } = await setup();
    const inv = await invite(owner.access, unitId, invitee.user.id);
    const viewer = await member(app, 'VIEWER', owner.org);
    for (const token of [owner.access, invitee.access, viewer.access]) {
      const res = await app.call('GET', `/api/invites/${inv.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(inv.id);
    }
    const stranger = await member(app, 'OWNER');
    const res = await app.call('GET', `/api/invites/${inv.id}`, { token: stranger.access });
    expect([res.status, res.body.error]).toEqual([404, 'NOT_FOUND']);
    const list = await app.call('GET', '/api/invites', { token: stranger.access });
    expect(list.body.data.map((i: { id: string }) => i.id)).not.toContain(inv.id);
    for (const token of [owner.access, invitee.access]) {
      const search = await app.call('POST', '/api/invites/search', { token, body: { control_unit_id: unitId } });
      expect(search.status).toBe(200);
      expect(search.body.data.map((i: { id: string }) => i.id)).toEqual([inv.id]);
    }
  });

  it('the index runs the same number of statements for 2 and 20 invites, each with its GTA', async () => {
    const owner = await member(app, 'OWNER');
    const { unitId } = await place(owner.access);
    const neighbour = await member(app, 'OWNER');
    const { unitId: theirUnit } = await place(neighbour.access);
    const people = await Promise.all(Array.from({ length: 20 }, () => member(app, 'OWNER')));
    const gtaIds: string[] = [];
    const inviteWithGta = async (p: Person) => {
      const gta = await issue(owner, unitId, theirUnit);
      gtaIds.push(gta.id);
      await invite(owner.access, unitId, p.user.id, { gta_id: gta.id });
    };
    for (const p of people.slice(0, 2)) await inviteWithGta(p);
    const two = await app.call('GET', '/api/invites', { token: owner.access });
    expect(two.body.data).toHaveLength(2);
    for (const p of people.slice(2)) await inviteWithGta(p);
    const twenty = await app.call('GET', '/api/invites', { token: owner.access });
    expect(twenty.body.data.map((i: { gta: { id: string } }) => i.gta.id).sort()).toEqual(gtaIds.sort());
    expect(twenty.sql).toBe(two.sql);
  });
});

describe('PUT/PATCH /api/invites/:id', () => {
  it('the invitee accepts; then reads the unit and its establishment read-only (404 before)', async () => {
    const { owner, invitee, unitId, establishmentId } = await setup();
    const inv = await invite(owner.access, unitId, invitee.user.id);
    expect((await app.call('GET', `/api/control-units/${unitId}`, { token: invitee.access })).status).toBe(404);
    expect((await app.call('GET', `/api/establishments/${establishmentId}`, { token: invitee.access })).status).toBe(404);
    const res = await app.call('PATCH', `/api/invites/${inv.id}`, { token: invitee.access, body: { bl_accepted: true } });
    expect(res.status).toBe(200);
    expect(res.body.data.bl_accepted).toBe(true);
    expect(res.body.data.str_status).toBe('ACCEPTED');
    expect((await app.call('GET', `/api/control-units/${unitId}`, { token: invitee.access })).status).toBe(200);
    const est = await app.call('GET', `/api/establishments/${establishmentId}`, { token: invitee.access });
    expect(est.status).toBe(200);
    const list = await app.call('GET', '/api/establishments', { token: invitee.access });
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(establishmentId);
    const write = await app.call('PATCH', `/api/establishments/${establishmentId}`, { token: invitee.access, body: { str_name: 'Mine now' } });
    expect([write.status, write.body.error]).toEqual([403, 'FORBIDDEN']);
    // a sibling unit stays hidden
    const sibling = await app.call('POST', '/api/control-units', { token: owner.access, body: { establishment_id: establishmentId, str_code: unitCode(), str_name: 'Outro', str_type: 'PRODUCTION' } });
    expect((await app.call('GET', `/api/control-units/${sibling.body.data.id}`, { token: invitee.access })).status).toBe(404);
    // accepted: no more changes
    const again = await app.call('PUT', `/api/invites/${inv.id}`, { token: owner.access, body: { str_type: 'VIEWER' } });
    expect([again.status, again.body.error]).toEqual([422, 'INVALID_STATE']);
    // revoking ends the access
    const revoked = await app.call('POST', `/api/invites/${inv.id}/revoke`, { token: owner.access });
    expect([revoked.status, revoked.body.data.str_status]).toEqual([200, 'REVOKED']);
    expect((await app.call('GET', `/api/control-units/${unitId}`, { token: invitee.access })).status).toBe(404);
    expect((await app.call('GET', `/api/establishments/${establishmentId}`, { token: invitee.access })).status).toBe(404);
  });

  it("an invitee sees its unit among the establishment's units, not the siblings, and who answers for the unit only once accepted", async () => {
    const { owner, invitee, unitId, establishmentId } = await setup();
    await db().execute('update control_unit set responsible_user_id = ? where id = ?', [owner.user.id, unitId]);
    const sibling = await app.call('POST', '/api/control-units', { token: owner.access, body: { establishment_id: establishmentId, str_code: unitCode(), str_name: 'Outro', str_type: 'PRODUCTION', responsible_user_id: owner.user.id } });
    expect(sibling.status).toBe(201);
    const inv = await invite(owner.access, unitId, invitee.user.id);
    const pending = await app.call('GET', `/api/invites/${inv.id}`, { token: invitee.access });
    expect(pending.body.data.control_unit).toMatchObject({ id: unitId, establishment_id: establishmentId });
    expect(pending.body.data.control_unit).not.toHaveProperty('responsible_user');
    expect((await app.call('PATCH', `/api/invites/${inv.id}`, { token: invitee.access, body: { bl_accepted: true } })).status).toBe(200);
    const accepted = await app.call('GET', `/api/invites/${inv.id}`, { token: invitee.access });
    expect(accepted.body.data.control_unit.responsible_user.id).toBe(owner.user.id);

    const query = 'query($id: UUID!) { establishment(id: $id) { control_units { id responsible_user { id } establishment { id } } } }';
    const asInvitee = await app.graphql(query, { id: establishmentId }, invitee.access);
    expect(asInvitee.body.errors).toBeUndefined();
    expect(asInvitee.body.data.establishment.control_units).toEqual([{ id: unitId, responsible_user: { id: owner.user.id }, establishment: { id: establishmentId } }]);
    const read = await app.call('GET', `/api/establishments/${establishmentId}`, { token: invitee.access });
    expect(read.body.data.control_units.map((u: { id: string }) => u.id)).toEqual([unitId]);
    const index = await app.call('GET', '/api/establishments', { token: invitee.access });
    expect(index.body.data.find((e: { id: string }) => e.id === establishmentId).control_units.map((u: { id: string }) => u.id)).toEqual([unitId]);

    const asOwner = await app.graphql(query, { id: establishmentId }, owner.access);
    expect(asOwner.body.data.establishment.control_units.map((u: { id: string }) => u.id).sort()).toEqual([unitId, sibling.body.data.id].sort());
    expect(asOwner.body.data.establishment.control_units.every((u: { responsible_user: { id: string } }) => u.responsible_user.id === owner.user.id)).toBe(true);
  });

  it('the author changes the other fields while PENDING (PUT and PATCH)', async () => {
    const { owner, invitee, unitId } = await setup();
    const other = await member(app, 'OWNER');
    const inv = await invite(owner.access, unitId, invitee.user.id);
    const expires = future();
    // gta_id naming no GTA is refused (CONTRACT.md's body-id rule; test/body-ids.test.ts).
    const unknown = await app.call('PUT', `/api/invites/${inv.id}`, { token: owner.access, body: { bl_restricted: true, gta_id: randomUUID(), str_movimentation_type: 'EGRESS' } });
    expect([unknown.status, unknown.body.detail]).toEqual([422, { fields: { gta_id: ['no such GTA'] } }]);
    const { unitId: theirUnit } = await place(other.access);
    const gtaId = (await issue(owner, unitId, theirUnit)).id;
    const put = await app.call('PUT', `/api/invites/${inv.id}`, { token: owner.access, body: { bl_restricted: true, gta_id: gtaId, str_movimentation_type: 'EGRESS', str_type: 'VIEWER', ts_expires_at: expires } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ bl_restricted: true, str_movimentation_type: 'EGRESS', str_type: 'VIEWER', ts_expires_at: new Date(expires).toISOString(), bl_accepted: false });
    const stored = await db().findOneOrFail(Invite, { id: inv.id });
    expect(stored.gta_id).toBe(gtaId);
    const patch = await app.call('PATCH', `/api/invites/${inv.id}`, { token: owner.access, body: { user_id: other.user.id } });
    expect([patch.status, patch.body.data.user.id]).toEqual([200, other.user.id]);
  });

  it('refuses what the caller may not change with 403, bad values with 422, strangers with 404', async () => {
    const { owner, invitee, unitId } = await setup();
    const inv = await invite(owner.access, unitId, invitee.user.id);
    const cases: [string, Record<string, unknown>, number, string][] = [
      [owner.access, { bl_accepted: true }, 403, 'FORBIDDEN'],
      [invitee.access, { str_type: 'VIEWER' }, 403, 'FORBIDDEN'],
      [invitee.access, { bl_accepted: true, ts_expires_at: future() }, 403, 'FORBIDDEN'],
      [(await member(app, 'VIEWER', owner.org)).access, { str_type: 'VIEWER' }, 403, 'FORBIDDEN'],
      [(await member(app, 'OWNER')).access, { str_type: 'VIEWER' }, 404, 'NOT_FOUND'],
      [owner.access, { str_type: 'BOSS' }, 422, 'VALIDATION_FAILED'],
      [owner.access, { bl_restricted: true }, 422, 'VALIDATION_FAILED'],
      [invitee.access, { bl_accepted: false }, 422, 'VALIDATION_FAILED'],
    ];
    for (const [token, body, status, code] of cases) {
      const res = await app.call('PATCH', `/api/invites/${inv.id}`, { token, body });
      expect([res.status, res.body.error]).toEqual([status, code]);
    }
    const stored = await db().findOneOrFail(Invite, { id: inv.id });
    expect([stored.bl_accepted, stored.str_type, stored.bl_restricted]).toEqual([false, 'OPERATOR', false]);
    const bad = await app.call('PATCH', `/api/invites/not-a-uuid`, { token: owner.access, body: { str_type: 'VIEWER' } });
    expect(bad.status).toBe(400);
  });

  it('an expired invite cannot be accepted (422 INVALID_STATE)', async () => {
    const { owner, invitee, unitId, establishmentId } = await setup();
    const inv = await invite(owner.access, unitId, invitee.user.id);
    await db().execute(`update invite set ts_expires_at = now() - interval '1 hour' where id = ?`, [inv.id]);
    const read = await app.call('GET', `/api/invites/${inv.id}`, { token: invitee.access });
    expect(read.body.data.str_status).toBe('EXPIRED');
    const res = await app.call('PATCH', `/api/invites/${inv.id}`, { token: invitee.access, body: { bl_accepted: true } });
    expect([res.status, res.body.error]).toEqual([422, 'INVALID_STATE']);
    expect((await db().findOneOrFail(Invite, { id: inv.id })).bl_accepted).toBe(false);
    // an accepted invite that expires stops granting access
    const inv2 = await invite(owner.access, unitId, invitee.user.id);
    expect((await app.call('PATCH', `/api/invites/${inv2.id}`, { token: invitee.access, body: { bl_accepted: true } })).status).toBe(200);
    expect((await app.call('GET', `/api/establishments/${establishmentId}`, { token: invitee.access })).status).toBe(200);
    await db().execute(`update invite set ts_expires_at = now() - interval '1 hour' where id = ?`, [inv2.id]);
    expect((await app.call('GET', `/api/establishments/${establishmentId}`, { token: invitee.access })).status).toBe(404);
  });
});

describe('revoking', () => {
  it('the author revokes (POST /revoke or DELETE); the invitee cannot; a revoked invite cannot be accepted', async () => {
    const { owner, invitee, unitId } = await setup();
    const inv = await invite(owner.access, unitId, invitee.user.id);
    const refused = await app.call('POST', `/api/invites/${inv.id}/revoke`, { token: invitee.access });
    expect([refused.status, refused.body.error]).toEqual([403, 'FORBIDDEN']);
    const del = await app.call('DELETE', `/api/invites/${inv.id}`, { token: owner.access });
    expect(del.status).toBe(204);
    expect((await db().findOneOrFail(Invite, { id: inv.id })).ts_revoked_at).not.toBeNull();
    const twice = await app.call('POST', `/api/invites/${inv.id}/revoke`, { token: owner.access });
    expect([twice.status, twice.body.error]).toEqual([422, 'INVALID_STATE']);
    const accept = await app.call('PATCH', `/api/invites/${inv.id}`, { token: invitee.access, body: { bl_accepted: true } });
    expect([accept.status, accept.body.error]).toEqual([422, 'INVALID_STATE']);
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where str_record_type = 'Invite' and record_id = ? order by seq`, [inv.id]);
    expect(events.map((e) => e.str_type)).toEqual(['INVITE_CREATED', 'INVITE_REVOKED']);
  });
});

describe('the GTA an invite is for', () => {
  /** A GTA as read by someone who may not see its responsible user's CPF (CONTRACT.md, Accounts) compared with its issuer's read. */
  const sameGta = (seen: { responsible_user?: Record<string, unknown> | null }, issued: { responsible_user?: Record<string, unknown> | null }) => {
    const blind = (g: typeof seen) => ({ ...g, responsible_user: g.responsible_user ? { ...g.responsible_user, str_document: '<not compared>' } : g.responsible_user });
    expect(blind(seen)).toEqual(blind(issued));
  };
  const query = 'query($id: UUID!) { invite(id: $id) { gta_id gta { id str_code } } }';

  it("is shown to the author and the invitee when the author's organization issued or receives it, though the invitee cannot read that GTA itself", async () => {
    const { owner, invitee, unitId } = await setup();
    const neighbour = await member(app, 'OWNER');
    const { unitId: theirUnit } = await place(neighbour.access);
    const issued = await issue(owner, unitId, theirUnit);
    const received = await issue(neighbour, theirUnit, unitId);
    const invites: string[] = [];
    for (const gta of [issued, received]) {
      const inv = await invite(owner.access, unitId, invitee.user.id, { gta_id: gta.id, bl_restricted: true });
      invites.push(inv.id);
      sameGta(inv.gta, gta);
      expect((await app.call('GET', `/api/gtas/${gta.id}`, { token: invitee.access })).status).toBe(404);
      for (const token of [owner.access, invitee.access]) {
        sameGta((await app.call('GET', `/api/invites/${inv.id}`, { token })).body.data.gta, gta);
        const gql = await app.graphql(query, { id: inv.id }, token);
        expect(gql.body).toEqual({ data: { invite: { gta_id: gta.id, gta: { id: gta.id, str_code: gta.str_code } } } });
      }
    }
    const list = await app.call('GET', '/api/invites', { token: invitee.access });
    expect(list.body.data.map((i: { id: string; gta: { id: string } }) => [i.id, i.gta.id]).sort()).toEqual([[invites[0], issued.id], [invites[1], received.id]].sort());
  });

  it("a GTA the author's organization is not party to stays hidden (absent over REST, null over GraphQL) unless the caller sees it", async () => {
    const { owner, invitee, unitId } = await setup();
    const [a, b] = [await member(app, 'OWNER'), await member(app, 'OWNER')];
    const foreign = await issue(a, (await place(a.access)).unitId, (await place(b.access)).unitId);
    // The author may not name it: "no such GTA", exactly as an unknown id (CONTRACT.md's body-id rule).
    const named = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', gta_id: foreign.id } });
    const unknown = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', gta_id: randomUUID() } });
    expect([named.status, named.body]).toEqual([422, { error: 'VALIDATION_FAILED', detail: { fields: { gta_id: ['no such GTA'] } } }]);
    expect(unknown.body).toEqual(named.body);
    // An administrator sees every GTA and may; the invite's readers still see nothing of it.
    const admin = await login(app, await makeUser(app, { admin: true }));
    const inv = await invite(admin.access, unitId, invitee.user.id, { gta_id: foreign.id });
    for (const token of [owner.access, invitee.access]) {
      const read = await app.call('GET', `/api/invites/${inv.id}`, { token });
      expect([read.status, read.body.data.id]).toEqual([200, inv.id]);
      expect(read.body.data).not.toHaveProperty('gta');
      const gql = await app.graphql(query, { id: inv.id }, token);
      expect(gql.body).toEqual({ data: { invite: { gta_id: foreign.id, gta: null } } });
    }
    expect((await app.call('GET', `/api/invites/${inv.id}`, { token: admin.access })).body.data.gta).toEqual(foreign);
  });
});
