import { randomUUID } from 'node:crypto';
import { useApp, type Reply } from './helpers/app.js';
import { cnpj, cpf, email, lastMail, login, makeUser, member, tokenIn, official as officialIn } from './helpers/factories.js';
import { ISO_Z, UUID_RE, carOf, makeCounty, unitCode, useCounty, type TestCounty } from './helpers/places.js';
import type { Role } from '../src/identity/membership.entity.js';
import type { Organization } from '../src/identity/organization.entity.js';
import { User, type UserType } from '../src/identity/user.entity.js';
import { Establishment } from '../src/places/establishment.entity.js';


const app = useApp();
const county = useCounty(app);

const UNRESTRICTED_KEYS = [
  'id', 'bl_move_with_tag_reading', 'str_name', 'str_type', 'str_status', 'ts_created_at', 'ts_updated_at', 'control_units',
  'county_id', 'responsible_user_id', 'dec_area', 'dec_exploration_area', 'geo_location', 'lst_invite_movimentation_types',
  'str_address', 'str_car', 'str_code', 'str_company_code', 'str_county_federative_unit', 'str_county_ibge_uf_code', 'str_county_name',
  'str_document', 'str_neighborhood', 'str_responsible_document', 'str_responsible_user_name', 'str_socioenvironmental_status',
].sort();
const PARTIAL_KEYS = [...UNRESTRICTED_KEYS, 'organization_id', 'str_email', 'str_zip_code'].sort();
const ESTABLISHMENT_KEYS = [...PARTIAL_KEYS, 'county', 'responsible_user'].sort();
/** A relation the record does not have is left out (interface.md marks relations optional, never nullable). */
const without = (keys: string[], ...absent: string[]) => keys.filter((k) => !absent.includes(k));
const UNIT_WITHOUT_ESTABLISHMENT_KEYS = ['id', 'establishment_id', 'responsible_user', 'str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'ts_created_at', 'ts_updated_at'].sort();
/** Control Unit Data Without Establishment without the responsible User record (its name only). */
const UNRESTRICTED_UNIT_KEYS = ['id', 'establishment_id', 'str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'str_responsible_user_name', 'ts_created_at', 'ts_updated_at'].sort();

const db = () => app.service.orm.em.fork();
const rowsOf = (organizationId: string) => db().find(Establishment, { organization_id: organizationId });
const events = (id: string) => db().execute<{ str_type: string; actor_id: string; str_payload: string }[]>(`select str_type, actor_id, str_payload from event where str_record_type = 'Establishment' and record_id = ? order by seq`, [id]);

function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { str_name: 'Fazenda Boa Vista', str_type: 'FARM', county_id: county.id, ...over };
}

async function create(token: string, over: Record<string, unknown> = {}, path = '/api/establishments') {
  const res = await app.call('POST', path, { token, body: body(over) });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body.data;
}

const addMember = (org: Organization, role: Role, type: UserType = 'PRODUCER') => member(app, role, org, type);

const official = (c: TestCounty, type: UserType = 'AUTHORITY') => officialIn(app, c.id, type);

async function addUnit(establishmentId: string, responsibleUserId: string | null = null): Promise<string> {
  const id = randomUUID();
  await db().execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type, responsible_user_id) values (?, ?, ?, 'Retiro', 'PRODUCTION', ?)`, [id, establishmentId, unitCode(), responsibleUserId]);
  return id;
}

function expectEstablishmentShape(e: Record<string, any>, keys: string[]) {
  expect(Object.keys(e).sort()).toEqual(keys);
  expect(e.id).toMatch(UUID_RE);
  expect(e.ts_created_at).toMatch(ISO_Z);
  expect(e.ts_updated_at).toMatch(ISO_Z);
  expect(typeof e.bl_move_with_tag_reading).toBe('boolean');
  expect(typeof e.str_name).toBe('string');
  expect(typeof e.str_type).toBe('string');
  expect(typeof e.str_status).toBe('string');
  expect(Array.isArray(e.control_units)).toBe(true);
  if (e.geo_location !== null) {
    expect(Object.keys(e.geo_location).sort()).toEqual(['coordinates', 'type']);
    expect(e.geo_location.type).toBe('Point');
    expect(e.geo_location.coordinates).toHaveLength(2);
    for (const n of e.geo_location.coordinates) expect(typeof n).toBe('number');
  }
  for (const f of ['county_id', 'responsible_user_id']) if (e[f] !== null) expect(e[f]).toMatch(UUID_RE);
}

describe('POST /api/establishments', () => {
  test('creates it (201) in the active organization with every field normalized, and reads it back', async () => {
    const owner = await member(app, 'OWNER');
    const doc = cnpj();
    const clientId = randomUUID();
    const sent = body({
      id: clientId,
      str_car: carOf(county).toLowerCase(),
      str_document: `${doc.slice(0, 2)}.${doc.slice(2, 5)}.${doc.slice(5, 8)}/${doc.slice(8, 12)}-${doc.slice(12)}`,
      str_zip_code: '78000-000',
      str_email: ' Contato@Fazenda.example ',
      dec_area: 120.5,
      dec_exploration_area: 80,
      geo_location: { type: 'Point', coordinates: [-56.100123, -15.600456] },
      str_address: 'Rodovia BR-163 km 10',
      str_neighborhood: 'Zona Rural',
      str_code: 'FBV-1',
      str_company_code: 'C-77',
      bl_move_with_tag_reading: false,
      responsible_user_id: owner.user.id,
    });
    const res = await app.call('POST', '/api/establishments', { token: owner.access, body: sent });
    expect(res.status).toBe(201);
    const e = res.body.data;
    expectEstablishmentShape(e, ESTABLISHMENT_KEYS);
    expect(e).toMatchObject({
      id: clientId,
      organization_id: owner.org.id,
      str_name: 'Fazenda Boa Vista',
      str_type: 'FARM',
      str_status: 'ACTIVE',
      str_socioenvironmental_status: 'NOT_EVALUATED',
      bl_move_with_tag_reading: false,
      county_id: county.id,
      str_car: carOf(county),
      str_document: doc,
      str_zip_code: '78000000',
      str_email: 'contato@fazenda.example',
      dec_area: 120.5,
      dec_exploration_area: 80,
      geo_location: { type: 'Point', coordinates: [-56.100123, -15.600456] },
      str_county_federative_unit: county.str_federative_unit,
      str_county_ibge_uf_code: county.str_ibge_code.slice(0, 2),
      str_county_name: county.str_name,
      responsible_user_id: owner.user.id,
      str_responsible_user_name: owner.user.str_name,
      str_responsible_document: owner.document,
      lst_invite_movimentation_types: null,
      control_units: [],
    });
    expect(e.county).toEqual({ ...county, ts_created_at: expect.stringMatching(ISO_Z), ts_updated_at: expect.stringMatching(ISO_Z) });
    expect(e.responsible_user.id).toBe(owner.user.id);

    const read = await app.call('GET', `/api/establishments/${clientId}`, { token: owner.access });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(e);
    const log = await events(clientId);
    expect(log.map((x) => x.str_type)).toEqual(['ESTABLISHMENT_CREATED']);
    expect(log[0]!.actor_id).toBe(owner.user.id);
  });

  test('minimal body: server id, defaults, null optional fields, no county', async () => {
    const owner = await member(app, 'MANAGER');
    const e = await create(owner.access, { county_id: undefined });
    expectEstablishmentShape(e, without(ESTABLISHMENT_KEYS, 'county', 'responsible_user'));
    expect(e).toMatchObject({ bl_move_with_tag_reading: true, str_status: 'ACTIVE', str_socioenvironmental_status: 'NOT_EVALUATED', county_id: null, responsible_user_id: null, geo_location: null, dec_area: null, str_car: null, str_zip_code: null });
  });

  test('the county by str_ibge_code; an unknown code is a 422 naming it', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access, { county_id: undefined, str_ibge_code: county.str_ibge_code });
    expect(e.county_id).toBe(county.id);
    const bad = await app.call('POST', '/api/establishments', { token: owner.access, body: body({ county_id: undefined, str_ibge_code: '0000000' }) });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ error: 'VALIDATION_FAILED', detail: { fields: { str_ibge_code: [expect.any(String)] } } });
    expect(await rowsOf(owner.org.id)).toHaveLength(1);
  });

  const other = () => `${county.str_federative_unit === 'ZZ' ? 'ZY' : 'ZZ'}`;
  test.each([
    ['str_name', { str_name: '  ' }],
    ['str_type', { str_type: 'CASTLE' }],
    ['str_car', { str_car: 'MT-123-ABC' }],
    ['str_car', { str_car: 'UF_MISMATCH' }],
    ['str_car', { str_car: 'CODE_MISMATCH' }],
    ['str_document', { str_document: '123.456.789-00' }],
    ['str_zip_code', { str_zip_code: '7800-000' }],
    ['str_email', { str_email: 'not-an-email' }],
    ['dec_area', { dec_area: -1 }],
    ['dec_exploration_area', { dec_area: 10, dec_exploration_area: 10.5 }],
    ['geo_location', { geo_location: { type: 'Point', coordinates: [1, 2, 3] } }],
    ['geo_location', { geo_location: { type: 'Polygon', coordinates: [1, 2] } }],
    ['county_id', { county_id: randomUUID() }],
    ['responsible_user_id', { responsible_user_id: randomUUID() }],
  ])('%s broken: 422 naming it, nothing written', async (field, over) => {
    const owner = await member(app, 'OWNER');
    const fix = { ...over } as Record<string, unknown>;
    if (fix.str_car === 'UF_MISMATCH') fix.str_car = `${other()}-${county.str_ibge_code}-${'A'.repeat(32)}`;
    if (fix.str_car === 'CODE_MISMATCH') fix.str_car = `${county.str_federative_unit}-${String((Number(county.str_ibge_code) + 1) % 10_000_000).padStart(7, '0')}-${'A'.repeat(32)}`;
    const res = await app.call('POST', '/api/establishments', { token: owner.access, body: body(fix) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields)).toEqual([field]);
    expect(await rowsOf(owner.org.id)).toHaveLength(0);
  });

  test('a VIEWER or OPERATOR may not create (403), nothing written; no active organization is 403', async () => {
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const m = await member(app, role);
      const res = await app.call('POST', '/api/establishments', { token: m.access, body: body() });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
      expect(await rowsOf(m.org.id)).toHaveLength(0);
    }
    const loner = await makeUser(app);
    const res = await app.call('POST', '/api/establishments', { token: (await login(app, loner)).access, body: body() });
    expect(res.status).toBe(403);
  });

  test('without a token: 401', async () => {
    const res = await app.call('POST', '/api/establishments', { body: body() });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHENTICATED');
  });

  test('a client id replayed with the same body returns the same record; with another body it is a CONFLICT', async () => {
    const owner = await member(app, 'OWNER');
    const id = randomUUID();
    const first = await create(owner.access, { id, str_code: 'R-1' });
    const again = await app.call('POST', '/api/establishments', { token: owner.access, body: body({ id, str_code: 'R-1' }) });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first);
    const changed = await app.call('POST', '/api/establishments', { token: owner.access, body: body({ id, str_code: 'R-2' }) });
    expect(changed.status).toBe(422);
    expect(changed.body).toEqual({ error: 'CONFLICT', detail: { fields: { id: [expect.any(String)] } } });
    expect(await rowsOf(owner.org.id)).toHaveLength(1);
  });

  test('a new responsible_user becomes a user awaiting confirm-registration, mailed a token that works', async () => {
    const owner = await member(app, 'OWNER');
    const address = email('responsible');
    const doc = cpf();
    const e = await create(owner.access, { responsible_user: { str_document: doc, str_email: address, str_name: 'Dona Maria', str_type: 'PRODUCER' } });
    const [user] = await db().find(User, { str_email: address });
    expect(user).toBeDefined();
    expect(e.responsible_user_id).toBe(user!.id);
    // Not a member of the owner's organization: name and type only (CONTRACT.md, Accounts).
    expect(e.responsible_user).toMatchObject({ id: user!.id, str_name: 'Dona Maria', str_document: null, str_type: 'PRODUCER' });
    expect(user!.str_document).toBe(doc);
    expect(user!.ts_registration_confirmed_at).toBeNull();
    const token = tokenIn(await lastMail(app, address));
    expect(token).not.toBe('');
    const confirmed = await app.call('POST', '/api/confirm-registration', { body: { str_token: token, str_password: 'a new password 1' } });
    expect(confirmed.status).toBe(204);
  });

  test('an existing responsible_user is found by document or e-mail: no new user, no mail', async () => {
    const owner = await member(app, 'OWNER');
    const known = await makeUser(app);
    const byDoc = await create(owner.access, { responsible_user: { str_document: known.document } });
    expect(byDoc.responsible_user_id).toBe(known.user.id);
    const byMail = await create(owner.access, { responsible_user: { str_email: known.email.toUpperCase(), str_name: 'ignored' } });
    expect(byMail.responsible_user_id).toBe(known.user.id);
    expect(await db().count(User, { str_document: known.document })).toBe(1);
    expect(await lastMail(app, known.email)).toBeNull();
  });

  test('a new responsible_user without a name, or with a bad e-mail: 422 naming the nested field, nothing written', async () => {
    const owner = await member(app, 'OWNER');
    const noName = await app.call('POST', '/api/establishments', { token: owner.access, body: body({ responsible_user: { str_document: cpf(), str_email: email() } }) });
    expect(noName.status).toBe(422);
    expect(Object.keys(noName.body.detail.fields)).toEqual(['responsible_user.str_name']);
    const badMail = await app.call('POST', '/api/establishments', { token: owner.access, body: body({ responsible_user: { str_document: cpf(), str_email: 'nope', str_name: 'X' } }) });
    expect(badMail.status).toBe(422);
    expect(Object.keys(badMail.body.detail.fields)).toEqual(['responsible_user.str_email']);
    expect(await rowsOf(owner.org.id)).toHaveLength(0);
  });
});

describe('POST /api/v1/establishments (public create)', () => {
  const required = ['str_ibge_code', 'str_name', 'str_type'];
  const full = () => ({ str_ibge_code: county.str_ibge_code, str_name: 'Frigorífico Central', str_type: 'SLAUGHTERHOUSE' });

  test('201 with the Establishment record', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/v1/establishments', { token: owner.access, body: full() });
    expect(res.status).toBe(201);
    expectEstablishmentShape(res.body.data, without(ESTABLISHMENT_KEYS, 'responsible_user'));
    expect(res.body.data.county_id).toBe(county.id);
    expect(res.body.data.str_type).toBe('SLAUGHTERHOUSE');
  });

  test.each(required)('missing %s: 422 naming it, nothing written', async (field) => {
    const owner = await member(app, 'OWNER');
    const sent: Record<string, unknown> = { ...full(), county_id: county.id };
    delete sent[field];
    const res = await app.call('POST', '/api/v1/establishments', { token: owner.access, body: sent });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'VALIDATION_FAILED', detail: { fields: { [field]: ['is required'] } } });
    expect(await rowsOf(owner.org.id)).toHaveLength(0);
  });

  test('all three missing: each named', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/v1/establishments', { token: owner.access, body: {} });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields).sort()).toEqual(required);
  });
});

describe('reads, index and search', () => {
  test('index: a page of Establishment Partial Data with control units, only the active organization\'s', async () => {
    const owner = await member(app, 'OWNER');
    const stranger = await member(app, 'OWNER');
    const mine = await create(owner.access, { str_name: 'Minha' });
    await create(stranger.access, { str_name: 'Alheia' });
    const unitId = await addUnit(mine.id, owner.user.id);
    for (const path of ['/api/establishments', '/api/v1/establishments']) {
      const res = await app.call('GET', path, { token: owner.access });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
      expect(res.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 1, int_total_pages: 1 });
      const [e] = res.body.data;
      expectEstablishmentShape(e, PARTIAL_KEYS);
      expect(e.id).toBe(mine.id);
      expect(e.control_units).toHaveLength(1);
      const u = e.control_units[0];
      expect(Object.keys(u).sort()).toEqual(UNIT_WITHOUT_ESTABLISHMENT_KEYS);
      expect(u).toMatchObject({ id: unitId, establishment_id: mine.id, str_name: 'Retiro', str_type: 'PRODUCTION', str_predominant_phase: null, str_predominant_system: null });
      expect(u.responsible_user.id).toBe(owner.user.id);
      expect(u.ts_created_at).toMatch(ISO_Z);
    }
  });

  test('the index runs the same number of SQL statements for 2 and 20 establishments, each with control units', async () => {
    const small = await member(app, 'OWNER');
    const large = await member(app, 'OWNER');
    for (const [m, n] of [[small, 2], [large, 20]] as const) {
      for (let i = 0; i < n; i++) {
        const e = await create(m.access, { str_name: `E${i}`, responsible_user_id: m.user.id });
        await addUnit(e.id, m.user.id);
        await addUnit(e.id, null);
      }
    }
    const a = await app.call('GET', '/api/establishments?int_max_results=50', { token: small.access });
    const b = await app.call('GET', '/api/establishments?int_max_results=50', { token: large.access });
    expect(a.body.data).toHaveLength(2);
    expect(b.body.data).toHaveLength(20);
    expect(b.body.data.every((e: { control_units: unknown[] }) => e.control_units.length === 2)).toBe(true);
    expect(Number.isFinite(a.sql)).toBe(true);
    expect(b.sql).toBe(a.sql);

    // The same through GraphQL, every relation in both directions.
    const query = `{ establishments(page: { int_max_results: 50 }) { data { id county { id } responsible_user { id organizations { id } }
      control_units { id responsible_user { id } establishment { id county { str_name } control_units { id } } } } } }`;
    const ga = await app.graphql(query, {}, small.access);
    const gb = await app.graphql(query, {}, large.access);
    expect(ga.body.errors).toBeUndefined();
    expect(gb.body.data.establishments.data).toHaveLength(20);
    expect(gb.body.data.establishments.data[0].control_units[0].establishment.control_units).toHaveLength(2);
    expect(gb.sql).toBe(ga.sql);
  });

  test('search: filters, str_query, unknown keys named', async () => {
    const owner = await member(app, 'OWNER');
    const farm = await create(owner.access, { str_name: 'Fazenda São João', str_code: 'SJ-9' });
    await create(owner.access, { str_name: 'Leilão Norte', str_type: 'AUCTION' });
    const byType = await app.call('POST', '/api/establishments/search', { token: owner.access, body: { str_type: 'AUCTION' } });
    expect(byType.status).toBe(200);
    expect(byType.body.data.map((e: { str_name: string }) => e.str_name)).toEqual(['Leilão Norte']);
    const byQuery = await app.call('POST', '/api/v1/establishments/search', { token: owner.access, body: { str_query: 'sao joao' } });
    expect(byQuery.body.data.map((e: { id: string }) => e.id)).toEqual([farm.id]);
    const all = await app.call('POST', '/api/establishments/search', { token: owner.access, body: {} });
    expect(all.body.meta.int_total_results).toBe(2);
    const bad = await app.call('POST', '/api/establishments/search', { token: owner.access, body: { str_colour: 'x' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.fields).toEqual({ str_colour: ['is not a known filter'] });
    expect(bad.body.detail.accepted_keys).toContain('str_type');
  });

  test('another organization\'s establishment: 404 on read and update, nothing changed', async () => {
    const owner = await member(app, 'OWNER');
    const stranger = await member(app, 'OWNER');
    const e = await create(owner.access);
    const read = await app.call('GET', `/api/establishments/${e.id}`, { token: stranger.access });
    expect(read.status).toBe(404);
    expect(read.body.error).toBe('NOT_FOUND');
    for (const method of ['PUT', 'PATCH']) {
      for (const base of ['/api', '/api/v1']) {
        const res = await app.call(method, `${base}/establishments/${e.id}`, { token: stranger.access, body: { str_name: 'Hijacked' } });
        expect(res.status).toBe(404);
      }
    }
    expect((await db().findOneOrFail(Establishment, { id: e.id })).str_name).toBe('Fazenda Boa Vista');
    expect((await app.call('GET', `/api/establishments/${e.id}/history`, { token: stranger.access })).status).toBe(404);
  });

  test('a path id that is not a uuid: 400', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.call('GET', '/api/establishments/not-a-uuid', { token: owner.access });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('BAD_REQUEST');
  });
});

describe('updates', () => {
  test('PUT and PATCH change the given fields; a VIEWER gets 403 and nothing changes', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access, { dec_area: 100 });
    const put = await app.call('PUT', `/api/establishments/${e.id}`, { token: owner.access, body: { str_name: 'Nova', str_zip_code: '01310100', dec_exploration_area: 50 } });
    expect(put.status).toBe(200);
    expectEstablishmentShape(put.body.data, without(ESTABLISHMENT_KEYS, 'responsible_user'));
    expect(put.body.data).toMatchObject({ str_name: 'Nova', str_zip_code: '01310100', dec_area: 100, dec_exploration_area: 50 });
    const patch = await app.call('PATCH', `/api/v1/establishments/${e.id}`, { token: owner.access, body: { geo_location: { type: 'Point', coordinates: [-47.929722, -15.779722] } } });
    expect(patch.status).toBe(200);
    expect(patch.body.data.geo_location).toEqual({ type: 'Point', coordinates: [-47.929722, -15.779722] });
    expect(patch.body.data.str_name).toBe('Nova');

    const over = await app.call('PATCH', `/api/establishments/${e.id}`, { token: owner.access, body: { dec_exploration_area: 101 } });
    expect(over.status).toBe(422);
    expect(Object.keys(over.body.detail.fields)).toEqual(['dec_exploration_area']);

    const viewer = await addMember(owner.org, 'VIEWER');
    const seen = await app.call('GET', `/api/establishments/${e.id}`, { token: viewer.access });
    expect(seen.status).toBe(200);
    const denied = await app.call('PATCH', `/api/establishments/${e.id}`, { token: viewer.access, body: { str_name: 'Viewer was here' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('FORBIDDEN');
    expect((await db().findOneOrFail(Establishment, { id: e.id })).str_name).toBe('Nova');
    expect((await events(e.id)).map((x) => x.str_type)).toEqual(['ESTABLISHMENT_CREATED', 'ESTABLISHMENT_UPDATED', 'ESTABLISHMENT_UPDATED']);
  });

  test('lst_invite_movimentation_types: set on create and by PUT/PATCH (both APIs), deduplicated, null clears; recorded in the events', async () => {
    const owner = await member(app, 'OWNER');
    const created = await app.call('POST', '/api/v1/establishments', { token: owner.access, body: { ...body(), str_ibge_code: county.str_ibge_code, lst_invite_movimentation_types: ['EGRESS', 'INGRESS', 'EGRESS'] } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBeNull();
    const id = created.body.data.id;
    expect(created.body.data.lst_invite_movimentation_types).toEqual(['INGRESS', 'EGRESS']);
    const put = await app.call('PUT', `/api/establishments/${id}`, { token: owner.access, body: { lst_invite_movimentation_types: ['BOTH'] } });
    expect([put.status, put.body.data.lst_invite_movimentation_types]).toEqual([200, ['BOTH']]);
    const read = await app.call('GET', `/api/v1/establishments/${id}`, { token: owner.access });
    expect(read.body.data.lst_invite_movimentation_types).toEqual(['BOTH']);
    const same = await app.call('PATCH', `/api/v1/establishments/${id}`, { token: owner.access, body: { lst_invite_movimentation_types: ['BOTH', 'BOTH'] } });
    expect(same.status).toBe(200);
    const cleared = await app.call('PATCH', `/api/establishments/${id}`, { token: owner.access, body: { lst_invite_movimentation_types: null } });
    expect([cleared.status, cleared.body.data.lst_invite_movimentation_types]).toEqual([200, null]);
    const again = await app.call('PATCH', `/api/establishments/${id}`, { token: owner.access, body: { lst_invite_movimentation_types: ['INGRESS'] } });
    expect(again.body.data.lst_invite_movimentation_types).toEqual(['INGRESS']);
    expect((await app.call('PATCH', `/api/establishments/${id}`, { token: owner.access, body: { lst_invite_movimentation_types: [] } })).body.data.lst_invite_movimentation_types).toBeNull();

    const history = (await events(id)).map((x) => [x.str_type, JSON.parse(x.str_payload).changes.lst_invite_movimentation_types]);
    expect(history).toEqual([
      ['ESTABLISHMENT_CREATED', ['INGRESS', 'EGRESS']],
      ['ESTABLISHMENT_UPDATED', ['BOTH']],
      ['ESTABLISHMENT_UPDATED', null],
      ['ESTABLISHMENT_UPDATED', ['INGRESS']],
      ['ESTABLISHMENT_UPDATED', null],
    ]);

    for (const bad of [['INGRESS', 'SIDEWAYS'], [7], true, { INGRESS: true }, ['INGRESS', null]]) {
      for (const [method, path] of [['PATCH', `/api/establishments/${id}`], ['POST', '/api/establishments']] as const) {
        const res = await app.call(method, path, { token: owner.access, body: { ...(method === 'POST' ? body() : {}), lst_invite_movimentation_types: bad } });
        expect([res.status, res.body.error, Object.keys(res.body.detail.fields)]).toEqual([422, 'VALIDATION_FAILED', ['lst_invite_movimentation_types']]);
      }
    }
    expect((await rowsOf(owner.org.id)).map((e) => e.lst_invite_movimentation_types)).toEqual([null]);

    const viewer = await addMember(owner.org, 'VIEWER');
    const denied = await app.call('PATCH', `/api/establishments/${id}`, { token: viewer.access, body: { lst_invite_movimentation_types: ['BOTH'] } });
    expect([denied.status, denied.body.error]).toEqual([403, 'FORBIDDEN']);
  });

  test('lst_invite_movimentation_types through GraphQL', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.graphql(
      'mutation($input: EstablishmentCreateInput!) { createEstablishment(input: $input) { id lst_invite_movimentation_types } }',
      { input: { ...body(), lst_invite_movimentation_types: ['BOTH', 'INGRESS'] } },
      owner.access,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createEstablishment.lst_invite_movimentation_types).toEqual(['INGRESS', 'BOTH']);
    const bad = await app.graphql('mutation($id: UUID!) { updateEstablishment(id: $id, input: { lst_invite_movimentation_types: ["NOWHERE"] }) { id } }', { id: res.body.data.createEstablishment.id }, owner.access);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { lst_invite_movimentation_types: [expect.stringContaining('NOWHERE')] } } });
  });

  test('an update waits for whoever holds the row (a unit being added holds it shared) instead of failing', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access);
    let patch: Promise<Reply> | undefined;
    await db().transactional(async (tx) => {
      await tx.execute('select 1 from establishment where id = ? for share', [e.id]);
      patch = app.call('PATCH', `/api/establishments/${e.id}`, { token: owner.access, body: { str_name: 'Depois' } });
      await Promise.race([patch, new Promise((resolve) => setTimeout(resolve, 500))]);
    });
    const res = await patch!;
    expect([res.status, res.body.data?.str_name]).toEqual([200, 'Depois']);
  });

  test('changing the county re-checks the CAR against it', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access, { str_car: carOf(county) });
    const elsewhere = await makeCounty(app);
    const res = await app.call('PATCH', `/api/establishments/${e.id}`, { token: owner.access, body: { county_id: elsewhere.id } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_car']);
    const both = await app.call('PATCH', `/api/establishments/${e.id}`, { token: owner.access, body: { county_id: elsewhere.id, str_car: carOf(elsewhere) } });
    expect(both.status).toBe(200);
    expect(both.body.data.str_car).toBe(carOf(elsewhere));
  });
});

describe('statuses, authorities and history', () => {
  test('an owner may not change str_status or str_socioenvironmental_status (403), nothing changes', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access);
    for (const change of [{ str_status: 'SUSPENDED' }, { str_socioenvironmental_status: 'COMPLIANT' }]) {
      const res = await app.call('PATCH', `/api/establishments/${e.id}`, { token: owner.access, body: change });
      expect(res.status).toBe(403);
    }
    const row = await db().findOneOrFail(Establishment, { id: e.id });
    expect([row.str_status, row.str_socioenvironmental_status]).toEqual(['ACTIVE', 'NOT_EVALUATED']);
    const create403 = await app.call('POST', '/api/establishments', { token: owner.access, body: body({ str_socioenvironmental_status: 'COMPLIANT' }) });
    expect(create403.status).toBe(403);
  });

  test('an authority of the UF sees the establishment read-only, changes its statuses, and the history records each change', async () => {
    const c = await makeCounty(app);
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access, { county_id: c.id });
    const authority = await official(c);
    const farAway = await official(await makeCounty(app, c.str_federative_unit === 'ZZ' ? 'ZY' : 'ZZ'));

    expect((await app.call('GET', `/api/establishments/${e.id}`, { token: authority.access })).status).toBe(200);
    expect((await app.call('GET', `/api/establishments/${e.id}`, { token: farAway.access })).status).toBe(404);
    const listed = await app.call('POST', '/api/establishments/search', { token: authority.access, body: { id: e.id } });
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([e.id]);

    const rename = await app.call('PATCH', `/api/establishments/${e.id}`, { token: authority.access, body: { str_name: 'Authority rename' } });
    expect(rename.status).toBe(403);

    const suspend = await app.call('PATCH', `/api/establishments/${e.id}`, { token: authority.access, body: { str_status: 'SUSPENDED', str_socioenvironmental_status: 'UNDER_REVIEW' } });
    expect(suspend.status).toBe(200);
    expect(suspend.body.data).toMatchObject({ str_status: 'SUSPENDED', str_socioenvironmental_status: 'UNDER_REVIEW', str_name: 'Fazenda Boa Vista' });

    const inactivate = await app.call('PATCH', `/api/establishments/${e.id}`, { token: authority.access, body: { str_status: 'INACTIVE' } });
    expect(inactivate.status).toBe(422);
    expect(inactivate.body.error).toBe('INVALID_STATE');
    expect(inactivate.body.detail).toMatchObject({ str_status: 'SUSPENDED', allowed: ['ACTIVE'] });

    const history = await app.call('GET', `/api/establishments/${e.id}/history`, { token: owner.access });
    expect(history.status).toBe(200);
    expect(history.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 3, int_total_pages: 1 });
    const records = history.body.data;
    for (const h of records) {
      expect(Object.keys(h).sort()).toEqual(['criteria', 'id', 'ts_created_at']);
      expect(h.id).toMatch(UUID_RE);
      expect(h.ts_created_at).toMatch(ISO_Z);
      expect(Object.keys(h.criteria).sort()).toEqual(['actor', 'changes', 'refs', 'str_event', 'ts_occurred_at']);
      expect(h.criteria.ts_occurred_at).toMatch(ISO_Z);
    }
    expect(records.map((h: { criteria: { str_event: string } }) => h.criteria.str_event)).toEqual(['ESTABLISHMENT_CREATED', 'ESTABLISHMENT_STATUS_CHANGED', 'ESTABLISHMENT_SOCIOENVIRONMENTAL_STATUS_CHANGED']);
    expect(records[0].criteria.actor).toEqual({ id: owner.user.id, str_name: owner.user.str_name });
    expect(records[1].criteria.actor.id).toBe(authority.user.id);
    expect(records[1].criteria.changes).toEqual({ str_status: { from: 'ACTIVE', to: 'SUSPENDED' } });
    expect(records[2].criteria.changes).toEqual({ str_socioenvironmental_status: { from: 'NOT_EVALUATED', to: 'UNDER_REVIEW' } });
    expect(records[1].criteria.refs).toMatchObject({ organization_id: owner.org.id });
  });

  test('SUSPENDED and INACTIVE sent at once to an ACTIVE establishment: one wins, the other is checked against it', async () => {
    const c = await makeCounty(app);
    const owner = await member(app, 'OWNER');
    const authority = await official(c);
    for (let i = 0; i < 6; i++) {
      const e = await create(owner.access, { county_id: c.id });
      const change = (str_status: string) => app.call('PATCH', `/api/establishments/${e.id}`, { token: authority.access, body: { str_status } });
      const replies = await Promise.all([change('SUSPENDED'), change('INACTIVE')]);
      // Either order is a legal history; both applied would be SUSPENDED → INACTIVE, which DOMAIN.md forbids.
      expect(replies.map((r) => r.status).sort()).toEqual([200, 422]);
      const won = replies.find((r) => r.status === 200)!.body.data.str_status;
      expect(replies.find((r) => r.status === 422)!.body.detail).toMatchObject({ str_status: won });
      const events = await app.service.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from event where record_id = ? and str_type = 'ESTABLISHMENT_STATUS_CHANGED'`, [e.id]);
      expect(events[0]!.n).toBe(1);
    }
  });

  test('an integration of the UF reads and sets the socio-environmental status, but not str_status', async () => {
    const c = await makeCounty(app);
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access, { county_id: c.id });
    const integration = await official(c, 'INTEGRATION');
    const status = await app.call('PATCH', `/api/v1/establishments/${e.id}`, { token: integration.access, body: { str_status: 'SUSPENDED' } });
    expect(status.status).toBe(403);
    const socio = await app.call('PATCH', `/api/v1/establishments/${e.id}`, { token: integration.access, body: { str_socioenvironmental_status: 'NON_COMPLIANT' } });
    expect(socio.status).toBe(200);
    expect(socio.body.data).toMatchObject({ str_status: 'ACTIVE', str_socioenvironmental_status: 'NON_COMPLIANT' });
    const bad = await app.call('PATCH', `/api/v1/establishments/${e.id}`, { token: integration.access, body: { str_socioenvironmental_status: 'GREEN' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields)).toEqual(['str_socioenvironmental_status']);
  });

  test('an administrator reactivates a suspended establishment', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access);
    const admin = await makeUser(app, { admin: true });
    const token = (await login(app, admin)).access;
    expect((await app.call('PATCH', `/api/establishments/${e.id}`, { token, body: { str_status: 'SUSPENDED' } })).status).toBe(200);
    const back = await app.call('PUT', `/api/establishments/${e.id}`, { token, body: { str_status: 'ACTIVE' } });
    expect(back.status).toBe(200);
    expect(back.body.data.str_status).toBe('ACTIVE');
  });
});

describe('POST /api/establishments/unrestricted/search', () => {
  test("finds every organization's establishments with only the unrestricted fields, a CPF masked and a CNPJ shown", async () => {
    const owner = await member(app, 'OWNER');
    const outsider = await member(app, 'VIEWER');
    const personDoc = cpf();
    const companyDoc = cnpj();
    const tag = randomUUID().slice(0, 8);
    const person = await create(owner.access, { str_name: `Sítio ${tag}`, str_document: personDoc, responsible_user_id: owner.user.id, str_zip_code: '78000000', str_email: 'x@y.example' });
    const company = await create(owner.access, { str_name: `Empresa ${tag}`, str_document: companyDoc });
    await addUnit(person.id, owner.user.id);
    for (const path of ['/api/establishments/unrestricted/search', '/api/v1/establishments/unrestricted/search']) {
      const res = await app.call('POST', path, { token: outsider.access, body: { str_query: tag, str_order_by: 'str_name', str_order: 'ASC' } });
      expect(res.status).toBe(200);
      expect(res.body.meta.int_total_results).toBe(2);
      const [a, b] = res.body.data;
      for (const e of [a, b]) expectEstablishmentShape(e, UNRESTRICTED_KEYS);
      expect(a.id).toBe(company.id);
      expect(a.str_document).toBe(companyDoc);
      expect(b.id).toBe(person.id);
      expect(b.str_document).toBe(`***.${personDoc.slice(3, 6)}.${personDoc.slice(6, 9)}-**`);
      // A stranger to the responsible person: not even the masked CPF (CONTRACT.md, Accounts).
      expect(b.str_responsible_document).toBeNull();
      expect(b.control_units).toHaveLength(1);
      expect(Object.keys(b.control_units[0]).sort()).toEqual(UNRESTRICTED_UNIT_KEYS);
      expect(b.control_units[0].str_responsible_user_name).toBe(owner.user.str_name);
    }
    // The same establishments stay invisible to the outsider's own index.
    expect((await app.call('GET', `/api/establishments/${person.id}`, { token: outsider.access })).status).toBe(404);
    const byDocument = await app.call('POST', '/api/establishments/unrestricted/search', { token: outsider.access, body: { str_document: personDoc } });
    expect(byDocument.status).toBe(422);
  });

  test("from the unrestricted search into a unit: another organization's establishment and responsible user are null, in as many statements for 2 as for 20", async () => {
    const outsider = await member(app, 'VIEWER');
    const query = `query($filter: JSONObject) { establishmentsUnrestricted(filter: $filter, page: { int_max_results: 50 }) { data { id
      control_units { id str_responsible_user_name responsible_user { str_email } establishment { str_document str_email control_units { id } } } } } }`;
    const sqlFor = async (n: number) => {
      const owner = await member(app, 'OWNER');
      const tag = randomUUID().slice(0, 8);
      for (let i = 0; i < n; i++) {
        const e = await create(owner.access, { str_name: `Sítio ${tag} ${i}`, str_document: cnpj(), str_email: 'farm@example.com' });
        await addUnit(e.id, owner.user.id);
      }
      const theirs = await app.graphql(query, { filter: { str_query: tag } }, outsider.access);
      expect(theirs.body.errors).toBeUndefined();
      const units = theirs.body.data.establishmentsUnrestricted.data.flatMap((e: { control_units: unknown[] }) => e.control_units);
      expect(units).toHaveLength(n);
      for (const u of units) expect(u).toMatchObject({ str_responsible_user_name: owner.user.str_name, responsible_user: null, establishment: null });
      const own = await app.graphql(query, { filter: { str_query: tag } }, owner.access);
      const ownUnits = own.body.data.establishmentsUnrestricted.data.flatMap((e: { control_units: unknown[] }) => e.control_units);
      expect(ownUnits).toHaveLength(n);
      for (const u of ownUnits) expect(u).toMatchObject({ responsible_user: { str_email: owner.email }, establishment: { str_email: 'farm@example.com', control_units: [{ id: u.id }] } });
      return [theirs.sql, own.sql];
    };
    const [two, twenty] = [await sqlFor(2), await sqlFor(20)];
    expect(Number.isFinite(two[0])).toBe(true);
    expect(twenty).toEqual(two);
  });
});

describe('GraphQL', () => {
  test('establishment → county, responsible user, control units → establishment', async () => {
    const owner = await member(app, 'OWNER');
    const e = await create(owner.access, { responsible_user_id: owner.user.id });
    const unitId = await addUnit(e.id, owner.user.id);
    const res = await app.graphql(
      `query($id: UUID!) { establishment(id: $id) { id county { id str_ibge_code } responsible_user { id organizations { id } } control_units { id establishment { id } responsible_user { id } } } }`,
      { id: e.id },
      owner.access,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.establishment).toEqual({
      id: e.id,
      county: { id: county.id, str_ibge_code: county.str_ibge_code },
      responsible_user: { id: owner.user.id, organizations: [{ id: owner.org.id }] },
      control_units: [{ id: unitId, establishment: { id: e.id }, responsible_user: { id: owner.user.id } }],
    });
  });
});
