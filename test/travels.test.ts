import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/config.js';
import { mustPost, startApp, type Reply, type TestApp } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { member, official } from './helpers/factories.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { ISO_Z, makeCounty, type TestCounty } from './helpers/places.js';
import { stockAnimals } from './helpers/tags.js';
import { eventsOf } from './helpers/tags-out.js';
import { at, transporterWithTruck } from './helpers/travels.js';

let app: TestApp;
let county: TestCounty;
beforeAll(async () => {
  app = await startApp();
  county = await makeCounty(app);
});
afterAll(() => app.close());

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** interface.md's Travel, every field (the relations are left out of a REST answer when absent). */
const TRAVEL_FIELDS = [
  'embarks', 'geo_coordinates_from', 'geo_coordinates_to', 'id', 'int_duration', 'str_consignee_name', 'str_from_control_unit_code', 'str_from_control_unit_name', 'str_status',
  'str_to_control_unit_code', 'str_to_control_unit_name', 'stops', 'transporter', 'ts_created_at', 'ts_end_time', 'ts_start_time', 'ts_updated_at', 'vehicle',
].sort();

interface Trip {
  farm: Holding;
  feedlot: Holding;
  driver: Awaited<ReturnType<typeof transporterWithTruck>>['driver'];
  vehicle: { id: string; str_license_plate: string };
  gta: { id: string };
  codes: string[];
  animalIds: string[];
  /** An OPEN egress from the farm to the feedlot with the animals read. */
  egress: { id: string };
  travel: Reply['body'];
}

/** A farm, a feedlot, a transporter with a truck, animals read into an OPEN egress under a GTA, and a PLANNED travel. */
async function trip(n = 2): Promise<Trip> {
  const farm = await holding(app, county, 'FARM');
  const feedlot = await holding(app, county, 'FEEDLOT');
  const { driver, vehicle } = await transporterWithTruck(app);
  const { codes, animalIds } = await stockAnimals(app, farm.unit.unitId, n);
  const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, n);
  const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: feedlot.unit.unitId, gta_id: gta.id, tags: codes.map((c) => egressRead(c)) })).body.data;
  const travel = (await mustPost(app, '/api/travels', farm.owner.access, planOf({ farm, feedlot, driver, vehicle }))).body.data;
  return { farm, feedlot, driver, vehicle, gta, codes, animalIds, egress, travel };
}

const planOf = (t: Pick<Trip, 'farm' | 'feedlot' | 'driver' | 'vehicle'>, over: Record<string, unknown> = {}) => ({
  vehicle_id: t.vehicle.id,
  transporter_user_id: t.driver.user.id,
  str_consignee_name: 'Confinamento Boa Vista',
  from_control_unit_id: t.farm.unit.unitId,
  to_control_unit_id: t.feedlot.unit.unitId,
  ...over,
});

const post = (path: string, token: string, body?: unknown) => app.call('POST', path, { token, body });
const embark = (t: Trip, token: string, egressId: string, over: Record<string, unknown> = {}) => post(`/api/travels/${t.travel.id}/embarks`, token, { animals_egress_id: egressId, ts_embarked_at: ago(3 * HOUR), geo_location: at(), ...over });

function expectError(res: Reply, error: string): Reply['body'] {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 422, error });
  return res.body.detail;
}
const expectRule = (res: Reply, rule: string) => expect(expectError(res, 'RULE_VIOLATED').rule).toBe(rule);
const expectFields = (res: Reply, fields: string[]) => expect(Object.keys(expectError(res, 'VALIDATION_FAILED').fields).sort()).toEqual([...fields].sort());
function expectState(res: Reply, state: string, allowed: string[]): void {
  expect(expectError(res, 'INVALID_STATE')).toMatchObject({ str_status: state, allowed });
}

const animalStatus = async (id: string) => (await rows<{ str_status: string }>(app, 'select str_status from animal where id = ?', [id]))[0]!.str_status;
const egressStatus = async (id: string) => (await rows<{ str_status: string }>(app, 'select str_status from animals_egress where id = ?', [id]))[0]!.str_status;
const occurrencesOf = async (travelId: string) =>
  (await rows<{ str_type: string; control_unit_id: string; ts_occurred_at: Date | string }>(app, 'select str_type, control_unit_id, ts_occurred_at from occurrence where travel_id = ? order by ts_created_at', [travelId])).map((o) => ({
    ...o,
    ts_occurred_at: new Date(o.ts_occurred_at).toISOString(),
  }));

describe('a travel, its whole life', () => {
  test('PLANNED → embark → IN_PROGRESS → stop → FINISHED with its duration; the record as interface.md says; the egress and its animals stay IN_TRANSIT until their ingress', async () => {
    const t = await trip();
    expect(Object.keys(t.travel).sort()).toEqual(TRAVEL_FIELDS);
    expect(t.travel).toMatchObject({
      str_status: 'PLANNED',
      embarks: [],
      stops: [],
      str_consignee_name: 'Confinamento Boa Vista',
      str_from_control_unit_code: t.farm.unit.code,
      str_from_control_unit_name: 'Curral',
      str_to_control_unit_code: t.feedlot.unit.code,
      str_to_control_unit_name: 'Curral',
      geo_coordinates_from: null,
      geo_coordinates_to: null,
      int_duration: null,
      ts_start_time: null,
      ts_end_time: null,
      transporter: expect.objectContaining({ id: t.driver.user.id, str_type: 'TRANSPORTER' }),
      vehicle: expect.objectContaining({ id: t.vehicle.id, str_license_plate: t.vehicle.str_license_plate }),
    });
    expect(t.travel.ts_created_at).toMatch(ISO_Z);

    // Loaded while PLANNED, by the origin; the same egress again is the same embark.
    const loaded = await embark(t, t.farm.owner.access, t.egress.id);
    expect(loaded.status).toBe(200);
    expect(loaded.body.data.embarks).toEqual([{ id: expect.any(String), animals_egress_id: t.egress.id, ts_embarked_at: expect.stringMatching(ISO_Z), geo_location: at(), ts_released_at: null, ts_created_at: expect.stringMatching(ISO_Z) }]);
    expect((await embark(t, t.farm.owner.access, t.egress.id)).body.data.embarks).toHaveLength(1);

    // The transporter drives: start two hours ago, one stop, finish now.
    const start = new Date(Date.now() - 2 * HOUR);
    const started = await post(`/api/travels/${t.travel.id}/start`, t.driver.access, { ts_start_time: start.toISOString(), geo_coordinates_from: at(-47.9, -15.8) });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ str_status: 'IN_PROGRESS', ts_start_time: start.toISOString(), geo_coordinates_from: at(-47.9, -15.8) });
    const stopped = await post(`/api/travels/${t.travel.id}/stops`, t.driver.access, { geo_location: at(-48.1, -16.0), ts_arrival: ago(HOUR), ts_departure: ago(HOUR - 600_000) });
    expect(stopped.status).toBe(200);
    expect(stopped.body.data.stops).toEqual([expect.objectContaining({ geo_location: at(-48.1, -16.0), ts_arrival: expect.stringMatching(ISO_Z), ts_departure: expect.stringMatching(ISO_Z) })]);

    // The truck does not arrive with animals that never left: the egress is finished first.
    const early = await post(`/api/travels/${t.travel.id}/finish`, t.driver.access, {});
    expectRule(early, 'EMBARKED_EGRESS_NOT_DISPATCHED');
    expect(early.body.detail.animals_egress_ids).toEqual([t.egress.id]);
    expect((await post(`/api/animals-egress/${t.egress.id}/finish`, t.farm.owner.access)).status).toBe(200);

    const end = new Date(start.getTime() + 2 * HOUR + 59_000);
    const finished = await post(`/api/travels/${t.travel.id}/finish`, t.driver.access, { ts_end_time: end.toISOString(), geo_coordinates_to: at(-49, -16.5) });
    expect(finished.status).toBe(200);
    expect(finished.body.data).toMatchObject({ str_status: 'FINISHED', ts_end_time: end.toISOString(), int_duration: 120, geo_coordinates_to: at(-49, -16.5) });

    // A travel never changes animals: the egress is FINISHED and its animals IN_TRANSIT until the ingress.
    expect(await egressStatus(t.egress.id)).toBe('FINISHED');
    for (const id of t.animalIds) expect(await animalStatus(id)).toBe('IN_TRANSIT');
    const ingress = (await mustPost(app, '/api/animals-ingress', t.feedlot.owner.access, { to_control_unit_id: t.feedlot.unit.unitId, gtas: [{ gta_id: t.gta.id }], tags: t.codes.map((c) => ingressRead(c)) })).body.data;
    expect((await post(`/api/animals-ingress/${ingress.id}/finish`, t.feedlot.owner.access)).body.data.str_status).toBe('RECEIVED');
    for (const id of t.animalIds) expect(await animalStatus(id)).toBe('ACTIVE');
    expect((await app.call('GET', `/api/v1/travels/${t.travel.id}`, { token: t.feedlot.owner.access })).body.data.str_status).toBe('FINISHED');

    // Nothing more happens to a finished trip.
    expectState(await post(`/api/travels/${t.travel.id}/cancel`, t.driver.access), 'FINISHED', ['PLANNED', 'IN_PROGRESS']);
    expectState(await embark(t, t.driver.access, t.egress.id), 'FINISHED', ['PLANNED', 'IN_PROGRESS']);

    const events = await eventsOf(app, 'Travel', t.travel.id);
    expect(events.map((e) => e.str_type)).toEqual(['TRAVEL_CREATED', 'TRAVEL_EMBARKED', 'TRAVEL_STARTED', 'TRAVEL_STOP_RECORDED', 'TRAVEL_FINISHED']);
    expect(await occurrencesOf(t.travel.id)).toEqual([]);
  });

  test('cancel while IN_PROGRESS frees the egress for another travel; the egress and its animals are left as they are', async () => {
    const t = await trip(1);
    await embark(t, t.farm.owner.access, t.egress.id);
    await post(`/api/animals-egress/${t.egress.id}/finish`, t.farm.owner.access);
    await post(`/api/travels/${t.travel.id}/start`, t.driver.access, { geo_coordinates_from: at() });
    const second = (await mustPost(app, '/api/travels', t.farm.owner.access, planOf(t))).body.data;
    const riding = await post(`/api/travels/${second.id}/embarks`, t.farm.owner.access, { animals_egress_id: t.egress.id, geo_location: at() });
    expectRule(riding, 'EGRESS_ON_ANOTHER_TRAVEL');
    expect(riding.body.detail.travel_id).toBe(t.travel.id);

    const cancelled = await post(`/api/travels/${t.travel.id}/cancel`, t.driver.access);
    expect(cancelled.body.data.str_status).toBe('CANCELLED');
    expect(cancelled.body.data.embarks[0].ts_released_at).toMatch(ISO_Z);
    expect(await egressStatus(t.egress.id)).toBe('FINISHED');
    expect(await animalStatus(t.animalIds[0]!)).toBe('IN_TRANSIT');
    expectState(await post(`/api/travels/${t.travel.id}/cancel`, t.driver.access), 'CANCELLED', ['PLANNED', 'IN_PROGRESS']);
    expectState(await post(`/api/travels/${t.travel.id}/start`, t.driver.access, { geo_coordinates_from: at() }), 'CANCELLED', ['PLANNED']);

    const moved = await post(`/api/travels/${second.id}/embarks`, t.farm.owner.access, { animals_egress_id: t.egress.id, geo_location: at() });
    expect(moved.status).toBe(200);
    expect(moved.body.data.embarks.map((e: { animals_egress_id: string }) => e.animals_egress_id)).toEqual([t.egress.id]);
    // The trip can be searched by the egress it carries.
    const carrying = await post('/api/travels/search', t.farm.owner.access, { animals_egress_id: t.egress.id, str_order_by: 'ts_created_at', str_order: 'ASC' });
    expect(carrying.body.data.map((x: { id: string }) => x.id)).toEqual([t.travel.id, second.id]);
  });
});

describe('refusals', () => {
  test('create: required fields, uuids, the units, the transporter, the vehicle, who may plan', async () => {
    const t = await trip(1);
    expectFields(await post('/api/travels', t.farm.owner.access, {}), ['vehicle_id', 'transporter_user_id', 'from_control_unit_id', 'to_control_unit_id']);
    expectFields(await post('/api/travels', t.farm.owner.access, planOf(t, { vehicle_id: 'x', id: 'y' })), ['vehicle_id', 'id']);
    expectFields(await post('/api/travels', t.farm.owner.access, planOf(t, { to_control_unit_id: t.farm.unit.unitId })), ['to_control_unit_id']);
    expectFields(await post('/api/travels', t.farm.owner.access, planOf(t, { to_control_unit_id: randomUUID(), transporter_user_id: randomUUID() })), ['to_control_unit_id', 'transporter_user_id', 'vehicle_id']);
    // A vehicle of an organization neither the origin's nor the transporter's.
    const other = await transporterWithTruck(app);
    expectFields(await post('/api/travels', t.farm.owner.access, planOf(t, { vehicle_id: other.vehicle.id })), ['vehicle_id']);
    // A unit the caller does not see is "no such control unit"; a VIEWER of the origin may not plan.
    expectFields(await post('/api/travels', t.feedlot.owner.access, planOf(t)), ['from_control_unit_id']);
    const viewer = await member(app, 'VIEWER', t.farm.owner.org);
    expect((await post('/api/travels', viewer.access, planOf(t))).status).toBe(403);
    // The transporter does not plan from a unit it does not see.
    expectFields(await post('/api/travels', t.driver.access, planOf(t)), ['from_control_unit_id']);
  });

  test('every transition out of its state is INVALID_STATE naming the state; times, places and legs are checked', async () => {
    const t = await trip(1);
    const id = t.travel.id;
    const token = t.driver.access;
    expectState(await post(`/api/travels/${id}/stops`, token, { geo_location: at(), ts_arrival: ago(0) }), 'PLANNED', ['IN_PROGRESS']);
    expectState(await post(`/api/travels/${id}/finish`, token, {}), 'PLANNED', ['IN_PROGRESS']);
    expectFields(await post(`/api/travels/${id}/start`, token, {}), ['geo_coordinates_from']);
    expectFields(await post(`/api/travels/${id}/start`, token, { ts_start_time: new Date(Date.now() + HOUR).toISOString(), geo_coordinates_from: { type: 'Point', coordinates: [200, 0] } }), ['ts_start_time', 'geo_coordinates_from']);
    // Embarks: place required, the egress of the origin only, loadable, going where the trip goes.
    expectFields(await post(`/api/travels/${id}/embarks`, token, { animals_egress_id: 'nope' }), ['animals_egress_id', 'geo_location']);
    expectFields(await embark(t, token, randomUUID()), ['animals_egress_id']);
    const elsewhere = await holding(app, county, 'FARM');
    const foreign = (await mustPost(app, '/api/animals-egress', elsewhere.owner.access, { from_control_unit_id: elsewhere.unit.unitId })).body.data;
    expectFields(await embark(t, token, foreign.id), ['animals_egress_id']);
    const third = await holding(app, county, 'FEEDLOT');
    const astray = (await mustPost(app, '/api/animals-egress', t.farm.owner.access, { from_control_unit_id: t.farm.unit.unitId, to_control_unit_id: third.unit.unitId })).body.data;
    expectRule(await embark(t, token, astray.id), 'EGRESS_TO_ANOTHER_DESTINATION');
    const dropped = (await mustPost(app, '/api/animals-egress', t.farm.owner.access, { from_control_unit_id: t.farm.unit.unitId })).body.data;
    await post(`/api/animals-egress/${dropped.id}/cancel`, t.farm.owner.access);
    const notLoadable = await embark(t, token, dropped.id);
    expectRule(notLoadable, 'EGRESS_NOT_LOADABLE');
    expect(notLoadable.body.detail.str_status).toBe('CANCELLED');

    expect((await post(`/api/travels/${id}/start`, token, { ts_start_time: ago(HOUR), geo_coordinates_from: at() })).status).toBe(200);
    expectState(await post(`/api/travels/${id}/start`, token, { geo_coordinates_from: at() }), 'IN_PROGRESS', ['PLANNED']);
    // Stops: not before the start, departure not before arrival.
    expectFields(await post(`/api/travels/${id}/stops`, token, {}), ['geo_location', 'ts_arrival']);
    expectFields(await post(`/api/travels/${id}/stops`, token, { geo_location: at(), ts_arrival: ago(2 * HOUR) }), ['ts_arrival']);
    expectFields(await post(`/api/travels/${id}/stops`, token, { geo_location: at(), ts_arrival: ago(HOUR / 2), ts_departure: ago(HOUR) }), ['ts_departure']);
    // Finish: not before the start; not without an egress on board.
    expectFields(await post(`/api/travels/${id}/finish`, token, { ts_end_time: ago(2 * HOUR) }), ['ts_end_time']);
    expectRule(await post(`/api/travels/${id}/finish`, token, {}), 'TRAVEL_WITHOUT_EMBARKS');
    // Loaded while under way too.
    expect((await embark(t, token, t.egress.id)).status).toBe(200);
    await post(`/api/animals-egress/${t.egress.id}/finish`, t.farm.owner.access);
    expect((await post(`/api/travels/${id}/finish`, token)).body.data.str_status).toBe('FINISHED');
    expectState(await post(`/api/travels/${id}/finish`, token), 'FINISHED', ['IN_PROGRESS']);
    expectState(await post(`/api/travels/${id}/stops`, token, { geo_location: at(), ts_arrival: ago(0) }), 'FINISHED', ['IN_PROGRESS']);
    // Not a uuid: 400; no such travel: 404.
    expect((await post('/api/travels/nope/start', token, { geo_coordinates_from: at() })).status).toBe(400);
    expect((await post(`/api/travels/${randomUUID()}/cancel`, token)).status).toBe(404);
  });
});

describe('who sees and works a travel', () => {
  test('the origin, the destination and the transporter see it; a stranger gets 404 everywhere; the destination and an authority read but may not work it', async () => {
    const t = await trip(1);
    const id = t.travel.id;
    const stranger = await member(app);
    for (const token of [t.farm.owner.access, t.feedlot.owner.access, t.driver.access]) {
      expect((await app.call('GET', `/api/travels/${id}`, { token })).status).toBe(200);
      expect((await app.call('GET', '/api/travels', { token })).body.data.map((x: { id: string }) => x.id)).toContain(id);
    }
    expect((await app.call('GET', `/api/travels/${id}`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('GET', `/api/v1/travels/${id}`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('GET', '/api/travels', { token: stranger.access })).body.data).toEqual([]);
    for (const [action, body] of [['start', { geo_coordinates_from: at() }], ['embarks', { animals_egress_id: t.egress.id, geo_location: at() }], ['stops', {}], ['finish', {}], ['cancel', undefined]] as const) {
      expect((await post(`/api/travels/${id}/${action}`, stranger.access, body)).status).toBe(404);
    }
    const authority = await official(app, county.id);
    expect((await app.call('GET', `/api/travels/${id}`, { token: authority.access })).status).toBe(200);
    expect((await post(`/api/travels/${id}/cancel`, authority.access)).status).toBe(403);
    expect((await post(`/api/travels/${id}/start`, t.feedlot.owner.access, { geo_coordinates_from: at() })).status).toBe(403);
    // An operator of the origin works it.
    const operator = await member(app, 'OPERATOR', t.farm.owner.org);
    expect((await post(`/api/travels/${id}/cancel`, operator.access)).body.data.str_status).toBe('CANCELLED');
  });
});

describe('TRANSIT_TIME_EXCEEDED', () => {
  async function underWay(hoursAgo: number): Promise<Trip> {
    const t = await trip(1);
    await embark(t, t.farm.owner.access, t.egress.id);
    await post(`/api/animals-egress/${t.egress.id}/finish`, t.farm.owner.access);
    expect((await post(`/api/travels/${t.travel.id}/start`, t.driver.access, { ts_start_time: ago(hoursAgo * HOUR), geo_coordinates_from: at() })).status).toBe(200);
    return t;
  }

  test('read past the limit while IN_PROGRESS: one occurrence at the destination, however many reads, and none again on finish', async () => {
    const t = await underWay(1);
    // The trip has been on the road for 49 hours (backdated in the database: no GET saw it yet).
    const start = new Date(Date.now() - 49 * HOUR);
    await rows(app, 'update travel set ts_start_time = ? where id = ?', [start, t.travel.id]);
    for (let k = 0; k < 3; k++) expect((await app.call('GET', `/api/travels/${t.travel.id}`, { token: t.feedlot.owner.access })).status).toBe(200);
    expect((await app.call('GET', '/api/travels', { token: t.driver.access })).status).toBe(200);
    const gql = await app.graphql(`query($id: UUID!) { travel(id: $id) { ts_transit_time_exceeded_at } }`, { id: t.travel.id }, t.farm.owner.access);
    expect(gql.body.data.travel.ts_transit_time_exceeded_at).toMatch(ISO_Z);
    const raised = await occurrencesOf(t.travel.id);
    expect(raised).toEqual([{ str_type: 'TRANSIT_TIME_EXCEEDED', control_unit_id: t.feedlot.unit.unitId, ts_occurred_at: new Date(start.getTime() + 48 * HOUR).toISOString() }]);
    // The record names its travel, and the index filters by it (REST and GraphQL).
    const listed = await app.call('GET', `/api/occurrences?travel_id=${t.travel.id.toUpperCase()}`, { token: t.feedlot.owner.access });
    expect([listed.status, listed.body.data.map((o: { str_type: string; travel_id: string }) => [o.str_type, o.travel_id])]).toEqual([200, [['TRANSIT_TIME_EXCEEDED', t.travel.id]]]);
    const searched = await app.call('POST', '/api/occurrences/search', { token: t.feedlot.owner.access, body: { travel_id: t.travel.id } });
    expect(searched.body.meta.int_total_results).toBe(1);
    expect((await app.call('GET', `/api/occurrences?travel_id=${randomUUID()}`, { token: t.feedlot.owner.access })).body.data).toEqual([]);
    const byGraphql = await app.graphql('query($id: UUID!) { occurrences(where: {travel_id: $id}) { data { travel_id } } }', { id: t.travel.id }, t.feedlot.owner.access);
    expect(byGraphql.body).toEqual({ data: { occurrences: { data: [{ travel_id: t.travel.id }] } } });
    expect((await post(`/api/travels/${t.travel.id}/finish`, t.driver.access)).body.data.int_duration).toBeGreaterThanOrEqual(49 * 60);
    expect(await occurrencesOf(t.travel.id)).toHaveLength(1);
    expect((await eventsOf(app, 'Travel', t.travel.id)).map((e) => e.str_type)).toEqual(['TRAVEL_CREATED', 'TRAVEL_EMBARKED', 'TRAVEL_STARTED', 'TRAVEL_TRANSIT_TIME_EXCEEDED', 'TRAVEL_FINISHED']);
  });

  test('finished past the limit raises it once; within it, nothing; a trip started past it raises it at once', async () => {
    const late = await underWay(1);
    await rows(app, 'update travel set ts_start_time = ? where id = ?', [new Date(Date.now() - 50 * HOUR), late.travel.id]);
    expect((await post(`/api/travels/${late.travel.id}/finish`, late.driver.access)).body.data.str_status).toBe('FINISHED');
    expect((await occurrencesOf(late.travel.id)).map((o) => o.control_unit_id)).toEqual([late.feedlot.unit.unitId]);
    await app.call('GET', `/api/travels/${late.travel.id}`, { token: late.driver.access });
    expect(await occurrencesOf(late.travel.id)).toHaveLength(1);

    const onTime = await underWay(47);
    await app.call('GET', `/api/travels/${onTime.travel.id}`, { token: onTime.driver.access });
    expect((await post(`/api/travels/${onTime.travel.id}/finish`, onTime.driver.access, {})).body.data.int_duration).toBe(47 * 60);
    expect(await occurrencesOf(onTime.travel.id)).toEqual([]);

    const backdated = await underWay(60);
    expect(await occurrencesOf(backdated.travel.id)).toHaveLength(1);
  });

  test('TRAVEL_MAX_HOURS comes from the environment, validated', async () => {
    for (const bad of ['abc', '0', '-1']) expect(() => loadConfig({ TRAVEL_MAX_HOURS: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ TRAVEL_MAX_HOURS: 'abc' })).toThrow(/TRAVEL_MAX_HOURS/);
    expect(loadConfig({}).TRAVEL_MAX_HOURS).toBe(48);
    const short = await startApp({ TRAVEL_MAX_HOURS: '0.5' });
    try {
      const [prevApp, prevCounty] = [app, county];
      app = short;
      try {
        county = await makeCounty(short);
        const t = await underWay(1);
        expect((await occurrencesOf(t.travel.id)).map((o) => o.str_type)).toEqual(['TRANSIT_TIME_EXCEEDED']);
      } finally {
        [app, county] = [prevApp, prevCounty];
      }
    } finally {
      await short.close();
    }
  });
});

describe('offline replays by client id', () => {
  test('a create, an embark and a stop sent twice are one; the same id with another body is a CONFLICT', async () => {
    const t = await trip(1);
    const body = { id: randomUUID(), ...planOf(t) };
    const first = await post('/api/travels', t.farm.owner.access, body);
    const again = await post('/api/travels', t.farm.owner.access, body);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(expectError(await post('/api/travels', t.farm.owner.access, { ...body, str_consignee_name: 'other' }), 'CONFLICT').fields.id).toBeDefined();
    expect(await count(app, 'travel where id = ?', [body.id])).toBe(1);
    // The same replay through GraphQL returns the travel as it is.
    const gql = await app.graphql(`mutation($input: TravelCreateInput!) { createTravel(input: $input) { id str_status } }`, { input: body }, t.farm.owner.access);
    expect(gql.body.data.createTravel).toEqual({ id: body.id, str_status: 'PLANNED' });

    const id = body.id;
    const load = { id: randomUUID(), animals_egress_id: t.egress.id, ts_embarked_at: ago(HOUR), geo_location: at() };
    for (let k = 0; k < 2; k++) expect((await post(`/api/travels/${id}/embarks`, t.driver.access, load)).status).toBe(200);
    expect(expectError(await post(`/api/travels/${id}/embarks`, t.driver.access, { ...load, geo_location: at(-50, -10) }), 'CONFLICT').fields.id).toBeDefined();
    // A retry that leaves the time to the server is a replay too.
    const another = (await mustPost(app, '/api/animals-egress', t.farm.owner.access, { from_control_unit_id: t.farm.unit.unitId, to_control_unit_id: t.feedlot.unit.unitId })).body.data;
    const untimed = { id: randomUUID(), animals_egress_id: another.id, geo_location: at() };
    for (let k = 0; k < 2; k++) expect((await post(`/api/travels/${id}/embarks`, t.driver.access, untimed)).status).toBe(200);
    await post(`/api/travels/${id}/start`, t.driver.access, { ts_start_time: ago(HOUR / 2), geo_coordinates_from: at() });
    const stop = { id: randomUUID(), geo_location: at(), ts_arrival: ago(HOUR / 4) };
    for (let k = 0; k < 2; k++) expect((await post(`/api/travels/${id}/stops`, t.driver.access, stop)).status).toBe(200);
    expect(expectError(await post(`/api/travels/${id}/stops`, t.driver.access, { ...stop, ts_departure: ago(0) }), 'CONFLICT').fields.id).toBeDefined();
    const read = (await app.call('GET', `/api/travels/${id}`, { token: t.driver.access })).body.data;
    expect([read.embarks.length, read.stops.length]).toEqual([2, 1]);
    expect((await eventsOf(app, 'Travel', id)).map((e) => e.str_type)).toEqual(['TRAVEL_CREATED', 'TRAVEL_EMBARKED', 'TRAVEL_EMBARKED', 'TRAVEL_STARTED', 'TRAVEL_STOP_RECORDED']);
  });
});

describe('GraphQL: travels with their relations, batched', () => {
  test('vehicle → owner, transporter, units, embarks → egress → GTA, stops: statements do not grow with the rows', async () => {
    const t = await trip(3);
    await embark(t, t.farm.owner.access, t.egress.id);
    for (let k = 0; k < 2; k++) {
      const more = (await mustPost(app, '/api/travels', t.farm.owner.access, planOf(t))).body.data;
      const e = (await mustPost(app, '/api/animals-egress', t.farm.owner.access, { from_control_unit_id: t.farm.unit.unitId, to_control_unit_id: t.feedlot.unit.unitId, gta_id: t.gta.id })).body.data;
      await post(`/api/travels/${more.id}/embarks`, t.driver.access, { animals_egress_id: e.id, geo_location: at() });
      await post(`/api/travels/${more.id}/start`, t.driver.access, { geo_coordinates_from: at() });
      await post(`/api/travels/${more.id}/stops`, t.driver.access, { geo_location: at(), ts_arrival: new Date().toISOString() });
    }
    const query = (n: number) => `{ travels(page: {int_max_results: ${n}}, filter: {transporter_user_id: "${t.driver.user.id}"}) { data { id str_status str_from_control_unit_code str_to_control_unit_name
      from_control_unit { str_code } vehicle { str_license_plate owner { str_name } } transporter { str_name organizations { str_name } }
      embarks { ts_embarked_at geo_location { coordinates } animals_egress { str_status str_from_control_unit_code gta { str_code } } } stops { ts_arrival geo_location { coordinates } } } meta { int_total_results } } }`;
    const one = await app.graphql(query(1), {}, t.driver.access);
    const all = await app.graphql(query(3), {}, t.driver.access);
    expect(all.body.errors).toBeUndefined();
    const page = all.body.data.travels;
    expect(page.meta.int_total_results).toBe(3);
    expect(page.data).toHaveLength(3);
    for (const x of page.data) {
      expect(x).toMatchObject({ str_from_control_unit_code: t.farm.unit.code, vehicle: { str_license_plate: t.vehicle.str_license_plate, owner: { str_name: t.driver.user.str_name } }, transporter: { str_name: t.driver.user.str_name } });
      expect(x.embarks).toHaveLength(1);
      expect(x.embarks[0].animals_egress.str_from_control_unit_code).toBe(t.farm.unit.code);
    }
    for (const x of page.data) expect(x.embarks[0].animals_egress.gta).toEqual({ str_code: expect.any(String) });
    expect(all.sql).toBe(one.sql);
    expect(all.sql).toBeLessThanOrEqual(8);
  });
});
