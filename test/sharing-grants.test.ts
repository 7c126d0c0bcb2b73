import { randomUUID } from 'node:crypto';
import { expectStatus, useApp } from './helpers/app.js';
import { TestClock } from './helpers/clock.js';
import { count } from './helpers/db.js';
import { login, makeOrganization, member, type Person } from './helpers/factories.js';
import { animalBody } from './helpers/identify.js';
import { holding, type Holding } from './helpers/movements.js';
import { makeCounty, unitCode } from './helpers/places.js';
import { share } from './helpers/sharing.js';
import { transporterWithTruck } from './helpers/travels.js';
import { makeUnit, stockAnimals, stockTags, type TestUnit } from './helpers/tags.js';

/**
 * What an active sharing lets its grantees read, through every read the service has: an owner's
 * farm (establishment E1 with units U1 and U1b, establishment E2 with U2) holding animals, tags, a
 * GTA, an egress, an ingress, a travel and an occurrence at U1; grantees of fresh organizations.
 */
const clock = new TestClock();
let farm: Holding;
let u1b: TestUnit;
let u2: TestUnit;
const ids: Record<'a1' | 'b1' | 'c1' | 'tag' | 'box' | 'gta' | 'egress' | 'ingress' | 'occurrence' | 'travel' | 'freeCode', string> = {} as never;

const app = useApp({}, clock);
beforeAll(async () => {
  const county = await makeCounty(app);
  farm = await holding(app, county, 'FARM');
  const feedlot = await holding(app, county, 'FEEDLOT');
  u1b = { establishmentId: farm.unit.establishmentId, unitId: randomUUID(), code: unitCode() };
  const em = app.service.orm.em.fork();
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Retiro 2', 'PRODUCTION')`, [u1b.unitId, u1b.establishmentId, u1b.code]);
  u2 = await makeUnit(app, farm.owner.org.id, county);
  [ids.a1] = (await stockAnimals(app, farm.unit.unitId, 1)).animalIds as [string];
  [ids.b1] = (await stockAnimals(app, u1b.unitId, 1)).animalIds as [string];
  [ids.c1] = (await stockAnimals(app, u2.unitId, 1)).animalIds as [string];
  const stock = await stockTags(app, farm.unit.unitId, 2);
  [ids.tag, ids.box, ids.freeCode] = [stock.tagIds[0]!, stock.boxId, stock.codes[1]!];
  [ids.gta, ids.egress, ids.ingress, ids.occurrence] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await em.execute(
    `insert into gta (id, organization_id, str_code, int_animal_quantity, str_federative_unit, str_purpose, from_control_unit_id, to_control_unit_id, from_establishment_id, to_establishment_id, ts_issued_at, ts_valid_until, str_status)
     values (?, ?, ?, 1, ?, 'FATTENING', ?, ?, ?, ?, now(), now() + interval '7 days', 'IN_USE')`,
    [ids.gta, farm.owner.org.id, String(Math.floor(Math.random() * 1e9)), county.str_federative_unit, farm.unit.unitId, feedlot.unit.unitId, farm.unit.establishmentId, feedlot.unit.establishmentId],
  );
  await em.execute(`insert into animals_egress (id, from_control_unit_id, to_control_unit_id, gta_id, str_status, bl_move_with_tag_reading, int_tag_count) values (?, ?, ?, ?, 'OPEN', true, 0)`, [ids.egress, farm.unit.unitId, feedlot.unit.unitId, ids.gta]);
  await em.execute(`insert into animals_ingress (id, to_control_unit_id, str_status, bl_move_with_tag_reading) values (?, ?, 'OPEN', true)`, [ids.ingress, farm.unit.unitId]);
  await em.execute(`insert into occurrence (id, str_type, control_unit_id, animal_id) values (?, 'OTHER', ?, ?)`, [ids.occurrence, farm.unit.unitId, ids.a1]);
  const { driver, vehicle } = await transporterWithTruck(app);
  ids.travel = randomUUID();
  await em.execute(`insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id) values (?, ?, ?, ?, ?)`, [ids.travel, vehicle.id, driver.user.id, farm.unit.unitId, feedlot.unit.unitId]);
});
afterEach(() => clock.release());

type Kind = 'ANIMALS' | 'TAGS' | 'MOVEMENTS' | 'PLACES' | 'ALL';

/** Every read path, with the kind of data it shows: a sharing of that scope (or ALL) opens it; PLACES opens with any scope. */
const READS: [string, Kind, (token: string) => Promise<boolean>][] = [];
const ok = (path: string) => async (token: string) => (await app.call('GET', path, { token })).status === 200;
const lists = (method: 'GET' | 'POST', path: string, id: () => string) => async (token: string) => {
  const res = await app.call(method, path, { token, ...(method === 'POST' ? { body: {} } : {}) });
  return res.status === 200 && res.body.data.some((r: { id: string }) => r.id === id());
};
/** A GraphQL answer's root fields: a record (or null) or a page. */
type Roots = Record<string, { id?: string; data?: { id: string }[] } | null>;
const gql = (query: string, pick: (data: Roots) => boolean) => async (token: string) => {
  const res = await app.graphql(query, {}, token);
  return !!res.body.data && pick(res.body.data);
};
const traced = (input: () => Record<string, unknown>) => async (token: string) => {
  const res = await app.call('POST', '/api/trace', { token, body: { ts_from: new Date(Date.now() - 86_400_000).toISOString(), ts_to: new Date(Date.now() + 86_400_000).toISOString(), ...input() } });
  return res.status === 200 && res.body.data.some((a: { animal_id: string }) => a.animal_id === ids.a1);
};
const read = (name: string, kind: Kind, check: (token: string) => Promise<boolean>) => READS.push([name, kind, check]);
read('GET /api/animals/{id}', 'ANIMALS', (t) => ok(`/api/animals/${ids.a1}`)(t));
read('GET /api/v1/animals/{id}', 'ANIMALS', (t) => ok(`/api/v1/animals/${ids.a1}`)(t));
read('GET /api/animals', 'ANIMALS', lists('GET', '/api/animals', () => ids.a1));
read('POST /api/animals/search', 'ANIMALS', lists('POST', '/api/animals/search', () => ids.a1));
read('GET /api/animals/{id}/history', 'ANIMALS', (t) => ok(`/api/animals/${ids.a1}/history`)(t));
read('graphql animal', 'ANIMALS', (t) => gql(`{ animal(id: "${ids.a1}") { id } }`, (d) => d.animal?.id === ids.a1)(t));
read('graphql animals', 'ANIMALS', (t) => gql(`{ animals { data { id } } }`, (d) => !!d.animals?.data?.some((a) => a.id === ids.a1))(t));
read('GET /api/tags/{id}', 'TAGS', (t) => ok(`/api/tags/${ids.tag}`)(t));
read('GET /api/tags', 'TAGS', lists('GET', '/api/tags', () => ids.tag));
read('GET /api/tags-boxes/{id}', 'TAGS', (t) => ok(`/api/tags-boxes/${ids.box}`)(t));
read('GET /api/animals-egress/{id}', 'MOVEMENTS', (t) => ok(`/api/animals-egress/${ids.egress}`)(t));
read('GET /api/v1/animals-egress', 'MOVEMENTS', lists('GET', '/api/v1/animals-egress', () => ids.egress));
read('GET /api/animals-ingress/{id}', 'MOVEMENTS', (t) => ok(`/api/animals-ingress/${ids.ingress}`)(t));
read('POST /api/animals-ingress/search', 'MOVEMENTS', lists('POST', '/api/animals-ingress/search', () => ids.ingress));
read('GET /api/travels/{id}', 'MOVEMENTS', (t) => ok(`/api/travels/${ids.travel}`)(t));
read('GET /api/gtas/{id}', 'MOVEMENTS', (t) => ok(`/api/gtas/${ids.gta}`)(t));
read('POST /api/trace (establishment)', 'MOVEMENTS', traced(() => ({ establishment_id: farm.unit.establishmentId })));
read('POST /api/trace (animal)', 'MOVEMENTS', traced(() => ({ animal_id: ids.a1 })));
read('GET /api/establishments/{id}', 'PLACES', (t) => ok(`/api/establishments/${farm.unit.establishmentId}`)(t));
read('GET /api/v1/establishments', 'PLACES', lists('GET', '/api/v1/establishments', () => farm.unit.establishmentId));
read('GET /api/establishments/{id}/history', 'PLACES', (t) => ok(`/api/establishments/${farm.unit.establishmentId}/history`)(t));
read('graphql establishment', 'PLACES', (t) => gql(`{ establishment(id: "${farm.unit.establishmentId}") { id } }`, (d) => !!d.establishment)(t));
read('GET /api/control-units/{id}', 'PLACES', (t) => ok(`/api/control-units/${farm.unit.unitId}`)(t));
read('POST /api/control-units/search', 'PLACES', lists('POST', '/api/control-units/search', () => farm.unit.unitId));
read('GET /api/occurrences/{id}', 'ALL', (t) => ok(`/api/occurrences/${ids.occurrence}`)(t));

/** Which reads show the farm's records to the caller. */
async function seen(token: string): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const [name, , check] of READS) out[name] = await check(token);
  return out;
}

/** What a sharing of `scope` should show (null: no sharing, nothing). */
function expected(scope: Kind | null): Record<string, boolean> {
  return Object.fromEntries(READS.map(([name, kind]) => [name, scope !== null && (scope === 'ALL' || kind === scope || kind === 'PLACES')]));
}

const grantee = () => member(app);
const shareFarm = (scope: string, users: Person[], over: Record<string, unknown> = {}) =>
  share(app, farm.owner.access, { lst_user_ids: users.map((u) => u.user.id), accesses: [{ establishment_id: farm.unit.establishmentId, str_scope: scope }], ...over });

describe('an active sharing grants exactly its scope through every read path', () => {
  test('before any sharing, a user of another organization reads nothing of the farm (and the owner everything)', async () => {
    const g = await grantee();
    expect(await seen(g.access)).toEqual(expected(null));
    expect(await seen(farm.owner.access)).toEqual(expected('ALL'));
  });

  test.each(['ANIMALS', 'TAGS', 'MOVEMENTS', 'ALL'] as const)('%s: the reads of that scope and the places; deactivated, nothing again', async (scope) => {
    const g = await grantee();
    const s = await shareFarm(scope, [g]);
    expect(await seen(g.access)).toEqual(expected(scope));
    expectStatus(await app.call('PATCH', `/api/sharings/${s.id}`, { token: farm.owner.access, body: { bl_deactivated_manually: true } }), 200);
    expect(await seen(g.access)).toEqual(expected(null));
  });

  test('on a clock the test holds: nothing while SCHEDULED, everything from ts_scheduled_to, nothing from the millisecond it expires', async () => {
    const g = await grantee();
    const start = Date.now() + 3_600_000;
    const end = start + 3_600_000;
    await shareFarm('ALL', [g], { ts_scheduled_to: new Date(start).toISOString(), ts_expires_at: new Date(end).toISOString() });
    for (const [at, scope] of [[start - 1, null], [start, 'ALL'], [end - 1, 'ALL'], [end, null]] as const) {
      clock.set(new Date(at));
      expect({ at, seen: await seen(g.access) }).toEqual({ at, seen: expected(scope) });
    }
  });

  test('a removed sharing grants nothing', async () => {
    const g = await grantee();
    const s = await shareFarm('ALL', [g]);
    expect((await app.call('GET', `/api/animals/${ids.a1}`, { token: g.access })).status).toBe(200);
    expect((await app.call('DELETE', `/api/sharings/${s.id}`, { token: farm.owner.access })).status).toBe(204);
    expect(await seen(g.access)).toEqual(expected(null));
  });
});

describe('what a sharing covers', () => {
  const visibleAnimals = async (token: string) => (await app.call('GET', '/api/animals', { token })).body.data.map((a: { id: string }) => a.id).sort();
  const visibleUnits = async (token: string) => (await app.call('GET', '/api/control-units', { token })).body.data.map((u: { id: string }) => u.id).sort();

  test("an establishment's access covers every unit of it; a unit's access that unit alone (not its siblings); other establishments never", async () => {
    const whole = await grantee();
    const one = await grantee();
    await shareFarm('ANIMALS', [whole]);
    await share(app, farm.owner.access, { lst_user_ids: [one.user.id], accesses: [{ control_unit_id: farm.unit.unitId, str_scope: 'ANIMALS' }] });
    expect(await visibleAnimals(whole.access)).toEqual([ids.a1, ids.b1].sort());
    expect(await visibleUnits(whole.access)).toEqual([farm.unit.unitId, u1b.unitId].sort());
    expect(await visibleAnimals(one.access)).toEqual([ids.a1]);
    expect(await visibleUnits(one.access)).toEqual([farm.unit.unitId]);
    // The unit's establishment is readable (as for an invite), its other units are not.
    expect((await app.call('GET', `/api/establishments/${farm.unit.establishmentId}`, { token: one.access })).status).toBe(200);
    expect((await app.call('GET', `/api/control-units/${u1b.unitId}`, { token: one.access })).status).toBe(404);
    for (const t of [whole.access, one.access]) {
      expect((await app.call('GET', `/api/animals/${ids.c1}`, { token: t })).status).toBe(404);
      expect((await app.call('GET', `/api/establishments/${u2.establishmentId}`, { token: t })).status).toBe(404);
    }
  });

  test("an organization's grant reaches its members while it is their active organization, not after reset-profile", async () => {
    const viewer = await member(app, 'VIEWER');
    const colleague = await member(app, 'OPERATOR', viewer.org);
    const outsider = await member(app, 'VIEWER');
    await share(app, farm.owner.access, { lst_org_ids: [viewer.org.id], accesses: [{ control_unit_id: farm.unit.unitId, str_scope: 'ANIMALS' }] });
    for (const t of [viewer.access, colleague.access]) expect((await app.call('GET', `/api/animals/${ids.a1}`, { token: t })).status).toBe(200);
    expect((await app.call('GET', `/api/animals/${ids.a1}`, { token: outsider.access })).status).toBe(404);
    const personal = await app.call('POST', '/api/reset-profile', { token: viewer.access });
    expectStatus(personal, 200);
    expect((await app.call('GET', `/api/animals/${ids.a1}`, { token: personal.body.data.str_access_token })).status).toBe(404);
    // Another organization of the same user is not the granted one.
    const other = await makeOrganization(app, [{ person: viewer, role: 'OWNER' }]);
    expect((await app.call('GET', `/api/animals/${ids.a1}`, { token: (await login(app, viewer, other.id)).access })).status).toBe(404);
  });

  test("one sharing's grant does not leak to others: a stranger still reads nothing, and cross-tenant reads stay 404", async () => {
    const g = await grantee();
    await shareFarm('ALL', [g]);
    const stranger = await grantee();
    expect(await seen(stranger.access)).toEqual(expected(null));
    // The grantee's own records stay its own: the farm's owner does not read them back.
    const own = await makeUnit(app, g.org.id);
    expect((await app.call('GET', `/api/control-units/${own.unitId}`, { token: farm.owner.access })).status).toBe(404);
  });
});

describe('a grant is for reading only', () => {
  test('with an ALL sharing active, every write at the shared places is 403 and writes nothing', async () => {
    const g = await grantee();
    await shareFarm('ALL', [g]);
    const at = farm.unit.unitId;
    const writes: [string, string, unknown][] = [
      ['PATCH', `/api/animals/${ids.a1}`, { str_name: 'Mimosa' }],
      ['PUT', `/api/establishments/${farm.unit.establishmentId}`, { str_name: 'Outra' }],
      ['POST', '/api/tags-identifications', { to_control_unit_id: at, animals: [animalBody(ids.freeCode)] }],
      ['POST', '/api/animals-egress', { from_control_unit_id: at, gta_id: ids.gta, tags: [] }],
      ['POST', `/api/animals-egress/${ids.egress}/cancel`, {}],
      ['POST', `/api/animals-ingress/${ids.ingress}/cancel`, {}],
      ['POST', '/api/occurrences', { control_unit_id: at, str_type: 'OTHER', str_description: 'cerca quebrada' }],
      ['POST', `/api/occurrences/${ids.occurrence}/resolve`, { str_resolution: 'x' }],
      ['POST', '/api/invites', { control_unit_id: at, user_id: g.user.id, str_movimentation_type: 'BOTH' }],
      ['POST', `/api/gtas/${ids.gta}/cancel`, {}],
    ];
    const statuses = [];
    for (const [method, path, body] of writes) statuses.push([method, path, (await app.call(method, path, { token: g.access, body })).status]);
    expect(statuses).toEqual(writes.map(([method, path]) => [method, path, 403]));
    // Sharing what was shared with it: the place is not its organization's.
    const reshare = await app.call('POST', '/api/sharings', { token: g.access, body: { str_name: 'x', accesses: [{ establishment_id: farm.unit.establishmentId, str_scope: 'ALL' }] } });
    expect(reshare.status).toBe(422);
    expect(await count(app, `event where actor_id = ? and str_type not like 'SESSION%'`, [g.user.id])).toBe(0);
  });
});

describe('the grant keeps reads set-based', () => {
  test("a grantee's animals page, search and point read take the statements the owner's do", async () => {
    const g = await grantee();
    await shareFarm('ALL', [g]);
    for (const [method, path] of [['GET', '/api/animals'], ['POST', '/api/animals/search'], ['GET', `/api/animals/${ids.a1}`], ['GET', '/api/animals-egress'], ['GET', '/api/tags']] as const) {
      const owner = await app.call(method, path, { token: farm.owner.access, body: method === 'POST' ? {} : undefined });
      const shared = await app.call(method, path, { token: g.access, body: method === 'POST' ? {} : undefined });
      expect({ path, status: shared.status, sql: shared.sql }).toEqual({ path, status: 200, sql: owner.sql });
    }
  });
});
