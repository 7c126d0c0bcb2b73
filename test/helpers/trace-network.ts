import { randomUUID } from 'node:crypto';
import type { TestApp } from './app.js';
import { holding, type Holding } from './movements.js';
import { makeCounty, unitCode } from './places.js';

/** The random networks of the walk's tests (trace-walk, trace-walk-overlap): hours from 2026-01-01. */
const BASE = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
export const at = (h: number): Date => new Date(BASE + h * HOUR);
/** The hour `at` made an instant from. */
export const hourOf = (t: string | Date): number => (new Date(t).getTime() - BASE) / HOUR;

/** A plate no other test took (the plates are unique): AAA9A99 from random letters and digits. */
const plate = () => {
  const letter = () => String.fromCharCode(65 + Math.floor(Math.random() * 26));
  const digit = () => String(Math.floor(Math.random() * 10));
  return `${letter()}${letter()}${letter()}${digit()}${letter()}${digit()}${digit()}`;
};

/** Three holdings (farm, auction, feedlot) and a vehicle of the farm's organization, once per file. */
export async function networkPlaces(app: TestApp): Promise<{ places: Holding[]; vehicleId: string }> {
  const county = await makeCounty(app);
  const places = await Promise.all(['FARM', 'AUCTION', 'FEEDLOT'].map((t) => holding(app, county, t)));
  const vehicleId = randomUUID();
  await app.service.orm.em.fork().execute(`insert into vehicle (id, organization_id, str_license_plate) values (?, ?, ?)`, [vehicleId, places[0]!.owner.org.id, plate()]);
  return { places, vehicleId };
}

/** A seeded generator (the same seed, the same network) and a pick from a list with it. */
export function seeded(seed: number): { random: () => number; pick: <T>(list: T[]) => T } {
  let state = seed >>> 0 || 1;
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return { random, pick: (list) => list[Math.floor(random() * list.length)]! };
}

/** Six new control units over the three holdings and eight finished egresses from the first unit, every other one under a GTA of its own. */
export async function unitsAndEgresses(app: TestApp, places: Holding[]): Promise<{ units: { id: string; establishment: string }[]; egresses: string[] }> {
  const em = app.service.orm.em.fork();
  const units = Array.from({ length: 6 }, (_, i) => ({ id: randomUUID(), establishment: places[i % 3]!.unit.establishmentId }));
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type) select u.id, u.e, u.code, 'Pasto', 'PRODUCTION' from jsonb_to_recordset(?::jsonb) as u(id uuid, e uuid, code text)`,
    [JSON.stringify(units.map((u) => ({ id: u.id, e: u.establishment, code: unitCode() })))],
  );
  const egresses = Array.from({ length: 8 }, () => randomUUID());
  await em.execute(
    `insert into animals_egress (id, from_control_unit_id, str_status, bl_move_with_tag_reading) select e::uuid, ?, 'FINISHED', true from jsonb_array_elements_text(?::jsonb) e`,
    [units[0]!.id, JSON.stringify(egresses)],
  );
  // A GTA for every other egress: the contact chain's legs name it (the walk in memory hands the leg's egress over).
  await em.execute(
    `with g as (select e::uuid as egress, gen_random_uuid() as id from jsonb_array_elements_text(?::jsonb) e),
          made as (insert into gta (id, str_code, str_federative_unit, ts_issued_at) select g.id, lpad((floor(random() * 1e9))::bigint::text, 9, '0') || substr(g.id::text, 1, 6), 'ZB', now() from g returning id)
     update animals_egress ae set gta_id = g.id from g where ae.id = g.egress and g.id in (select id from made)`,
    [JSON.stringify(egresses.filter((_, i) => i % 2 === 0))],
  );
  return { units, egresses };
}

/** A stay of a network, in hours (`at`); `egress` the finished egress that ended it, if any. */
export interface NetworkStay {
  id: number;
  animal: string;
  unit: string;
  establishment: string;
  f: number;
  t: number | null;
  egress: string | null;
}

/**
 * Sixty animals with 1–5 stays each at random units, written in path order: a stay lasts up to 40
 * hours, the last one is left open 40% of the time, half the others end by one of the egresses;
 * `nextFrom` says when the next stay begins after one that ended at `t`. A path never nests (as the
 * walk reads it since Migration0067TraceStayKey): a next stay begins no earlier than the one before
 * began, and ends no earlier than it ended.
 */
export async function randomStays(
  app: TestApp,
  network: { units: { id: string; establishment: string }[]; egresses: string[] },
  { random, pick }: ReturnType<typeof seeded>,
  nextFrom: (t: number) => number,
): Promise<NetworkStay[]> {
  const { units, egresses } = network;
  const em = app.service.orm.em.fork();
  const rows: Omit<NetworkStay, 'id'>[] = [];
  const animals = Array.from({ length: 60 }, () => randomUUID());
  await em.execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) select a::uuid, 'BOVINE', 'MALE', ?, ? from jsonb_array_elements_text(?::jsonb) a`, [units[0]!.id, at(0), JSON.stringify(animals)]);
  for (const animal of animals) {
    let time = Math.floor(random() * 150);
    let end = 0;
    const count = 1 + Math.floor(random() * 5);
    for (let i = 0; i < count; i++) {
      const unit = pick(units);
      const f = time;
      const last = i === count - 1;
      const t = last && random() < 0.4 ? null : Math.max(end, f + Math.floor(random() * 40));
      const egress = !last && random() < 0.5 ? pick(egresses) : null;
      rows.push({ animal, unit: unit.id, establishment: unit.establishment, f, t, egress });
      if (t !== null) {
        end = t;
        time = Math.max(f, nextFrom(t));
      }
    }
  }
  const ids = await em.execute<{ id: string }[]>(
    `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_egress_id)
     select x.a, x.u, x.e, x.f, x.t, x.g from jsonb_to_recordset(?::jsonb) as x(a uuid, u uuid, e uuid, f timestamptz, t timestamptz, g uuid, n integer) order by x.n
     returning id`,
    [JSON.stringify(rows.map((r, n) => ({ n, a: r.animal, u: r.unit, e: r.establishment, f: at(r.f), t: r.t === null ? null : at(r.t), g: r.egress })))],
  );
  return rows.map((r, i) => ({ ...r, id: Number(ids[i]!.id) }));
}

/** A random network (unitsAndEgresses, randomStays) whose first three egresses rode one travel: the units' ids and the animals'. */
export async function travelNetwork(app: TestApp, places: Holding[], vehicleId: string, seed: number): Promise<{ units: string[]; animals: string[] }> {
  const rng = seeded(seed);
  const em = app.service.orm.em.fork();
  const { units, egresses } = await unitsAndEgresses(app, places);
  const travel = randomUUID();
  await em.execute(
    `insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`,
    [travel, vehicleId, places[0]!.owner.user.id, units[0]!.id, units[1]!.id, at(0)],
  );
  for (const egress of egresses.slice(0, 3)) await em.execute(`insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at) values (?, ?, ?, ?)`, [randomUUID(), travel, egress, at(0)]);
  const stays = await randomStays(app, { units, egresses }, rng, (t) => t + Math.floor(rng.random() * 6));
  return { units: units.map((u) => u.id), animals: [...new Set(stays.map((s) => s.animal))] };
}

/**
 * The walk tests' two travels: egresses 0-2 on the first, 3 on the second, 4 released from the second
 * (it rode alone). The vehicle of each egress (the egress itself when it rode no travel).
 */
export async function twoTravels(app: TestApp, places: Holding[], vehicleId: string, units: { id: string }[], egresses: string[]): Promise<Map<string, string>> {
  const em = app.service.orm.em.fork();
  const travels = [randomUUID(), randomUUID()];
  const vehicleOf = new Map<string, string>(egresses.map((e) => [e, e]));
  for (const travel of travels) {
    await em.execute(
      `insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`,
      [travel, vehicleId, places[0]!.owner.user.id, units[0]!.id, units[1]!.id, at(0)],
    );
  }
  const embarks: [string, string, boolean][] = [[travels[0]!, egresses[0]!, false], [travels[0]!, egresses[1]!, false], [travels[0]!, egresses[2]!, false], [travels[1]!, egresses[3]!, false], [travels[1]!, egresses[4]!, true]];
  for (const [travel, egress, released] of embarks) {
    await em.execute(`insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at, ts_released_at) values (?, ?, ?, ?, ?)`, [randomUUID(), travel, egress, at(0), released ? at(1) : null]);
    if (!released) vehicleOf.set(egress, travel);
  }
  return vehicleOf;
}

