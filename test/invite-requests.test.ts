import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { ISO_Z, UUID_RE, unitCode, useCounty } from './helpers/places.js';
import { Invite } from '../src/access/invite.entity.js';
import { InviteRequest } from '../src/access/invite-request.entity.js';


const app = useApp();
const county = useCounty(app);

const db = () => app.service.orm.em.fork();
const KEYS = ['id', 'control_unit_id', 'control_unit', 'user', 'invite_id', 'str_movimentation_type', 'str_type', 'str_message', 'str_status', 'ts_decided_at', 'ts_created_at', 'ts_updated_at'].sort();

async function setup() {
  const owner = await member(app, 'OWNER');
  const requester = await member(app, 'OWNER');
  const e = await app.call('POST', '/api/establishments', { token: owner.access, body: { str_name: 'Fazenda', str_type: 'FARM', county_id: county.id } });
  const u = await app.call('POST', '/api/control-units', { token: owner.access, body: { establishment_id: e.body.data.id, str_code: unitCode(), str_name: 'Retiro', str_type: 'PRODUCTION' } });
  expect([e.status, u.status]).toEqual([201, 201]);
  return { owner, requester, establishmentId: e.body.data.id as string, unitId: u.body.data.id as string };
}

async function request(token: string, unitId: string, over: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/invite-requests', { token, body: { control_unit_id: unitId, str_movimentation_type: 'INGRESS', str_type: 'VIEWER', str_message: 'Please', ...over } });
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('invite requests', () => {
  it('a user asks (201) and the record carries its fields', async () => {
    const { requester, unitId } = await setup();
    const d = await request(requester.access, unitId);
    expect(Object.keys(d).sort()).toEqual(KEYS);
    expect(d.id).toMatch(UUID_RE);
    expect(d).toMatchObject({ control_unit_id: unitId, str_movimentation_type: 'INGRESS', str_type: 'VIEWER', str_message: 'Please', str_status: 'PENDING', invite_id: null, ts_decided_at: null });
    expect(d.user.id).toBe(requester.user.id);
    expect(d.control_unit.id).toBe(unitId);
    expect(d.ts_created_at).toMatch(ISO_Z);
  });

  it('refuses bad input with 422 naming the field, writing nothing', async () => {
    const { requester, unitId } = await setup();
    const base = { control_unit_id: unitId, str_movimentation_type: 'INGRESS', str_type: 'VIEWER' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, control_unit_id: undefined }, 'control_unit_id'],
      [{ ...base, str_movimentation_type: undefined }, 'str_movimentation_type'],
      [{ ...base, str_type: undefined }, 'str_type'],
      [{ ...base, str_movimentation_type: 'UP' }, 'str_movimentation_type'],
      [{ ...base, str_type: 'OWNER' }, 'str_type'],
      [{ ...base, control_unit_id: randomUUID() }, 'control_unit_id'],
    ];
    for (const [body, field] of cases) {
      const res = await app.call('POST', '/api/invite-requests', { token: requester.access, body });
      expect([res.status, res.body.error, Object.keys(res.body.detail?.fields ?? {})]).toEqual([422, 'VALIDATION_FAILED', [field]]);
    }
    expect(await db().count(InviteRequest, { control_unit_id: unitId })).toBe(0);
  });

  it("a type the unit's establishment does not accept is refused (422 naming str_movimentation_type)", async () => {
    const { owner, requester, establishmentId, unitId } = await setup();
    const set = await app.call('PATCH', `/api/establishments/${establishmentId}`, { token: owner.access, body: { lst_invite_movimentation_types: ['EGRESS'] } });
    expect(set.status).toBe(200);
    const res = await app.call('POST', '/api/invite-requests', { token: requester.access, body: { control_unit_id: unitId, str_movimentation_type: 'INGRESS', str_type: 'VIEWER' } });
    expect([res.status, res.body.error, res.body.detail.fields]).toEqual([422, 'VALIDATION_FAILED', { str_movimentation_type: ['the establishment accepts EGRESS'] }]);
    expect(await db().count(InviteRequest, { control_unit_id: unitId })).toBe(0);
    await request(requester.access, unitId, { str_movimentation_type: 'EGRESS' });
  });

  it('a client id makes the create idempotent', async () => {
    const { requester, unitId } = await setup();
    const id = randomUUID();
    const a = await request(requester.access, unitId, { id });
    const b = await request(requester.access, unitId, { id });
    expect([a.id, b.id]).toEqual([id, id]);
    const other = await app.call('POST', '/api/invite-requests', { token: requester.access, body: { id, control_unit_id: unitId, str_movimentation_type: 'EGRESS', str_type: 'VIEWER' } });
    expect([other.status, other.body.error]).toEqual([422, 'CONFLICT']);
    expect(await db().count(InviteRequest, { control_unit_id: unitId })).toBe(1);
  });

  it('the requester and the unit organization see it; others get 404; index and search list it', async () => {
    const { owner, requester, unitId } = await setup();
    const r = await request(requester.access, unitId);
    for (const token of [owner.access, requester.access]) {
      expect((await app.call('GET', `/api/invite-requests/${r.id}`, { token })).status).toBe(200);
      const list = await app.call('GET', '/api/invite-requests', { token, headers: {} });
      expect(list.body.data.map((x: { id: string }) => x.id)).toContain(r.id);
      const search = await app.call('POST', '/api/invite-requests/search', { token, body: { control_unit_id: unitId } });
      expect(search.body.data.map((x: { id: string }) => x.id)).toEqual([r.id]);
    }
    const stranger = await member(app, 'OWNER');
    const res = await app.call('GET', `/api/invite-requests/${r.id}`, { token: stranger.access });
    expect([res.status, res.body.error]).toEqual([404, 'NOT_FOUND']);
    const approve = await app.call('POST', `/api/invite-requests/${r.id}/approve`, { token: stranger.access });
    expect([approve.status, approve.body.error]).toEqual([404, 'NOT_FOUND']);
  });

  it('an owner approves: an accepted invite is created and the requester reads the unit', async () => {
    const { owner, requester, unitId, establishmentId } = await setup();
    const r = await request(requester.access, unitId);
    expect((await app.call('GET', `/api/control-units/${unitId}`, { token: requester.access })).status).toBe(404);
    const res = await app.call('POST', `/api/invite-requests/${r.id}/approve`, { token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body.data.str_status).toBe('APPROVED');
    expect(res.body.data.ts_decided_at).toMatch(ISO_Z);
    const invite = await db().findOneOrFail(Invite, { id: res.body.data.invite_id });
    expect([invite.user_id, invite.bl_accepted, invite.str_type, invite.str_movimentation_type]).toEqual([requester.user.id, true, 'VIEWER', 'INGRESS']);
    const read = await app.call('GET', `/api/invites/${invite.id}`, { token: requester.access });
    expect([read.status, read.body.data.bl_accepted]).toEqual([200, true]);
    expect((await app.call('GET', `/api/control-units/${unitId}`, { token: requester.access })).status).toBe(200);
    expect((await app.call('GET', `/api/establishments/${establishmentId}`, { token: requester.access })).status).toBe(200);
    for (const act of ['approve', 'deny', 'cancel']) {
      const again = await app.call('POST', `/api/invite-requests/${r.id}/${act}`, { token: act === 'cancel' ? requester.access : owner.access });
      expect([act, again.status, again.body.error]).toEqual([act, 422, 'INVALID_STATE']);
    }
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where str_record_type = 'InviteRequest' and record_id = ? order by seq`, [r.id]);
    expect(events.map((e) => e.str_type)).toEqual(['INVITE_REQUEST_CREATED', 'INVITE_REQUEST_APPROVED']);
  });

  it('deny: owners and managers only; the requester cannot decide; a denied request cannot be approved', async () => {
    const { owner, requester, unitId } = await setup();
    const r = await request(requester.access, unitId);
    const viewer = await member(app, 'VIEWER', owner.org);
    for (const token of [requester.access, viewer.access]) {
      for (const act of ['approve', 'deny']) {
        const res = await app.call('POST', `/api/invite-requests/${r.id}/${act}`, { token });
        expect([res.status, res.body.error]).toEqual([403, 'FORBIDDEN']);
      }
    }
    const manager = await member(app, 'MANAGER', owner.org);
    const denied = await app.call('POST', `/api/invite-requests/${r.id}/deny`, { token: manager.access });
    expect([denied.status, denied.body.data.str_status, denied.body.data.invite_id]).toEqual([200, 'DENIED', null]);
    const approve = await app.call('POST', `/api/invite-requests/${r.id}/approve`, { token: owner.access });
    expect([approve.status, approve.body.error]).toEqual([422, 'INVALID_STATE']);
    expect(await db().count(Invite, { control_unit_id: unitId })).toBe(0);
  });

  it('cancel: the requester only; then no decision', async () => {
    const { owner, requester, unitId } = await setup();
    const r = await request(requester.access, unitId);
    const refused = await app.call('POST', `/api/invite-requests/${r.id}/cancel`, { token: owner.access });
    expect([refused.status, refused.body.error]).toEqual([403, 'FORBIDDEN']);
    const cancelled = await app.call('POST', `/api/invite-requests/${r.id}/cancel`, { token: requester.access });
    expect([cancelled.status, cancelled.body.data.str_status]).toEqual([200, 'CANCELLED']);
    const approve = await app.call('POST', `/api/invite-requests/${r.id}/approve`, { token: owner.access });
    expect([approve.status, approve.body.error]).toEqual([422, 'INVALID_STATE']);
    expect(await db().count(Invite, { control_unit_id: unitId })).toBe(0);
  });

  it('the index runs the same number of statements for 2 and 20 requests', async () => {
    const { owner, unitId } = await setup();
    const people = await Promise.all(Array.from({ length: 20 }, () => member(app, 'OWNER')));
    for (const p of people.slice(0, 2)) await request(p.access, unitId);
    const two = await app.call('GET', '/api/invite-requests', { token: owner.access });
    expect(two.body.data).toHaveLength(2);
    for (const p of people.slice(2)) await request(p.access, unitId);
    const twenty = await app.call('GET', '/api/invite-requests', { token: owner.access });
    expect(twenty.body.data).toHaveLength(20);
    expect(twenty.sql).toBe(two.sql);
  });
});
