import { randomUUID } from 'node:crypto';
import { TraceService, type TraceInput, type TraceResult } from '../src/trace/trace.service.js';
import { useApp } from './helpers/app.js';
import { official } from './helpers/factories.js';
import { holding, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';

/**
 * Issue 37's two answers, on small hand-drawn networks (days from 2026-01-01), each question asked of
 * both walks: the service's (in memory, or in SQL under TEST_TRACE_GRAPH=false) and `trace_runs` (a
 * TraceService without a graph). Backward hops through a truck count the move once, as forward; a
 * contact's `via_animal_id` names an animal that stood at `via_control_unit_id` (or rode the truck)
 * at `ts_via` (docs/decisions/trace.md, "Via: an animal that was there").
 */
const BASE = Date.UTC(2026, 0, 1);
const day = (n: number) => new Date(BASE + n * 86_400_000).toISOString();

const app = useApp();
const county = useCounty(app);
const em = () => app.service.orm.em.fork();
let authority: Awaited<ReturnType<typeof official>>;
beforeAll(async () => {
  authority = await official(app, county.id);
  await app.service.core.trace.ready();
});

/** Animals named as given, identified at `unit` on day 0. */
async function herd(names: string[], unit: Holding): Promise<Record<string, string>> {
  const ids = Object.fromEntries(names.map((n) => [n, randomUUID()]));
  for (const id of Object.values(ids)) await em().execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) values (?, 'BOVINE', 'MALE', ?, ?)`, [id, unit.unit.unitId, day(0)]);
  return ids;
}

const stay = (animal: string, at: Holding, from: number, to: number | null, egress: string | null = null) =>
  em().execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_egress_id) values (?, ?, ?, ?, ?, ?)', [
    animal,
    at.unit.unitId,
    at.unit.establishmentId,
    day(from),
    to === null ? null : day(to),
    egress,
  ]);

/** A travel (a truck) of `owner`'s organization from its unit to `to`, and a finished egress from `from` to `to` loaded on it. */
async function truck(owner: Holding, to: Holding): Promise<(from: Holding, to: Holding) => Promise<string>> {
  const travel = randomUUID();
  const vehicle = randomUUID();
  const letters = Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');
  await em().execute(`insert into vehicle (id, organization_id, str_license_plate) values (?, ?, ?)`, [vehicle, owner.owner.org.id, `${letters}2B34`]);
  await em().execute(`insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`, [
    travel,
    vehicle,
    owner.owner.user.id,
    owner.unit.unitId,
    to.unit.unitId,
    day(0),
  ]);
  return async (from, to) => {
    const id = randomUUID();
    await em().execute(`insert into animals_egress (id, from_control_unit_id, to_control_unit_id, str_status, bl_move_with_tag_reading) values (?, ?, ?, 'FINISHED', true)`, [id, from.unit.unitId, to.unit.unitId]);
    await em().execute('insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at) values (?, ?, ?, ?)', [randomUUID(), travel, id, day(0)]);
    return id;
  };
}

/** The answer of each walk: the service's, then trace_runs' (each walks: no stored answer is reused). */
async function bothWalks(input: TraceInput): Promise<[string, TraceResult][]> {
  const db = app.service.db;
  const actor = await app.service.core.auth.authenticate(db, authority.access);
  const answers: [string, TraceResult][] = [];
  for (const [walk, service] of [['service', app.service.core.trace], ['trace_runs', new TraceService()]] as const) {
    await em().execute('delete from trace_run');
    answers.push([walk, await service.trace(db, actor, input, { int_max_results: 100 })]);
    await app.service.core.trace.settled();
  }
  return answers;
}

const byName = (ids: Record<string, string>, r: TraceResult) => Object.fromEntries(r.data.map((a) => [Object.entries(ids).find(([, v]) => v === a.animal_id)?.[0] ?? a.animal_id, a]));
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

describe('backward through a truck, the ride and the unit it left are one move', () => {
  test('from an animal: the holding it was loaded at is 1 move back, as forward the holding it unloaded at is 1 move on', async () => {
    const [farm, feedlot, other, feedlot2] = await Promise.all(['FARM', 'FEEDLOT', 'FARM', 'FEEDLOT'].map((t) => holding(app, county, t)));
    const ids = await herd(['x', 'y'], farm);
    const load = await truck(farm, feedlot);
    // x: the farm (0-5), the truck (5-6), the feedlot (6-). y: the other farm (0-5.5), the same truck (5.5-7), another feedlot (7-).
    await stay(ids.x!, farm, 0, 5, await load(farm, feedlot));
    await stay(ids.x!, feedlot, 6, null);
    await stay(ids.y!, other, 0, 5.5, await load(other, feedlot2));
    await stay(ids.y!, feedlot2, 7, null);
    const holdingOf = (r: TraceResult, h: Holding) => r.establishments.find((e) => e.id === h.unit.establishmentId);
    for (const [walk, r] of await bothWalks({ animal_id: ids.x, ts_from: new Date(day(5.5)), ts_to: new Date(day(30)), str_direction: 'BACKWARD' })) {
      expect([walk, holdingOf(r, feedlot)?.int_hops]).toEqual([walk, 0]);
      expect([walk, holdingOf(r, farm)?.int_hops]).toEqual([walk, 1]);
      // y met x on the truck (6: x unloaded), and boarded it at the other farm: the same move.
      expect([walk, holdingOf(r, other)?.int_hops]).toEqual([walk, 1]);
      expect([walk, byName(ids, r).y]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.x, via_control_unit_id: null, ts_via: new Date(day(6)) }]);
    }
    for (const [walk, r] of await bothWalks({ animal_id: ids.x, ts_from: new Date(day(0)), ts_to: new Date(day(5.2)), str_direction: 'FORWARD' })) {
      expect([walk, holdingOf(r, feedlot)?.int_hops]).toEqual([walk, 1]);
    }
  });
});

describe('via_animal_id names an animal that was there at ts_via, itself traced', () => {
  test('forward at a unit: an animal that arrives after the one that brought the exposure left names the one that arrived there last', async () => {
    const [farm, pen, away] = await Promise.all(['FARM', 'FEEDLOT', 'FARM'].map((t) => holding(app, county, t)));
    const ids = await herd(['s', 'p1', 'p2', 'p3'], farm);
    await stay(ids.s!, farm, 0, 2); // the seed
    await stay(ids.s!, pen, 3, 4); // brings the exposure to the pen on day 3, leaves on day 4
    await stay(ids.s!, away, 5, null);
    await stay(ids.p3!, pen, 1, 12); // there before s: exposed on day 3
    await stay(ids.p1!, pen, 3.5, 10); // arrives while s is there: exposed on day 3.5
    await stay(ids.p2!, pen, 6, 8); // arrives after s left: p3 and p1 are there, p1 arrived last
    for (const [walk, r] of await bothWalks({ establishment_id: farm.unit.establishmentId, ts_from: new Date(day(0)), ts_to: new Date(day(30)), str_direction: 'FORWARD' })) {
      const by = byName(ids, r);
      expect([walk, by.p1]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.s, via_control_unit_id: pen.unit.unitId, ts_via: new Date(day(3.5)) }]);
      expect([walk, by.p3]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.s, ts_via: new Date(day(3)) }]);
      expect([walk, by.p2]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.p1, via_control_unit_id: pen.unit.unitId, ts_via: new Date(day(6)) }]);
    }
  });

  test('backward at a unit: an animal that left before the one that carried the exposure back arrived names the one that arrived there last', async () => {
    const [pen, slaughterhouse] = await Promise.all(['FEEDLOT', 'SLAUGHTERHOUSE'].map((t) => holding(app, county, t)));
    const ids = await herd(['s', 'p0', 'p1', 'p3'], pen);
    await stay(ids.s!, pen, 3, 4); // carries the pen's exposure back: there 3-4
    await stay(ids.s!, slaughterhouse, 5, null); // the seed
    await stay(ids.p3!, pen, 0.5, 12); // there before and after s
    await stay(ids.p1!, pen, 1, 3.5); // met s on day 3.5
    await stay(ids.p0!, pen, 0, 2); // left before s arrived: p3 and p1 were there on day 2, p1 arrived last
    for (const [walk, r] of await bothWalks({ establishment_id: slaughterhouse.unit.establishmentId, ts_from: new Date(day(0)), ts_to: new Date(day(30)), str_direction: 'BACKWARD' })) {
      const by = byName(ids, r);
      expect([walk, by.p1]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.s, ts_via: new Date(day(3.5)) }]);
      expect([walk, by.p0]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.p1, via_control_unit_id: pen.unit.unitId, ts_via: new Date(day(2)) }]);
    }
  });

  test('on a truck: an animal loaded after the one that brought the exposure unloaded names one still riding', async () => {
    const [a, g, k, s, h, m] = await Promise.all(['FARM', 'FARM', 'FARM', 'SLAUGHTERHOUSE', 'FEEDLOT', 'FEEDLOT'].map((t) => holding(app, county, t)));
    const ids = await herd(['x', 'y', 'z'], a);
    const load = await truck(a, s);
    await stay(ids.x!, a, 0, 5, await load(a, s)); // x rides 5-6
    await stay(ids.x!, s, 6, null);
    await stay(ids.y!, g, 0, 5.5, await load(g, h)); // y rides 5.5-7
    await stay(ids.y!, h, 7, null);
    await stay(ids.z!, k, 0, 6.5, await load(k, m)); // z boards on day 6.5, after x unloaded: y is on the truck
    await stay(ids.z!, m, 8, null);
    for (const [walk, r] of await bothWalks({ establishment_id: a.unit.establishmentId, ts_from: new Date(day(0)), ts_to: new Date(day(30)), str_direction: 'FORWARD' })) {
      const by = byName(ids, r);
      expect([walk, by.y]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.x, via_control_unit_id: null, ts_via: new Date(day(5.5)) }]);
      expect([walk, by.z]).toMatchObject([walk, { int_hops: 1, via_animal_id: ids.y, via_control_unit_id: null, ts_via: new Date(day(6.5)) }]);
      expect([walk, iso(by.z!.ts_via)]).toEqual([walk, day(6.5)]);
    }
  });
});
