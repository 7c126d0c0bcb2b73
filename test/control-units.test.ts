import { randomUUID } from 'node:crypto';
import { useApp, type Reply } from './helpers/app.js';
import { member, official } from './helpers/factories.js';
import { ISO_Z, UUID_RE, unitCode, useCounty } from './helpers/places.js';
import type { Role } from '../src/identity/membership.entity.js';
import type { Organization } from '../src/identity/organization.entity.js';
import type { UserType } from '../src/identity/user.entity.js';
import { ControlUnit } from '../src/places/control-unit.entity.js';


const app = useApp();
const county = useCounty(app);

/** Besides responsible_user, there only when the unit has one (interface.md: optional, not nullable). */
const UNIT_KEYS = ['id', 'establishment', 'str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'ts_created_at', 'ts_updated_at'].sort();
const REQUIRED = ['establishment_id', 'str_code', 'str_name', 'str_type'];

const db = () => app.service.orm.em.fork();
const unitsOf = (establishmentId: string) => db().find(ControlUnit, { establishment_id: establishmentId });

async function establishment(token: string): Promise<{ id: string }> {
  const res = await app.call('POST', '/api/establishments', { token, body: { str_name: 'Fazenda', str_type: 'FARM', county_id: county.id } });
  expect(res.status).toBe(201);
  return res.body.data;
}

function body(establishmentId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { establishment_id: establishmentId, str_code: unitCode(), str_name: 'Retiro Norte', str_type: 'PRODUCTION', ...over };
}

const addMember = (org: Organization, role: Role, type: UserType = 'PRODUCER') => member(app, role, org, type);

function expectUnitShape(u: Record<string, any>) {
  expect(Object.keys(u).filter((k) => k !== 'responsible_user').sort()).toEqual(UNIT_KEYS);
  if ('responsible_user' in u) expect(u.responsible_user.id).toMatch(UUID_RE);
  expect(u.id).toMatch(UUID_RE);
  expect(u.ts_created_at).toMatch(ISO_Z);
  expect(u.ts_updated_at).toMatch(ISO_Z);
  for (const f of ['str_code', 'str_name', 'str_type']) expect(typeof u[f]).toBe('string');
  expect(u.establishment.id).toMatch(UUID_RE);
  expect(Array.isArray(u.establishment.control_units)).toBe(true);
}

describe('POST /api/control-units', () => {
  test('creates it (201) in an establishment of the active organization; the establishment lists it', async () => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const id = randomUUID();
    const sent = body(e.id, { id, str_predominant_phase: 'FATTENING', str_predominant_system: 'SEMI_INTENSIVE', responsible_user_id: owner.user.id });
    const res = await app.call('POST', '/api/control-units', { token: owner.access, body: sent });
    expect(res.status).toBe(201);
    const u = res.body.data;
    expectUnitShape(u);
    expect(u).toMatchObject({ id, str_code: sent.str_code, str_name: 'Retiro Norte', str_type: 'PRODUCTION', str_predominant_phase: 'FATTENING', str_predominant_system: 'SEMI_INTENSIVE' });
    expect(u.responsible_user.id).toBe(owner.user.id);
    expect(u.establishment.id).toBe(e.id);
    expect(u.establishment.control_units.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(u.establishment.control_units[0].establishment_id).toBe(e.id);

    const read = await app.call('GET', `/api/control-units/${id}`, { token: owner.access });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(u);
    const v1 = await app.call('GET', `/api/v1/control-units/${id}`, { token: owner.access });
    expect(v1.body.data).toEqual(u);
    const est = await app.call('GET', `/api/establishments/${e.id}`, { token: owner.access });
    expect(est.body.data.control_units.map((c: { id: string }) => c.id)).toEqual([id]);
  });

  test('minimal body under /api/v1: nullable fields null', async () => {
    const owner = await member(app, 'MANAGER');
    const e = await establishment(owner.access);
    const res = await app.call('POST', '/api/v1/control-units', { token: owner.access, body: body(e.id, { str_type: 'TAG_STOCK' }) });
    expect(res.status).toBe(201);
    expectUnitShape(res.body.data);
    expect(res.body.data).toMatchObject({ str_type: 'TAG_STOCK', str_predominant_phase: null, str_predominant_system: null });
    expect(res.body.data).not.toHaveProperty('responsible_user');
  });

  test.each(REQUIRED)('missing %s: 422 naming it, nothing written', async (field) => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const sent = body(e.id);
    delete sent[field];
    const res = await app.call('POST', '/api/control-units', { token: owner.access, body: sent });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'VALIDATION_FAILED', detail: { fields: { [field]: ['is required'] } } });
    expect(await unitsOf(e.id)).toHaveLength(0);
  });

  test.each([
    ['str_type', { str_type: 'BARN' }],
    ['str_predominant_phase', { str_predominant_phase: 'SLEEPING' }],
    ['str_predominant_system', { str_predominant_system: 'ORBITAL' }],
    ['establishment_id', { establishment_id: 'nope' }],
    ['establishment_id', { establishment_id: randomUUID() }],
    ['responsible_user_id', { responsible_user_id: randomUUID() }],
    ['str_name', { str_name: '   ' }],
  ])('%s broken: 422 naming it, nothing written', async (field, over) => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const res = await app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id, over) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
    expect(await unitsOf(e.id)).toHaveLength(0);
  });

  test('a taken str_code: 422 CONFLICT naming it, on create and update', async () => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const code = unitCode();
    const first = await app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id, { str_code: code }) });
    expect(first.status).toBe(201);
    const dup = await app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id, { str_code: code }) });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({ error: 'CONFLICT', detail: { fields: { str_code: ['is already taken'] } } });
    const second = await app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id) });
    const upd = await app.call('PATCH', `/api/control-units/${second.body.data.id}`, { token: owner.access, body: { str_code: code } });
    expect(upd.status).toBe(422);
    expect(upd.body.error).toBe('CONFLICT');
    expect(Object.keys(upd.body.detail.fields)).toEqual(['str_code']);
    expect(await unitsOf(e.id)).toHaveLength(2);
  });

  test('into another organization\'s establishment: 422 naming establishment_id (it is invisible), nothing written', async () => {
    const owner = await member(app, 'OWNER');
    const stranger = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const res = await app.call('POST', '/api/control-units', { token: stranger.access, body: body(e.id) });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields)).toEqual(['establishment_id']);
    expect(await unitsOf(e.id)).toHaveLength(0);
  });

  test('a VIEWER or OPERATOR may not create (403); nothing written', async () => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const m = await addMember(owner.org, role);
      const res = await app.call('POST', '/api/control-units', { token: m.access, body: body(e.id) });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
    }
    expect(await unitsOf(e.id)).toHaveLength(0);
  });

  test('a client id replayed with the same body returns the same unit; with another body it is a CONFLICT', async () => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const sent = body(e.id, { id: randomUUID() });
    const first = await app.call('POST', '/api/control-units', { token: owner.access, body: sent });
    const again = await app.call('POST', '/api/control-units', { token: owner.access, body: sent });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    const changed = await app.call('POST', '/api/control-units', { token: owner.access, body: { ...sent, str_name: 'Outro' } });
    expect(changed.status).toBe(422);
    expect(changed.body.error).toBe('CONFLICT');
    expect(await unitsOf(e.id)).toHaveLength(1);
  });

  test('a SUSPENDED establishment still gets units; an INACTIVE one is refused with 422 INVALID_STATE naming its status, nothing written', async () => {
    const owner = await member(app, 'OWNER');
    const authority = await official(app, county.id);
    const e = await establishment(owner.access);
    const setStatus = async (str_status: string) => {
      const res = await app.call('PATCH', `/api/establishments/${e.id}`, { token: authority.access, body: { str_status } });
      expect([res.status, res.body.data?.str_status]).toEqual([200, str_status]);
    };
    await setStatus('SUSPENDED');
    const early = body(e.id, { id: randomUUID() });
    expect((await app.call('POST', '/api/control-units', { token: owner.access, body: early })).status).toBe(201);
    await setStatus('ACTIVE');
    await setStatus('INACTIVE');
    for (const path of ['/api/control-units', '/api/v1/control-units']) {
      const res = await app.call('POST', path, { token: owner.access, body: body(e.id) });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'INVALID_STATE', detail: { field: 'str_status', str_status: 'INACTIVE', allowed: ['ACTIVE', 'SUSPENDED'], message: expect.any(String) } });
    }
    expect(await unitsOf(e.id)).toHaveLength(1);
    // A retry of a create that happened before is still answered by its replay.
    const replay = await app.call('POST', '/api/control-units', { token: owner.access, body: early });
    expect([replay.status, replay.body.data.id]).toEqual([201, early.id]);
  });

  test('a unit added while the establishment is being made INACTIVE waits for that change and is refused', async () => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    let post: Promise<Reply> | undefined;
    await db().transactional(async (tx) => {
      await tx.execute(`update establishment set str_status = 'INACTIVE' where id = ?`, [e.id]);
      post = app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id) });
      await Promise.race([post, new Promise((resolve) => setTimeout(resolve, 500))]);
    });
    const res = await post!;
    expect([res.status, res.body.error, res.body.detail?.str_status]).toEqual([422, 'INVALID_STATE', 'INACTIVE']);
    expect(await unitsOf(e.id)).toHaveLength(0);
  });
});

describe('read, update, index, search', () => {
  test('PUT and PATCH change it; a VIEWER gets 403 and nothing changes', async () => {
    const owner = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const created = await app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id) });
    const id = created.body.data.id;
    const put = await app.call('PUT', `/api/control-units/${id}`, { token: owner.access, body: { str_name: 'Retiro Sul', str_type: 'QUARANTINE' } });
    expect(put.status).toBe(200);
    expectUnitShape(put.body.data);
    expect(put.body.data).toMatchObject({ str_name: 'Retiro Sul', str_type: 'QUARANTINE' });
    const patch = await app.call('PATCH', `/api/v1/control-units/${id}`, { token: owner.access, body: { str_predominant_system: 'INTENSIVE' } });
    expect(patch.status).toBe(200);
    expect(patch.body.data).toMatchObject({ str_name: 'Retiro Sul', str_predominant_system: 'INTENSIVE' });
    const bad = await app.call('PATCH', `/api/control-units/${id}`, { token: owner.access, body: { str_type: 'BARN' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields)).toEqual(['str_type']);

    const viewer = await addMember(owner.org, 'VIEWER');
    expect((await app.call('GET', `/api/control-units/${id}`, { token: viewer.access })).status).toBe(200);
    const denied = await app.call('PATCH', `/api/control-units/${id}`, { token: viewer.access, body: { str_name: 'Viewer' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('FORBIDDEN');
    const [row] = await unitsOf(e.id);
    expect(row!.str_name).toBe('Retiro Sul');
  });

  test("another organization's unit: 404 on read and update, nothing changed", async () => {
    const owner = await member(app, 'OWNER');
    const stranger = await member(app, 'OWNER');
    const e = await establishment(owner.access);
    const created = await app.call('POST', '/api/control-units', { token: owner.access, body: body(e.id) });
    const id = created.body.data.id;
    for (const base of ['/api', '/api/v1']) {
      const read = await app.call('GET', `${base}/control-units/${id}`, { token: stranger.access });
      expect(read.status).toBe(404);
      expect(read.body.error).toBe('NOT_FOUND');
      for (const method of ['PUT', 'PATCH']) expect((await app.call(method, `${base}/control-units/${id}`, { token: stranger.access, body: { str_name: 'X' } })).status).toBe(404);
    }
    const [row] = await unitsOf(e.id);
    expect(row!.str_name).toBe('Retiro Norte');
  });

  test('index and search list only the units of visible establishments', async () => {
    const owner = await member(app, 'OWNER');
    const stranger = await member(app, 'OWNER');
    const mine = await establishment(owner.access);
    const theirs = await establishment(stranger.access);
    const a = await app.call('POST', '/api/control-units', { token: owner.access, body: body(mine.id, { str_name: 'Alfa' }) });
    await app.call('POST', '/api/control-units', { token: owner.access, body: body(mine.id, { str_name: 'Beta', str_type: 'EVENT' }) });
    await app.call('POST', '/api/control-units', { token: stranger.access, body: body(theirs.id) });
    for (const path of ['/api/control-units', '/api/v1/control-units']) {
      const index = await app.call('GET', path, { token: owner.access });
      expect(index.status).toBe(200);
      expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
      for (const u of index.body.data) expectUnitShape(u);
    }
    const search = await app.call('POST', '/api/control-units/search', { token: owner.access, body: { str_query: 'alf' } });
    expect(search.status).toBe(200);
    expect(search.body.data.map((u: { id: string }) => u.id)).toEqual([a.body.data.id]);
    const byType = await app.call('POST', '/api/v1/control-units/search', { token: owner.access, body: { str_type: 'EVENT' } });
    expect(byType.body.data.map((u: { str_name: string }) => u.str_name)).toEqual(['Beta']);
    const unknown = await app.call('POST', '/api/control-units/search', { token: owner.access, body: { colour: 'red' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.fields).toEqual({ colour: ['is not a known filter'] });
  });
});
