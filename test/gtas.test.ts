import { randomUUID } from 'node:crypto';
import type { Role } from '../src/identity/membership.entity.js';
import type { Organization } from '../src/identity/organization.entity.js';
import type { UserType } from '../src/identity/user.entity.js';
import { useApp } from './helpers/app.js';
import { cnpj, login, makeUser, member, official as officialIn } from './helpers/factories.js';
import { ISO_Z, UUID_RE, unitCode, useCounty, type TestCounty } from './helpers/places.js';
import { makeUnit } from './helpers/tags.js';

const app = useApp();
const county = useCounty(app);
const otherCounty = useCounty(app, county);

const db = () => app.service.orm.em.fork();
const DAY = 86_400_000;
const future = () => new Date(Date.now() + 10 * DAY).toISOString();

const GTA_KEYS = [
  'id', 'str_code', 'int_animal_quantity', 'str_federative_unit', 'str_series', 'str_status', 'str_purpose', 'str_species', 'str_external_id',
  'organization_id', 'from_control_unit_id', 'to_control_unit_id', 'from_establishment_id', 'to_establishment_id', 'from_control_unit', 'to_control_unit',
  'responsible_user', 'ts_issued_at', 'ts_valid_until', 'ts_created_at', 'ts_updated_at',
].sort();

/** An establishment with one control unit, in the organization, written straight to the database (set-up). */
const place = (orgId: string, c: TestCounty = county) => makeUnit(app, orgId, c);

const addMember = (org: Organization, role: Role, type: UserType = 'PRODUCER') => member(app, role, org, type);

const official = (c: TestCounty, type: UserType = 'AUTHORITY') => officialIn(app, c.id, type);

const gtaBody = (from: string, to: string, over: Record<string, unknown> = {}) => ({
  str_code: `${Math.floor(Math.random() * 1e9)}`,
  int_animal_quantity: 12,
  str_series: 'A',
  str_purpose: 'FATTENING',
  from_control_unit_id: from,
  to_control_unit_id: to,
  ts_valid_until: future(),
  ...over,
});

async function setup() {
  const owner = await member(app);
  const origin = await place(owner.org.id);
  const dest = await member(app);
  const destination = await place(dest.org.id);
  return { owner, origin, dest, destination };
}

async function createGta(token: string, body: unknown) {
  const res = await app.call('POST', '/api/gtas', { token, body });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body.data;
}

const countGtas = async (where: string, params: unknown[]) => (await db().execute<{ n: number }[]>(`select count(*)::int as n from gta where ${where}`, params))[0]!.n;

describe('POST /api/gtas', () => {
  test('an owner issues a GTA: 201, the documented record, derived establishments and UF, an event', async () => {
    const { owner, origin, destination } = await setup();
    const body = gtaBody(origin.unitId, destination.unitId);
    const g = await createGta(owner.access, { gta: body, user_id: owner.user.id });
    expect(Object.keys(g).sort()).toEqual(GTA_KEYS);
    expect(g.id).toMatch(UUID_RE);
    expect(g).toMatchObject({
      str_code: body.str_code,
      int_animal_quantity: 12,
      str_federative_unit: county.str_federative_unit,
      str_series: 'A',
      str_status: 'ISSUED',
      str_purpose: 'FATTENING',
      str_species: 'BOVINE',
      str_external_id: null,
      organization_id: owner.org.id,
      from_control_unit_id: origin.unitId,
      to_control_unit_id: destination.unitId,
      from_establishment_id: origin.establishmentId,
      to_establishment_id: destination.establishmentId,
      responsible_user: { id: owner.user.id, str_document: owner.document, str_name: owner.user.str_name },
    });
    expect(g.from_control_unit).toMatchObject({ id: origin.unitId, str_code: origin.code });
    expect(g.to_control_unit).toMatchObject({ id: destination.unitId, str_code: destination.code });
    for (const f of ['ts_issued_at', 'ts_valid_until', 'ts_created_at', 'ts_updated_at']) expect(g[f]).toMatch(ISO_Z);
    const events = await db().execute<{ str_type: string; actor_id: string }[]>(`select str_type, actor_id from event where str_record_type = 'Gta' and record_id = ?`, [g.id]);
    expect(events).toEqual([{ str_type: 'GTA_CREATED', actor_id: owner.user.id }]);
  });

  test('missing required fields: 422 naming each, nothing written', async () => {
    const { owner } = await setup();
    const res = await app.call('POST', '/api/gtas', { token: owner.access, body: { gta: { str_series: 'ZZ-missing' } } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields).sort()).toEqual(
      ['gta.from_control_unit_id', 'gta.int_animal_quantity', 'gta.str_code', 'gta.str_purpose', 'gta.to_control_unit_id', 'gta.ts_valid_until'].sort(),
    );
    const empty = await app.call('POST', '/api/gtas', { token: owner.access, body: {} });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.detail.fields)).toContain('gta');
    expect(await countGtas('str_series = ?', ['ZZ-missing'])).toBe(0);
  });

  test('bad quantity, purpose, species and a uuid that is not one: 422 naming the field', async () => {
    const { owner, origin, destination } = await setup();
    const body = gtaBody(origin.unitId, destination.unitId, { int_animal_quantity: 0, str_purpose: 'PICNIC', str_species: 'OVINE', to_control_unit_id: 'nope' });
    const res = await app.call('POST', '/api/gtas', { token: owner.access, body: { gta: body } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.detail.fields).sort()).toEqual(['gta.int_animal_quantity', 'gta.str_purpose', 'gta.str_species', 'gta.to_control_unit_id']);
    expect(await countGtas('str_code = ?', [body.str_code])).toBe(0);
  });

  test('the same UF + series + number twice: 422 CONFLICT on str_code, one row', async () => {
    const { owner, origin, destination } = await setup();
    const body = gtaBody(origin.unitId, destination.unitId);
    await createGta(owner.access, { gta: body });
    const again = await app.call('POST', '/api/gtas', { token: owner.access, body: { gta: { ...body, int_animal_quantity: 3 } } });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('CONFLICT');
    expect(Object.keys(again.body.detail.fields)).toEqual(['str_code']);
    expect(await countGtas('str_code = ? and str_federative_unit = ?', [body.str_code, county.str_federative_unit])).toBe(1);
    // Another series is another GTA.
    await createGta(owner.access, { gta: { ...body, str_series: 'B' } });
  });

  test('a client-chosen id: the same body again is a replay (201, one row); another body is a 422 CONFLICT', async () => {
    const { owner, origin, destination } = await setup();
    const id = randomUUID();
    const body = { gta: gtaBody(origin.unitId, destination.unitId, { id }) };
    const first = await createGta(owner.access, body);
    const second = await createGta(owner.access, body);
    expect(second.id).toBe(id);
    expect(second).toEqual(first);
    const other = await app.call('POST', '/api/gtas', { token: owner.access, body: { gta: { ...body.gta, int_animal_quantity: 99 } } });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
    expect(await countGtas('id = ?', [id])).toBe(1);
  });

  test('a VIEWER is refused 403, a stranger cannot issue from a unit it does not see (422), nothing written', async () => {
    const { owner, origin, destination } = await setup();
    const viewer = await addMember(owner.org, 'VIEWER');
    const body = gtaBody(origin.unitId, destination.unitId);
    const refused = await app.call('POST', '/api/gtas', { token: viewer.access, body: { gta: body } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('FORBIDDEN');
    const stranger = await member(app);
    const invisible = await app.call('POST', '/api/gtas', { token: stranger.access, body: { gta: body } });
    expect(invisible.status).toBe(422);
    expect(Object.keys(invisible.body.detail.fields)).toEqual(['gta.from_control_unit_id']);
    const unknownDestination = await app.call('POST', '/api/gtas', { token: owner.access, body: { gta: { ...body, to_control_unit_id: randomUUID() } } });
    expect(unknownDestination.status).toBe(422);
    expect(Object.keys(unknownDestination.body.detail.fields)).toEqual(['gta.to_control_unit_id']);
    expect(await countGtas('str_code = ?', [body.str_code])).toBe(0);
    // An OPERATOR records field work: issuing is theirs.
    const operator = await addMember(owner.org, 'OPERATOR');
    await createGta(operator.access, { gta: body });
  });

  test("an AUTHORITY of the origin's UF issues; an INTEGRATION user is refused 403", async () => {
    const { origin, destination } = await setup();
    const authority = await official(county);
    const g = await createGta(authority.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    expect(g.str_status).toBe('ISSUED');
    const integration = await official(county, 'INTEGRATION');
    const body = gtaBody(origin.unitId, destination.unitId);
    const res = await app.call('POST', '/api/gtas', { token: integration.access, body: { gta: body } });
    expect(res.status).toBe(403);
    expect(await countGtas('str_code = ?', [body.str_code])).toBe(0);
  });
});

describe('reading GTAs', () => {
  test('origin and destination organizations and UF officials read it; a stranger and another UF get 404', async () => {
    const { owner, dest, origin, destination } = await setup();
    const g = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    for (const token of [owner.access, dest.access, (await official(county)).access, (await official(county, 'INTEGRATION')).access]) {
      for (const base of ['/api', '/api/v1']) {
        const res = await app.call('GET', `${base}/gtas/${g.id}`, { token });
        expect(res.status).toBe(200);
        expect(res.body.data.id).toBe(g.id);
      }
    }
    for (const token of [(await member(app)).access, (await official(otherCounty)).access]) {
      const res = await app.call('GET', `/api/gtas/${g.id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
      const list = await app.call('GET', '/api/v1/gtas', { token, headers: {} });
      expect(list.status).toBe(200);
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(g.id);
    }
    const bad = await app.call('GET', '/api/gtas/not-a-uuid', { token: owner.access });
    expect(bad.status).toBe(400);
  });

  test('index and search are paged and filtered; the destination sees it in its list', async () => {
    const { owner, dest, origin, destination } = await setup();
    const a = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId, { str_purpose: 'SLAUGHTER' }) });
    const b = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    const index = await app.call('GET', '/api/gtas', { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
    expect(index.body.data.map((x: { id: string }) => x.id).sort()).toEqual([a.id, b.id].sort());
    const search = await app.call('POST', '/api/gtas/search', { token: dest.access, body: { str_purpose: 'SLAUGHTER' } });
    expect(search.status).toBe(200);
    expect(search.body.data.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const v1 = await app.call('POST', '/api/v1/gtas/search', { token: owner.access, body: { str_code: b.str_code } });
    expect(v1.body.data.map((x: { id: string }) => x.id)).toEqual([b.id]);
    const unknown = await app.call('POST', '/api/gtas/search', { token: owner.access, body: { bogus: 1 } });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.detail.fields)).toEqual(['bogus']);
  });

  test('EXPIRED is derived on read when ts_valid_until passed unused; the stored status stays ISSUED', async () => {
    const { owner, origin, destination } = await setup();
    const g = await createGta(owner.access, {
      gta: gtaBody(origin.unitId, destination.unitId, { ts_issued_at: new Date(Date.now() - 3 * DAY).toISOString(), ts_valid_until: new Date(Date.now() - DAY).toISOString() }),
    });
    expect(g.str_status).toBe('EXPIRED');
    const read = await app.call('GET', `/api/gtas/${g.id}`, { token: owner.access });
    expect(read.body.data.str_status).toBe('EXPIRED');
    const [row] = await db().execute<{ str_status: string }[]>('select str_status from gta where id = ?', [g.id]);
    expect(row!.str_status).toBe('ISSUED');
    const live = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    const expired = await app.call('GET', '/api/gtas?str_status=EXPIRED', { token: owner.access });
    expect(expired.body.data.map((x: { id: string }) => x.id)).toEqual([g.id]);
    const issued = await app.call('POST', '/api/gtas/search', { token: owner.access, body: { str_status: 'ISSUED' } });
    expect(issued.body.data.map((x: { id: string }) => x.id)).toEqual([live.id]);
    const badStatus = await app.call('POST', '/api/gtas/search', { token: owner.access, body: { str_status: 'LOST' } });
    expect(badStatus.status).toBe(422);
    expect(Object.keys(badStatus.body.detail.fields)).toEqual(['str_status']);
    const cancel = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token: owner.access });
    expect(cancel.status).toBe(422);
    expect(cancel.body.error).toBe('INVALID_STATE');
  });

  test('the GTA index runs the same number of statements for 2 and for 20 GTAs (REST and GraphQL with relations)', async () => {
    const sqlFor = async (n: number) => {
      const { owner, dest, origin, destination } = await setup();
      for (let i = 0; i < n; i++) {
        const other = i % 2 ? destination : await place(owner.org.id);
        await db().execute(
          `insert into gta (id, organization_id, str_code, int_animal_quantity, str_federative_unit, str_series, str_purpose, from_control_unit_id, to_control_unit_id, from_establishment_id, to_establishment_id, ts_issued_at, ts_valid_until, responsible_user_id)
           values (?, ?, ?, 5, ?, 'S', 'OTHER', ?, ?, ?, ?, now(), now() + interval '1 day', ?)`,
          [randomUUID(), owner.org.id, randomUUID(), county.str_federative_unit, origin.unitId, other.unitId, origin.establishmentId, other.establishmentId, owner.user.id],
        );
      }
      await db().execute('update control_unit set responsible_user_id = ? where establishment_id in (select id from establishment where organization_id in (?, ?))', [owner.user.id, owner.org.id, dest.org.id]);
      const rest = await app.call('GET', '/api/gtas', { token: owner.access });
      expect(rest.body.data).toHaveLength(n);
      // Half the destinations belong to another organization: the scoped relations answer null for those, in the same statements.
      const gql = await app.graphql(
        `{ gtas { data { id str_status from_establishment { str_name str_county_name str_document control_units { id } } to_establishment { str_name }
          from_control_unit { str_code responsible_user { id } establishment { id control_units { id responsible_user { id } } } }
          to_control_unit { str_code str_responsible_user_name responsible_user { id } establishment { id } } responsible_user { str_name } } } }`,
        {},
        owner.access,
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.gtas.data).toHaveLength(n);
      const hidden = gql.body.data.gtas.data.filter((g: { to_control_unit: { establishment: unknown } }) => g.to_control_unit.establishment === null);
      expect(hidden).toHaveLength(n / 2);
      for (const g of hidden) expect(g.to_control_unit).toMatchObject({ responsible_user: null, str_responsible_user_name: owner.user.str_name });
      return [rest.sql, gql.sql];
    };
    expect(await sqlFor(20)).toEqual(await sqlFor(2));
  });
});

describe('POST /api/gtas/:id/cancel', () => {
  test('its issuer cancels: ISSUED → CANCELLED with an event; again is 422 INVALID_STATE', async () => {
    const { owner, origin, destination } = await setup();
    const g = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    const res = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: g.id, str_status: 'CANCELLED' });
    const again = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token: owner.access });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('INVALID_STATE');
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where str_record_type = 'Gta' and record_id = ? order by seq`, [g.id]);
    expect(events.map((e) => e.str_type)).toEqual(['GTA_CREATED', 'GTA_CANCELLED']);
  });

  test('IN_USE (animals dispatched) and RECEIVED cannot be cancelled: 422 INVALID_STATE, unchanged', async () => {
    const { owner, origin, destination } = await setup();
    for (const status of ['IN_USE', 'RECEIVED']) {
      const g = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
      await db().execute('update gta set str_status = ? where id = ?', [status, g.id]);
      const res = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token: owner.access });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('INVALID_STATE');
      const [row] = await db().execute<{ str_status: string }[]>('select str_status from gta where id = ?', [g.id]);
      expect(row!.str_status).toBe(status);
    }
  });

  test('a manager who did not issue it gets 403, the destination 403, a stranger 404; an authority of the UF and an admin cancel', async () => {
    const { owner, dest, origin, destination } = await setup();
    const g = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    const manager = await addMember(owner.org, 'MANAGER');
    for (const token of [manager.access, dest.access]) {
      const res = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
    }
    const stranger = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token: (await member(app)).access });
    expect(stranger.status).toBe(404);
    const [row] = await db().execute<{ str_status: string }[]>('select str_status from gta where id = ?', [g.id]);
    expect(row!.str_status).toBe('ISSUED');
    const byAuthority = await app.call('POST', `/api/gtas/${g.id}/cancel`, { token: (await official(county)).access });
    expect(byAuthority.status).toBe(200);
    expect(byAuthority.body.data.str_status).toBe('CANCELLED');
    const g2 = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    const admin = await makeUser(app, { admin: true });
    const byAdmin = await app.call('POST', `/api/gtas/${g2.id}/cancel`, { token: (await login(app, admin)).access });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data.str_status).toBe('CANCELLED');
  });
});

describe('GraphQL', () => {
  test('createGta and cancelGta; establishments come back with public fields only (a CPF masked)', async () => {
    const { owner, origin, destination } = await setup();
    await db().execute(`update establishment set str_document = ? where id = ?`, [owner.document, destination.establishmentId]);
    const created = await app.graphql(
      'mutation($input: GtaCreateInput!) { createGta(input: $input) { id str_status from_establishment { id } to_establishment { id str_document } to_control_unit { str_code } } }',
      { input: { gta: gtaBody(origin.unitId, destination.unitId), user_id: owner.user.id } },
      owner.access,
    );
    expect(created.body.errors).toBeUndefined();
    const g = created.body.data.createGta;
    expect(g).toMatchObject({ str_status: 'ISSUED', from_establishment: { id: origin.establishmentId }, to_establishment: { id: destination.establishmentId }, to_control_unit: { str_code: destination.code } });
    expect(g.to_establishment.str_document).not.toBe(owner.document);
    const cancelled = await app.graphql('mutation($id: UUID!) { cancelGta(id: $id) { id str_status } }', { id: g.id }, owner.access);
    expect(cancelled.body.data.cancelGta).toEqual({ id: g.id, str_status: 'CANCELLED' });
    const again = await app.graphql('mutation($id: UUID!) { cancelGta(id: $id) { id } }', { id: g.id }, owner.access);
    expect(again.body.errors[0].extensions.code).toBe('INVALID_STATE');
  });

  test("a GTA's units lead to the other organization's establishment and responsible user only for that organization (null for the other side)", async () => {
    const { owner, dest, origin, destination } = await setup();
    const document = cnpj();
    await db().execute('update establishment set str_document = ? where id = ?', [document, destination.establishmentId]);
    await db().execute('update control_unit set responsible_user_id = ? where id = ?', [dest.user.id, destination.unitId]);
    await db().execute('update control_unit set responsible_user_id = ? where id = ?', [owner.user.id, origin.unitId]);
    const siblingId = randomUUID();
    await db().execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Outro', 'PRODUCTION')`, [siblingId, destination.establishmentId, unitCode()]);
    const g = await createGta(owner.access, { gta: gtaBody(origin.unitId, destination.unitId) });
    const query = `query($id: UUID!) { gta(id: $id) {
      from_control_unit { str_responsible_user_name responsible_user { str_email } establishment { str_document control_units { id } } }
      to_control_unit { str_responsible_user_name responsible_user { str_email } establishment { str_document control_units { id } } } } }`;
    const ids = (units: { id: string }[]) => units.map((u) => u.id).sort();

    const asOrigin = await app.graphql(query, { id: g.id }, owner.access);
    expect(asOrigin.body.errors).toBeUndefined();
    expect(asOrigin.body.data.gta.to_control_unit).toEqual({ str_responsible_user_name: dest.user.str_name, responsible_user: null, establishment: null });
    expect(asOrigin.body.data.gta.from_control_unit).toEqual({ str_responsible_user_name: owner.user.str_name, responsible_user: { str_email: owner.email }, establishment: { str_document: null, control_units: [{ id: origin.unitId }] } });

    const asDestination = await app.graphql(query, { id: g.id }, dest.access);
    expect(asDestination.body.errors).toBeUndefined();
    const to = asDestination.body.data.gta.to_control_unit;
    expect(to).toMatchObject({ responsible_user: { str_email: dest.email }, establishment: { str_document: document } });
    expect(ids(to.establishment.control_units)).toEqual([destination.unitId, siblingId].sort());
    expect(asDestination.body.data.gta.from_control_unit).toEqual({ str_responsible_user_name: owner.user.str_name, responsible_user: null, establishment: null });

    // REST shows both units as a Control Unit (Control Unit Data Without Establishment as any signed-in user reads it) to either side.
    for (const token of [owner.access, dest.access]) {
      const rest = await app.call('GET', `/api/gtas/${g.id}`, { token });
      expect(rest.status).toBe(200);
      expect(rest.body.data.to_control_unit).toEqual({
        id: destination.unitId, establishment_id: destination.establishmentId, str_code: destination.code, str_name: expect.any(String), str_type: expect.any(String),
        str_predominant_phase: null, str_predominant_system: null, str_responsible_user_name: dest.user.str_name, ts_created_at: expect.stringMatching(ISO_Z), ts_updated_at: expect.stringMatching(ISO_Z),
      });
      expect(rest.body.data.from_control_unit).toMatchObject({ id: origin.unitId, str_responsible_user_name: owner.user.str_name });
    }
  });
});
