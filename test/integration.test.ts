import { randomUUID } from 'node:crypto';
import type { UserType } from '../src/identity/user.entity.js';
import { useApp } from './helpers/app.js';
import { login, makeUser, member, official as officialIn } from './helpers/factories.js';
import { useCounty, type TestCounty } from './helpers/places.js';
import { makeUnit } from './helpers/tags.js';

const app = useApp();
const county = useCounty(app);
const otherCounty = useCounty(app, county);

const db = () => app.service.orm.em.fork();
const DAY = 86_400_000;

const UNRESTRICTED_KEYS = [
  'id', 'bl_move_with_tag_reading', 'str_name', 'str_type', 'str_status', 'ts_created_at', 'ts_updated_at', 'control_units', 'county_id', 'responsible_user_id',
  'dec_area', 'dec_exploration_area', 'geo_location', 'lst_invite_movimentation_types', 'str_address', 'str_car', 'str_code', 'str_company_code',
  'str_county_federative_unit', 'str_county_ibge_uf_code', 'str_county_name', 'str_document', 'str_neighborhood', 'str_responsible_document',
  'str_responsible_user_name', 'str_socioenvironmental_status',
].sort();

const place = (orgId: string, c: TestCounty = county) => makeUnit(app, orgId, c);

const official = (c: TestCounty, type: UserType = 'INTEGRATION') => officialIn(app, c.id, type);

async function units() {
  const a = await member(app);
  const b = await member(app);
  return { from: await place(a.org.id), to: await place(b.org.id) };
}

const notice = (from: string, to: string, over: Record<string, unknown> = {}) => ({
  ds_uf: county.str_federative_unit,
  ds_serie_gta: 'E',
  nr_gta: `${Math.floor(Math.random() * 1e9)}`,
  id_gta: `SEFAZ-${randomUUID().slice(0, 8)}`,
  int_animal_quantity: 30,
  str_from_control_unit_code: from,
  str_to_control_unit_code: to,
  str_purpose: 'SLAUGHTER',
  ts_valid_until: new Date(Date.now() + 5 * DAY).toISOString(),
  ...over,
});

const countGtas = async (code: string) => (await db().execute<{ n: number }[]>('select count(*)::int as n from gta where str_code = ?', [code]))[0]!.n;

describe('GET /api/v1/propriedades', () => {
  test("a page of Establishment Partial Unrestricted Data of the caller's UF only", async () => {
    const owner = await member(app);
    const inside = await place(owner.org.id);
    const outside = await place(owner.org.id, otherCounty);
    for (const type of ['INTEGRATION', 'AUTHORITY'] as const) {
      const caller = await official(county, type);
      const res = await app.call('GET', '/api/v1/propriedades?int_max_results=500', { token: caller.access });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
      const ids = res.body.data.map((e: { id: string }) => e.id);
      expect(ids).toContain(inside.establishmentId);
      expect(ids).not.toContain(outside.establishmentId);
      for (const e of res.body.data) expect(e.str_county_federative_unit).toBe(county.str_federative_unit);
      const mine = res.body.data.find((e: { id: string }) => e.id === inside.establishmentId);
      expect(Object.keys(mine).sort()).toEqual(UNRESTRICTED_KEYS);
      expect(mine.control_units.map((u: { id: string }) => u.id)).toEqual([inside.unitId]);
    }
    const elsewhere = await app.call('GET', '/api/v1/propriedades?int_max_results=500', { token: (await official(otherCounty)).access });
    expect(elsewhere.body.data.map((e: { id: string }) => e.id)).toContain(outside.establishmentId);
    expect(elsewhere.body.data.map((e: { id: string }) => e.id)).not.toContain(inside.establishmentId);
  });

  test('a producer is refused 403, no token 401, an integration user without a county 403', async () => {
    const producer = await member(app);
    const res = await app.call('GET', '/api/v1/propriedades', { token: producer.access });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    const anonymous = await app.call('GET', '/api/v1/propriedades');
    expect(anonymous.status).toBe(401);
    const homeless = await makeUser(app, { type: 'INTEGRATION' });
    const noCounty = await app.call('GET', '/api/v1/propriedades', { token: (await login(app, homeless)).access });
    expect(noCounty.status).toBe(403);
  });
});

describe('POST /api/v1/gta/notificar', () => {
  test('201 {data: Gta}: id_gta kept as str_external_id, units by code, establishments derived, an event', async () => {
    const { from, to } = await units();
    const caller = await official(county);
    const body = notice(from.code, to.code);
    const res = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({
      str_code: body.nr_gta,
      int_animal_quantity: 30,
      str_federative_unit: county.str_federative_unit,
      str_series: 'E',
      str_external_id: body.id_gta,
      str_status: 'ISSUED',
      str_purpose: 'SLAUGHTER',
      from_control_unit_id: from.unitId,
      to_control_unit_id: to.unitId,
      from_establishment_id: from.establishmentId,
      to_establishment_id: to.establishmentId,
    });
    // The state names no responsible user: the relation is left out.
    expect(res.body.data).not.toHaveProperty('responsible_user');
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where str_record_type = 'Gta' and record_id = ?`, [res.body.data.id]);
    expect(events.map((e) => e.str_type)).toEqual(['GTA_CREATED']);
  });

  test('a replay (same UF, series and number) answers 201 with the same GTA and writes no second row', async () => {
    const { from, to } = await units();
    const caller = await official(county);
    const body = notice(from.code, to.code);
    const first = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body });
    const second = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: { ...body, ds_uf: body.ds_uf.toLowerCase() } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await countGtas(body.nr_gta)).toBe(1);
    const events = await db().execute<{ n: number }[]>(`select count(*)::int as n from event where str_record_type = 'Gta' and record_id = ?`, [first.body.data.id]);
    expect(events[0]!.n).toBe(1);
  });

  test("ds_uf other than the caller's UF is 403; a producer is 403; nothing written", async () => {
    const { from, to } = await units();
    const body = notice(from.code, to.code, { ds_uf: otherCounty.str_federative_unit });
    const res = await app.call('POST', '/api/v1/gta/notificar', { token: (await official(county)).access, body });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    const producer = await app.call('POST', '/api/v1/gta/notificar', { token: (await member(app)).access, body: notice(from.code, to.code, { nr_gta: body.nr_gta }) });
    expect(producer.status).toBe(403);
    expect(await countGtas(body.nr_gta)).toBe(0);
  });

  test('exactly the four documented fields register a GTA; a later notification completes it; a contradicting one is a CONFLICT; unknown unit codes 422', async () => {
    const caller = await official(county);
    const empty = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: {} });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.detail.fields).sort()).toEqual(['ds_uf', 'nr_gta']);
    const nr = `${Math.floor(Math.random() * 1e9)}`;
    const four = { ds_serie_gta: 'E', ds_uf: county.str_federative_unit, id_gta: `SEFAZ-${randomUUID().slice(0, 8)}`, nr_gta: nr };
    const bare = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: four });
    expect(bare.status).toBe(201);
    expect(bare.headers.get('warning')).toBeNull();
    // Not yet completed: the quantity Gta Partial Data requires reads 0, never a real quantity (docs/decisions/contract.md, "Records and fields").
    expect(bare.body.data).toMatchObject({ str_code: nr, str_external_id: four.id_gta, str_status: 'ISSUED', int_animal_quantity: 0, from_control_unit_id: null, to_control_unit_id: null, str_purpose: null, ts_valid_until: null });
    const asGraphql = await app.graphql('query($id: UUID!) { gta(id: $id) { int_animal_quantity from_establishment { id } to_establishment { id } } }', { id: bare.body.data.id }, caller.access);
    expect(asGraphql.body).toEqual({ data: { gta: { int_animal_quantity: 0, from_establishment: null, to_establishment: null } } });
    const { from, to } = await units();
    const completed = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: notice(from.code, to.code, four) });
    expect(completed.status).toBe(201);
    expect(completed.body.data).toMatchObject({ id: bare.body.data.id, int_animal_quantity: 30, from_control_unit_id: from.unitId, to_control_unit_id: to.unitId, from_establishment_id: from.establishmentId, str_purpose: 'SLAUGHTER' });
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where str_record_type = 'Gta' and record_id = ? order by seq`, [bare.body.data.id]);
    expect(events.map((e) => e.str_type)).toEqual(['GTA_CREATED', 'GTA_COMPLETED']);
    const contradicting = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: { ...four, int_animal_quantity: 31 } });
    expect(contradicting.status).toBe(422);
    expect(contradicting.body.error).toBe('CONFLICT');
    expect(Object.keys(contradicting.body.detail.fields)).toEqual(['int_animal_quantity']);
    const other = `${Math.floor(Math.random() * 1e9)}`;
    const unknown = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: notice('NO-SUCH-1', 'NO-SUCH-2', { nr_gta: other }) });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.detail.fields).sort()).toEqual(['str_from_control_unit_code', 'str_to_control_unit_code']);
    expect(await countGtas(other)).toBe(0);
  });
});

describe('POST /api/v1/gta/cancelar', () => {
  test('ISSUED → CANCELLED: 200 {data: Gta}; unknown 404; another UF 403', async () => {
    const { from, to } = await units();
    const caller = await official(county);
    const body = notice(from.code, to.code);
    const created = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body });
    const res = await app.call('POST', '/api/v1/gta/cancelar', { token: caller.access, body: { ds_uf: body.ds_uf, ds_serie_gta: body.ds_serie_gta, nr_gta: body.nr_gta, id_gta: body.id_gta } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({ id: created.body.data.id, str_status: 'CANCELLED' });
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where str_record_type = 'Gta' and record_id = ? order by seq`, [created.body.data.id]);
    expect(events.map((e) => e.str_type)).toEqual(['GTA_CREATED', 'GTA_CANCELLED']);
    const unknown = await app.call('POST', '/api/v1/gta/cancelar', { token: caller.access, body: { ds_uf: body.ds_uf, ds_serie_gta: 'E', nr_gta: `none-${randomUUID()}` } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
    const elsewhere = await app.call('POST', '/api/v1/gta/cancelar', { token: (await official(otherCounty)).access, body: { ds_uf: body.ds_uf, ds_serie_gta: 'E', nr_gta: body.nr_gta } });
    expect(elsewhere.status).toBe(403);
  });

  test('IN_USE and RECEIVED (animals dispatched): 422 INVALID_STATE, status unchanged', async () => {
    const { from, to } = await units();
    const caller = await official(county);
    for (const status of ['IN_USE', 'RECEIVED']) {
      const body = notice(from.code, to.code);
      const created = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body });
      await db().execute('update gta set str_status = ? where id = ?', [status, created.body.data.id]);
      const res = await app.call('POST', '/api/v1/gta/cancelar', { token: caller.access, body: { ds_uf: body.ds_uf, ds_serie_gta: body.ds_serie_gta, nr_gta: body.nr_gta } });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('INVALID_STATE');
      const [row] = await db().execute<{ str_status: string }[]>('select str_status from gta where id = ?', [created.body.data.id]);
      expect(row!.str_status).toBe(status);
    }
  });

  test('the state cancels even an expired GTA; a GTA issued in the service is read as EXPIRED by the integration', async () => {
    const { from, to } = await units();
    const caller = await official(county);
    const body = notice(from.code, to.code, { ts_issued_at: new Date(Date.now() - 3 * DAY).toISOString(), ts_valid_until: new Date(Date.now() - DAY).toISOString() });
    const created = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body });
    expect(created.body.data.str_status).toBe('EXPIRED');
    const read = await app.call('GET', `/api/v1/gtas/${created.body.data.id}`, { token: caller.access });
    expect(read.body.data.str_status).toBe('EXPIRED');
    const res = await app.call('POST', '/api/v1/gta/cancelar', { token: caller.access, body: { ds_uf: body.ds_uf, ds_serie_gta: body.ds_serie_gta, nr_gta: body.nr_gta } });
    expect(res.status).toBe(200);
    expect(res.body.data.str_status).toBe('CANCELLED');
  });
});

describe('GET /api/v1/entrada_animais/:id and /api/v1/saida_animais/:id', () => {
  test('unknown uuids and id_gtas: 404 NOT_FOUND; a producer 403 (found ones: test/animal-movements.test.ts)', async () => {
    const caller = await official(county);
    const producer = await member(app);
    for (const path of ['entrada_animais', 'saida_animais']) {
      for (const id of [randomUUID(), 'SEFAZ-12345']) {
        const res = await app.call('GET', `/api/v1/${path}/${id}`, { token: caller.access });
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('NOT_FOUND');
      }
      const refused = await app.call('GET', `/api/v1/${path}/${randomUUID()}`, { token: producer.access });
      expect(refused.status).toBe(403);
      expect((await app.call('GET', `/api/v1/${path}/x`)).status).toBe(401);
    }
  });
});

test('the OpenAPI document lists 400, 401, 403, 404, 422, 500 for every integration operation', async () => {
  const res = await app.call('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  const ops: [string, string, string][] = [
    ['/api/v1/propriedades', 'get', '200'],
    ['/api/v1/gta/notificar', 'post', '201'],
    ['/api/v1/gta/cancelar', 'post', '200'],
    ['/api/v1/entrada_animais/{id}', 'get', '200'],
    ['/api/v1/saida_animais/{id}', 'get', '200'],
  ];
  for (const [path, method, success] of ops) {
    const op = res.body.paths[path]?.[method];
    expect(op).toBeDefined();
    // interface.md's codes; the service may list more that it answers (413 for a body too large, 428, 503).
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining([success, '400', '401', '403', '404', '422', '500']));
    expect(op.tags).toEqual(['Integration']);
  }
  expect(res.body.paths['/api/v1/entrada_animais/{id}'].get.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
});
