import { randomInt, randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { login, makeOrganization, makeUser, member, type Person } from './helpers/factories.js';
import { Membership, type Role } from '../src/identity/membership.entity.js';
import type { Organization } from '../src/identity/organization.entity.js';
import { Vehicle } from '../src/transit/vehicle.entity.js';
import { renavamCheckDigit } from '../src/transit/vehicle.rules.js';


const app = useApp();

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const letter = () => LETTERS[randomInt(26)]!;
const digit = () => String(randomInt(10));

/** A random plate in the old form (AAA9999) and its Mercosul form (5th digit 0-9 → A-J). Plates are unique across the shared database. */
function plate(): { old: string; mercosul: string } {
  const head = letter() + letter() + letter() + digit();
  const fifth = randomInt(10);
  const tail = digit() + digit();
  return { old: `${head}${fifth}${tail}`, mercosul: `${head}${LETTERS[fifth]}${tail}` };
}

function renavam(): string {
  const prefix = Array.from({ length: 10 }, digit).join('');
  return prefix + renavamCheckDigit(prefix);
}

const REQUIRED = ['str_brand', 'str_color', 'str_fuel', 'str_last_registration', 'str_license_plate', 'str_model', 'str_renavam_number', 'str_type', 'str_year_of_manufacture'];
const RECORD_KEYS = ['id', 'owner', 'str_brand', 'str_color', 'str_fuel', 'str_last_registration', 'str_license_plate', 'str_model', 'str_renavam_number', 'str_trailer_plate', 'str_type', 'str_year_of_manufacture', 'ts_created_at', 'ts_updated_at'].sort();

function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    str_brand: 'Volvo',
    str_color: 'Branco',
    str_fuel: 'DIESEL',
    str_last_registration: '2024',
    str_license_plate: plate().mercosul,
    str_model: 'FH 540',
    str_renavam_number: renavam(),
    str_type: 'TRUCK',
    str_year_of_manufacture: '2019',
    ...over,
  };
}

async function create(token: string, over: Record<string, unknown> = {}) {
  const sent = body(over);
  const res = await app.call('POST', '/api/vehicles', { token, body: sent });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return { sent, vehicle: res.body.data };
}

/** Rows stored, read straight from the database. */
const rowsWhere = (where: Record<string, unknown>) => app.service.orm.em.fork().find(Vehicle, where as never);
const events = (recordId: string) =>
  app.service.orm.em.fork().execute<{ str_type: string; actor_id: string; str_payload: string }[]>(`select str_type, actor_id, str_payload from event where str_record_type = 'Vehicle' and record_id = ? order by seq`, [recordId]);

async function addMember(org: Organization, role: Role): Promise<Person> {
  const p = await makeUser(app);
  const em = app.service.orm.em.fork();
  await em.persist(em.create(Membership, { user_id: p.user.id, organization_id: org.id, str_role: role })).flush();
  return p;
}

describe('POST /api/vehicles', () => {
  test('creates it (201) in the active organization, every field as sent, the owner as a User', async () => {
    const caller = await member(app, 'OWNER');
    const owner = await addMember(caller.org, 'VIEWER');
    const p = plate();
    const trailer = plate();
    const clientId = randomUUID();
    const sent = body({ id: clientId, str_license_plate: p.mercosul, str_trailer_plate: trailer.mercosul, owner_id: owner.user.id, lt_path: 'fleet.north.truck7' });
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    expect(res.status).toBe(201);
    const v = res.body.data;
    expect(Object.keys(v).sort()).toEqual(RECORD_KEYS);
    expect(v.id).toBe(clientId);
    for (const f of REQUIRED) expect({ f, value: v[f] }).toEqual({ f, value: sent[f] });
    expect(v.str_trailer_plate).toBe(trailer.mercosul);
    expect(v.owner.id).toBe(owner.user.id);
    expect(v.owner.str_email).toBe(owner.email);
    expect(v.owner.organizations).toEqual([{ id: caller.org.id, str_name: caller.org.str_name, str_role: 'VIEWER' }]);
    expect(v.ts_created_at).toMatch(ISO_Z);
    expect(v.ts_updated_at).toMatch(ISO_Z);

    const read = await app.call('GET', `/api/vehicles/${v.id}`, { token: caller.access });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(v);

    const [row] = await rowsWhere({ id: clientId });
    expect(row!.organization_id).toBe(caller.org.id);
    expect(row!.owner_id).toBe(owner.user.id);
    expect(row!.lt_path).toBe('fleet.north.truck7');
    expect(row!.ts_unsafe_client_created_at).toBeNull();
    const log = await events(clientId);
    expect(log.map((e) => e.str_type)).toEqual(['VEHICLE_CREATED']);
    expect(log[0]!.actor_id).toBe(caller.user.id);
  });

  test('without id, owner and optional fields: a server id, no owner, a null trailer plate; the device clock is stored as given', async () => {
    const caller = await member(app, 'OPERATOR');
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ ts_unsafe_client_created_at: '2020-01-02T03:04:05.000Z' }) });
    expect(res.status).toBe(201);
    expect(res.body.data.id).toMatch(UUID_RE);
    expect(Object.keys(res.body.data).sort()).toEqual(RECORD_KEYS.filter((k) => k !== 'owner'));
    expect(res.body.data.str_trailer_plate).toBeNull();
    const [row] = await rowsWhere({ id: res.body.data.id });
    expect(row!.ts_unsafe_client_created_at!.toISOString()).toBe('2020-01-02T03:04:05.000Z');
    expect(row!.lt_path).toBeNull();
  });

  test.each(REQUIRED)('missing %s: 422 naming it, nothing written', async (field) => {
    const caller = await member(app, 'OWNER');
    const sent = body();
    delete sent[field];
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(res.body.detail.fields).toEqual({ [field]: ['is required'] });
    expect(await rowsWhere({ organization_id: caller.org.id })).toHaveLength(0);
  });

  test.each(REQUIRED)('blank %s: 422 naming it', async (field) => {
    const caller = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ [field]: '  ' }) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
    expect(await rowsWhere({ organization_id: caller.org.id })).toHaveLength(0);
  });

  test('every required field missing at once: each one named', async () => {
    const caller = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: {} });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields).sort()).toEqual([...REQUIRED].sort());
  });

  test.each([
    ['str_license_plate', 'AB12345'],
    ['str_license_plate', 'ABC12345'],
    ['str_license_plate', 'ABCD123'],
    ['str_license_plate', 'ABC1CC4'],
    ['str_trailer_plate', '123ABCD'],
    ['str_renavam_number', '12345678901'],
    ['str_renavam_number', '1234567'],
    ['str_renavam_number', '1234567890X'],
    ['owner_id', 'not-a-uuid'],
  ])('%s %p: 422 naming it, nothing written', async (field, value) => {
    const caller = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ [field]: value }) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
    expect(await rowsWhere({ organization_id: caller.org.id })).toHaveLength(0);
  });

  test('a RENAVAM with a wrong check digit is refused, the right one accepted', async () => {
    const caller = await member(app, 'OWNER');
    const good = renavam();
    const bad = good.slice(0, 10) + ((Number(good[10]) + 1) % 10);
    const refused = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ str_renavam_number: bad }) });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.detail.fields)).toEqual(['str_renavam_number']);
    const { vehicle } = await create(caller.access, { str_renavam_number: good });
    expect(vehicle.str_renavam_number).toBe(good);
  });

  test('a 9-digit RENAVAM is stored left-padded to 11 digits', async () => {
    const caller = await member(app, 'OWNER');
    const prefix = '000' + Array.from({ length: 7 }, digit).join('');
    const full = prefix + renavamCheckDigit(prefix);
    const { vehicle } = await create(caller.access, { str_renavam_number: full.slice(2) });
    expect(vehicle.str_renavam_number).toBe(full);
  });

  test('an old-form plate (with hyphen, lower case) is stored in the Mercosul form; the other form of it is then taken (422 CONFLICT), in any organization', async () => {
    const caller = await member(app, 'OWNER');
    const p = plate();
    const { vehicle } = await create(caller.access, { str_license_plate: `${p.old.slice(0, 3).toLowerCase()}-${p.old.slice(3)}`, str_trailer_plate: plate().old });
    expect(vehicle.str_license_plate).toBe(p.mercosul);
    expect(vehicle.str_trailer_plate).toMatch(/^[A-Z]{3}\d[A-Z]\d{2}$/);
    for (const [token, form] of [
      [caller.access, p.mercosul],
      [caller.access, p.old],
      [(await member(app, 'OWNER')).access, p.mercosul],
    ] as const) {
      const sent = body({ str_license_plate: form });
      const res = await app.call('POST', '/api/vehicles', { token, body: sent });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('CONFLICT');
      expect(res.body.detail.fields).toEqual({ str_license_plate: ['is already taken'] });
      expect(await rowsWhere({ str_renavam_number: sent.str_renavam_number })).toHaveLength(0);
    }
    expect(await rowsWhere({ str_license_plate: p.mercosul })).toHaveLength(1);
  });

  test('a Mercosul plate first, then the old form of it: 422 CONFLICT', async () => {
    const caller = await member(app, 'OWNER');
    const p = plate();
    await create(caller.access, { str_license_plate: p.mercosul });
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ str_license_plate: p.old }) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_license_plate']);
  });

  test('a RENAVAM already registered: 422 CONFLICT naming it', async () => {
    const caller = await member(app, 'OWNER');
    const r = renavam();
    await create(caller.access, { str_renavam_number: r });
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ str_renavam_number: r }) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_renavam_number']);
    expect(await rowsWhere({ str_renavam_number: r })).toHaveLength(1);
  });

  test('replay: the same id and body again answers 201 with the stored record and writes nothing', async () => {
    const caller = await member(app, 'OPERATOR');
    const id = randomUUID();
    const p = plate();
    const sent = body({ id, str_license_plate: p.old, ts_unsafe_client_created_at: '2024-05-06T07:08:09.000Z' });
    const first = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    expect(first.status).toBe(201);
    const again = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    // The same vehicle written the other way (Mercosul plate) is the same body once normalized.
    const mercosul = await app.call('POST', '/api/vehicles', { token: caller.access, body: { ...sent, str_license_plate: p.mercosul } });
    expect(mercosul.status).toBe(201);
    expect(mercosul.body.data).toEqual(first.body.data);
    expect(await rowsWhere({ organization_id: caller.org.id })).toHaveLength(1);
    expect((await events(id)).map((e) => e.str_type)).toEqual(['VEHICLE_CREATED']);
  });

  test('replay after an update answers what the first create answered (CONTRACT.md: the stored response, status and all)', async () => {
    const caller = await member(app, 'OWNER');
    const id = randomUUID();
    const sent = body({ id });
    const first = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    const updated = await app.call('PATCH', `/api/vehicles/${id}`, { token: caller.access, body: { str_color: 'Azul' } });
    expect(updated.status).toBe(200);
    const again = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.body.data.str_color).toBe(sent.str_color);
    expect(await rowsWhere({ organization_id: caller.org.id })).toHaveLength(1);
  });

  test('the same id with another body: 422 CONFLICT naming id, the stored vehicle unchanged', async () => {
    const caller = await member(app, 'OWNER');
    const id = randomUUID();
    const sent = body({ id });
    await create(caller.access, sent);
    for (const other of [{ ...sent, str_color: 'Vermelho' }, { ...sent, lt_path: 'x.y' }, { id, ...body() }]) {
      const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: other });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('CONFLICT');
      expect(Object.keys(res.body.detail.fields)).toEqual(['id']);
    }
    const rows = await rowsWhere({ organization_id: caller.org.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.str_color).toBe(sent.str_color);
    expect(rows[0]!.lt_path).toBeNull();
  });

  test('an id taken by a vehicle of another organization: 422 CONFLICT, nothing revealed or written', async () => {
    const a = await member(app, 'OWNER');
    const b = await member(app, 'OWNER');
    const id = randomUUID();
    const sent = body({ id });
    await create(a.access, sent);
    const res = await app.call('POST', '/api/vehicles', { token: b.access, body: sent });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(res.body.detail.fields.id).toBeDefined();
    expect(JSON.stringify(res.body)).not.toContain(String(sent.str_license_plate));
    expect(await rowsWhere({ organization_id: b.org.id })).toHaveLength(0);
  });

  test('an id of a deleted vehicle is not reused: the retried create answers what it first answered, another body is a 422 CONFLICT, nothing is written', async () => {
    const caller = await member(app, 'OWNER');
    const id = randomUUID();
    const sent = body({ id });
    const { vehicle } = await create(caller.access, sent);
    expect((await app.call('DELETE', `/api/vehicles/${id}`, { token: caller.access })).status).toBe(204);
    const retried = await app.call('POST', '/api/vehicles', { token: caller.access, body: sent });
    expect({ status: retried.status, data: retried.body.data }).toEqual({ status: 201, data: vehicle });
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: { ...sent, str_color: 'Vermelho' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(await rowsWhere({ id })).toHaveLength(0);
  });

  test('owner_id of a user the caller cannot see: 422 naming owner_id, nothing written', async () => {
    const caller = await member(app, 'OWNER');
    const stranger = await member(app, 'OWNER');
    for (const ownerId of [stranger.user.id, randomUUID()]) {
      const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ owner_id: ownerId }) });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('VALIDATION_FAILED');
      expect(Object.keys(res.body.detail.fields)).toEqual(['owner_id']);
    }
    expect(await rowsWhere({ organization_id: caller.org.id })).toHaveLength(0);
  });

  test('VIEWER: 403, nothing written', async () => {
    const viewer = await member(app, 'VIEWER');
    const sent = body();
    const res = await app.call('POST', '/api/vehicles', { token: viewer.access, body: sent });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await rowsWhere({ str_license_plate: sent.str_license_plate })).toHaveLength(0);
  });

  test('no active organization: 403, nothing written', async () => {
    const p = await makeUser(app);
    await makeOrganization(app, [{ person: p, role: 'OWNER' }]);
    const token = (await login(app, p)).access;
    const sent = body();
    const res = await app.call('POST', '/api/vehicles', { token, body: sent });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await rowsWhere({ str_license_plate: sent.str_license_plate })).toHaveLength(0);
  });

  test('without a token: 401', async () => {
    const res = await app.call('POST', '/api/vehicles', { body: body() });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHENTICATED');
  });

  test('unknown body fields are ignored and named in a Warning header', async () => {
    const caller = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/vehicles', { token: caller.access, body: body({ str_chassis: '9BW' }) });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('str_chassis');
  });
});

describe('POST /api/vehicles/search and GET /api/vehicles', () => {
  test('a plate filter matches in either form; the index takes it as a query parameter', async () => {
    const caller = await member(app, 'VIEWER');
    const owner = await member(app, 'OWNER', caller.org);
    const p = plate();
    const { vehicle } = await create(owner.access, { str_license_plate: p.old });
    await create(owner.access);
    for (const form of [p.old, p.mercosul, `${p.old.slice(0, 3).toLowerCase()}-${p.old.slice(3)}`]) {
      const res = await app.call('POST', '/api/vehicles/search', { token: caller.access, body: { str_license_plate: form } });
      expect(res.status).toBe(200);
      expect(res.body.data.map((v: { id: string }) => v.id)).toEqual([vehicle.id]);
      expect(res.body.data[0]).toEqual(vehicle);
      const index = await app.call('GET', `/api/vehicles?str_license_plate=${encodeURIComponent(form)}`, { token: caller.access });
      expect(index.status).toBe(200);
      expect(index.body.data.map((v: { id: string }) => v.id)).toEqual([vehicle.id]);
    }
    const all = await app.call('GET', '/api/vehicles', { token: caller.access });
    expect(all.body.meta.int_total_results).toBe(2);
    const query = await app.call('POST', '/api/vehicles/search', { token: caller.access, body: { str_query: p.mercosul.slice(2, 6).toLowerCase() } });
    expect(query.body.data.map((v: { id: string }) => v.id)).toContain(vehicle.id);
  });

  test('pagination meta, newest first, a page past the end empty with true totals', async () => {
    const caller = await member(app, 'OWNER');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(caller.access)).vehicle.id);
    const p1 = await app.call('POST', '/api/vehicles/search?int_current_page=1&int_max_results=2', { token: caller.access, body: {} });
    expect(p1.status).toBe(200);
    expect(p1.body.meta).toEqual({ int_current_page: 1, int_max_results: 2, int_total_results: 3, int_total_pages: 2 });
    const p2 = await app.call('POST', '/api/vehicles/search?int_current_page=2&int_max_results=2', { token: caller.access });
    expect(p2.body.meta).toEqual({ int_current_page: 2, int_max_results: 2, int_total_results: 3, int_total_pages: 2 });
    expect([...p1.body.data, ...p2.body.data].map((v: { id: string }) => v.id)).toEqual([...ids].reverse());
    const p3 = await app.call('POST', '/api/vehicles/search?int_current_page=3&int_max_results=2', { token: caller.access });
    expect(p3.body).toEqual({ data: [], meta: { int_current_page: 3, int_max_results: 2, int_total_results: 3, int_total_pages: 2 } });
    const defaults = await app.call('GET', '/api/vehicles', { token: caller.access });
    expect(defaults.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 3, int_total_pages: 1 });
    const bad = await app.call('POST', '/api/vehicles/search?int_max_results=501', { token: caller.access });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields)).toEqual(['int_max_results']);
  });

  test('an unknown filter is a 422 naming it and listing the accepted keys', async () => {
    const caller = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/vehicles/search', { token: caller.access, body: { str_chassis: 'x' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_chassis']);
    expect(res.body.detail.accepted_keys).toEqual(expect.arrayContaining(['str_license_plate', 'str_renavam_number', 'str_query']));
  });

  test('only the active organization is searched; another organization sees none of them', async () => {
    const a = await member(app, 'OWNER');
    const b = await member(app, 'OWNER');
    const { vehicle } = await create(a.access);
    const res = await app.call('POST', '/api/vehicles/search', { token: b.access, body: { str_license_plate: vehicle.str_license_plate } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], meta: { int_current_page: 1, int_max_results: 50, int_total_results: 0, int_total_pages: 0 } });
    expect((await app.call('GET', '/api/vehicles', { token: b.access })).body.meta.int_total_results).toBe(0);
  });

  test('the SQL statements of a page with owners do not grow with its size (2 vehicles vs 20)', async () => {
    async function orgWith(n: number) {
      const caller = await member(app, 'OWNER');
      const em = app.service.orm.em.fork();
      for (let i = 0; i < n; i++) {
        const owner = await addMember(caller.org, 'OPERATOR');
        em.persist(em.create(Vehicle, { organization_id: caller.org.id, owner_id: owner.user.id, str_license_plate: plate().mercosul, str_renavam_number: renavam(), str_brand: 'Scania' }));
      }
      await em.flush();
      return caller;
    }
    const small = await orgWith(2);
    const large = await orgWith(20);
    const a = await app.call('POST', '/api/vehicles/search', { token: small.access, body: {} });
    const b = await app.call('POST', '/api/vehicles/search', { token: large.access, body: {} });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.data).toHaveLength(2);
    expect(b.body.data).toHaveLength(20);
    expect(b.body.data.every((v: { owner: { organizations: unknown[] } | null }) => v.owner?.organizations.length === 1)).toBe(true);
    expect(Number.isInteger(a.sql)).toBe(true);
    expect(a.sql).toBeGreaterThan(0);
    expect(b.sql).toBe(a.sql);
  });
});

describe('GET, PUT, PATCH, DELETE /api/vehicles/:id', () => {
  test('another organization: 404 on read, update and delete, and nothing changes', async () => {
    const a = await member(app, 'OWNER');
    const b = await member(app, 'OWNER');
    const { vehicle } = await create(a.access);
    for (const [method, sent] of [['GET', undefined], ['PUT', { str_color: 'Preto' }], ['PATCH', { str_color: 'Preto' }], ['DELETE', undefined]] as const) {
      const res = await app.call(method, `/api/vehicles/${vehicle.id}`, { token: b.access, body: sent });
      expect({ method, status: res.status, error: res.body?.error }).toEqual({ method, status: 404, error: 'NOT_FOUND' });
    }
    const [row] = await rowsWhere({ id: vehicle.id });
    expect(row!.str_color).toBe(vehicle.str_color);
    expect((await events(vehicle.id)).map((e) => e.str_type)).toEqual(['VEHICLE_CREATED']);
  });

  test('an unknown id is a 404, a malformed one a 400', async () => {
    const caller = await member(app, 'OWNER');
    expect((await app.call('GET', `/api/vehicles/${randomUUID()}`, { token: caller.access })).status).toBe(404);
    const bad = await app.call('GET', '/api/vehicles/123', { token: caller.access });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('BAD_REQUEST');
  });

  test('a member of the organization without it active does not see its vehicles (404); with it active, does', async () => {
    const owner = await member(app, 'OWNER');
    const { vehicle } = await create(owner.access);
    const reset = await app.call('POST', '/api/reset-profile', { token: owner.access });
    expect(reset.status).toBe(200);
    const noActive = reset.body.data.str_access_token;
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: noActive })).status).toBe(404);
    const active = (await login(app, owner, owner.org.id)).access;
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: active })).status).toBe(200);
  });

  test('an administrator sees and changes any vehicle', async () => {
    const owner = await member(app, 'OWNER');
    const { vehicle } = await create(owner.access);
    const admin = (await login(app, await makeUser(app, { admin: true }))).access;
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: admin })).status).toBe(200);
    const res = await app.call('PATCH', `/api/vehicles/${vehicle.id}`, { token: admin, body: { str_color: 'Cinza' } });
    expect(res.status).toBe(200);
    expect(res.body.data.str_color).toBe('Cinza');
  });

  test('MANAGER updates (PUT and PATCH): plates normalized, owner set and cleared, event with the changes', async () => {
    const owner = await member(app, 'OWNER');
    const manager = await member(app, 'MANAGER', owner.org);
    const { vehicle } = await create(owner.access);
    const p = plate();
    const r = renavam();
    const put = await app.call('PUT', `/api/vehicles/${vehicle.id}`, { token: manager.access, body: { str_license_plate: p.old, str_renavam_number: r, owner_id: manager.user.id, str_trailer_plate: plate().old } });
    expect(put.status).toBe(200);
    expect(put.body.data.str_license_plate).toBe(p.mercosul);
    expect(put.body.data.str_renavam_number).toBe(r);
    expect(put.body.data.owner.id).toBe(manager.user.id);
    expect(put.body.data.str_brand).toBe(vehicle.str_brand);
    expect(put.body.data.ts_created_at).toBe(vehicle.ts_created_at);
    const patch = await app.call('PATCH', `/api/vehicles/${vehicle.id}`, { token: manager.access, body: { owner_id: null, str_trailer_plate: null, str_model: 'R 450' } });
    expect(patch.status).toBe(200);
    expect(patch.body.data).not.toHaveProperty('owner');
    expect(patch.body.data.str_trailer_plate).toBeNull();
    expect(patch.body.data.str_model).toBe('R 450');
    const log = await events(vehicle.id);
    expect(log.map((e) => e.str_type)).toEqual(['VEHICLE_CREATED', 'VEHICLE_UPDATED', 'VEHICLE_UPDATED']);
    expect(JSON.parse(log[1]!.str_payload).changes.str_license_plate).toBe(p.mercosul);
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: owner.access })).body.data).toEqual(patch.body.data);
  });

  test('update refusals: a taken plate (other form) is a CONFLICT, bad formats and emptied required fields name the field; nothing changes', async () => {
    const owner = await member(app, 'OWNER');
    const p = plate();
    await create(owner.access, { str_license_plate: p.mercosul });
    const { vehicle } = await create(owner.access);
    const taken = await app.call('PATCH', `/api/vehicles/${vehicle.id}`, { token: owner.access, body: { str_license_plate: p.old } });
    expect(taken.status).toBe(422);
    expect(taken.body.error).toBe('CONFLICT');
    expect(Object.keys(taken.body.detail.fields)).toEqual(['str_license_plate']);
    // Its own plate again (in the old form) is no conflict.
    for (const [field, value] of [['str_license_plate', 'XX1'], ['str_renavam_number', '00000000001'], ['str_brand', ''], ['str_model', null], ['owner_id', randomUUID()]] as const) {
      const res = await app.call('PATCH', `/api/vehicles/${vehicle.id}`, { token: owner.access, body: { [field]: value } });
      expect({ field, status: res.status, fields: Object.keys(res.body.detail.fields) }).toEqual({ field, status: 422, fields: [field] });
    }
    const [row] = await rowsWhere({ id: vehicle.id });
    expect(row!.str_license_plate).toBe(vehicle.str_license_plate);
    expect(row!.str_brand).toBe(vehicle.str_brand);
    expect(row!.str_model).toBe(vehicle.str_model);
    expect((await events(vehicle.id)).map((e) => e.str_type)).toEqual(['VEHICLE_CREATED']);
  });

  test('OPERATOR: registers (201) but may not update or delete (403), the vehicle unchanged', async () => {
    const owner = await member(app, 'OWNER');
    const operator = await member(app, 'OPERATOR', owner.org);
    const { vehicle } = await create(operator.access);
    const upd = await app.call('PATCH', `/api/vehicles/${vehicle.id}`, { token: operator.access, body: { str_color: 'Preto' } });
    expect(upd.status).toBe(403);
    expect(upd.body.error).toBe('FORBIDDEN');
    const del = await app.call('DELETE', `/api/vehicles/${vehicle.id}`, { token: operator.access });
    expect(del.status).toBe(403);
    expect(del.body.error).toBe('FORBIDDEN');
    const [row] = await rowsWhere({ id: vehicle.id });
    expect(row!.str_color).toBe(vehicle.str_color);
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: operator.access })).status).toBe(200);
  });

  test('VIEWER reads but may not update or delete (403)', async () => {
    const owner = await member(app, 'OWNER');
    const viewer = await member(app, 'VIEWER', owner.org);
    const { vehicle } = await create(owner.access);
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: viewer.access })).body.data).toEqual(vehicle);
    expect((await app.call('PUT', `/api/vehicles/${vehicle.id}`, { token: viewer.access, body: { str_color: 'Preto' } })).status).toBe(403);
    expect((await app.call('DELETE', `/api/vehicles/${vehicle.id}`, { token: viewer.access })).status).toBe(403);
    expect(await rowsWhere({ id: vehicle.id })).toHaveLength(1);
  });

  test('OWNER deletes: 204 without a body, then 404, the row gone, the event appended, the plate free again', async () => {
    const owner = await member(app, 'OWNER');
    const { vehicle } = await create(owner.access);
    const res = await app.call('DELETE', `/api/vehicles/${vehicle.id}`, { token: owner.access });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await app.call('GET', `/api/vehicles/${vehicle.id}`, { token: owner.access })).status).toBe(404);
    expect(await rowsWhere({ id: vehicle.id })).toHaveLength(0);
    expect((await events(vehicle.id)).map((e) => e.str_type)).toEqual(['VEHICLE_CREATED', 'VEHICLE_DELETED']);
    await create(owner.access, { str_license_plate: vehicle.str_license_plate });
  });
});

describe('GraphQL', () => {
  const FIELDS = 'id str_license_plate str_renavam_number owner { id } organization_id';

  test('createVehicle, vehicle, vehicles, updateVehicle, deleteVehicle', async () => {
    const owner = await member(app, 'OWNER');
    const p = plate();
    const input = { ...body({ str_license_plate: p.old }) };
    const created = await app.graphql(`mutation ($input: VehicleCreateInput!) { createVehicle(input: $input) { ${FIELDS} } }`, { input }, owner.access);
    expect(created.body.errors).toBeUndefined();
    const v = created.body.data.createVehicle;
    expect(v).toEqual({ id: expect.stringMatching(UUID_RE), str_license_plate: p.mercosul, str_renavam_number: input.str_renavam_number, owner: null, organization_id: owner.org.id });
    const read = await app.graphql(`query ($id: UUID!) { vehicle(id: $id) { ${FIELDS} } }`, { id: v.id }, owner.access);
    expect(read.body.data.vehicle).toEqual(v);
    const list = await app.graphql(`query ($f: JSONObject) { vehicles(filter: $f) { data { id } meta { int_total_results } } }`, { f: { str_license_plate: p.old } }, owner.access);
    expect(list.body.data.vehicles).toEqual({ data: [{ id: v.id }], meta: { int_total_results: 1 } });
    const upd = await app.graphql(`mutation ($id: UUID!) { updateVehicle(id: $id, input: { str_type: "TRAILER" }) { str_type } }`, { id: v.id }, owner.access);
    expect(upd.body.data.updateVehicle).toEqual({ str_type: 'TRAILER' });
    const del = await app.graphql(`mutation ($id: UUID!) { deleteVehicle(id: $id) }`, { id: v.id }, owner.access);
    expect(del.body.data).toEqual({ deleteVehicle: true });
    const gone = await app.graphql(`query ($id: UUID!) { vehicle(id: $id) { id } }`, { id: v.id }, owner.access);
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('createVehicle retried with its client id and the same request answers what it first answered, even after an update and a delete', async () => {
    const owner = await member(app, 'OWNER');
    const id = randomUUID();
    const input = body({ id });
    const mutation = `mutation Create($input: VehicleCreateInput!) { created: createVehicle(input: $input) { ${FIELDS} str_color ts_updated_at } }`;
    const first = await app.graphql(mutation, { input }, owner.access);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.created.id).toBe(id);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await app.graphql(`mutation ($id: UUID!) { updateVehicle(id: $id, input: { str_color: "Azul" }) { str_color } }`, { id }, owner.access)).body.data.updateVehicle).toEqual({ str_color: 'Azul' });

    // The very same request: the stored response, byte for byte, though the vehicle changed since.
    const again = await app.graphql(mutation, { input }, owner.access);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same create asked for other fields is another request: it runs, and the service answers the record as it is.
    const other = await app.graphql(`mutation ($input: VehicleCreateInput!) { createVehicle(input: $input) { id str_color } }`, { input }, owner.access);
    expect(other.body.data.createVehicle).toEqual({ id, str_color: 'Azul' });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    // Another body under the id: CONFLICT, as over REST. Another caller: its own answer, never the stored one.
    const conflict = await app.graphql(mutation, { input: { ...input, str_color: 'Vermelho' } }, owner.access);
    expect(conflict.body.errors[0].extensions.code).toBe('CONFLICT');
    const stranger = await member(app, 'OWNER');
    const theirs = await app.graphql(mutation, { input }, stranger.access);
    expect(theirs.body.errors[0].extensions.code).toBe('CONFLICT');

    expect((await app.graphql(`mutation ($id: UUID!) { deleteVehicle(id: $id) }`, { id }, owner.access)).body.data).toEqual({ deleteVehicle: true });
    const afterDelete = await app.graphql(mutation, { input }, owner.access);
    expect(afterDelete.body).toEqual(first.body);
    expect(await rowsWhere({ organization_id: owner.org.id })).toHaveLength(0);
    expect((await events(id)).map((e) => e.str_type)).toEqual(['VEHICLE_CREATED', 'VEHICLE_UPDATED', 'VEHICLE_DELETED']);
  });

  test('the create input marks the nine required fields non-null', async () => {
    const owner = await member(app, 'OWNER');
    const input = body();
    delete input.str_model;
    const res = await app.graphql(`mutation ($input: VehicleCreateInput!) { createVehicle(input: $input) { id } }`, { input }, owner.access);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.detail.fields).toEqual({ str_model: ['is required'] });
    expect(await rowsWhere({ organization_id: owner.org.id })).toHaveLength(0);
  });
});
