import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Migration0058TraceRunState } from '../src/db/migrations/Migration0058TraceRunState.js';
import { useApp } from './helpers/app.js';
import type { Holding } from './helpers/movements.js';
import { at, networkPlaces, randomStays, seeded, unitsAndEgresses } from './helpers/trace-network.js';

/**
 * Stays written from device times may overlap: an animal's next stay can begin before the one it
 * left has ended (test/trace-walk.test.ts draws only paths that do not). Migration0062's walk takes a
 * shortcut for the presences begun before the window (one descent reads the earlier path, and
 * returns it when none of it reaches the window); on random networks whose paths overlap, its rows
 * (every column but the contact's animal, chosen anew since) equal Migration0058's walk's, installed
 * beside it under another name.
 */
let places: Holding[];
let vehicleId: string;

const app = useApp();
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
  const em = app.service.orm.em.fork();
  // Migration0058's walk and loader under other names (the drop of an older function left out).
  const sql: string[] = [];
  const old = Object.assign(Object.create(Migration0058TraceRunState.prototype) as Migration0058TraceRunState, { addSql: (s: string) => sql.push(s) });
  await old.up();
  for (const s of sql.filter((s) => s.startsWith('create'))) {
    await em.execute(s.replaceAll('trace_runs(', 'trace_runs_0058(').replaceAll('trace_run_state_load(', 'trace_run_state_load_0058('));
  }
});

/** A small random network whose paths overlap: a next stay often begins before the previous one ended (never before it began, nor ends before it: paths do not nest). */
async function network(seed: number): Promise<{ stays: { id: number; animal: string; unit: string; f: number; t: number | null }[]; units: string[] }> {
  const { random, pick } = seeded(seed);
  const em = app.service.orm.em.fork();
  const { units, egresses } = await unitsAndEgresses(app, places);
  const travel = randomUUID();
  await em.execute(
    `insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`,
    [travel, vehicleId, places[0]!.owner.user.id, units[0]!.id, units[1]!.id, at(0)],
  );
  for (const egress of egresses.slice(0, 3)) {
    await em.execute(`insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at, ts_released_at) values (?, ?, ?, ?, null)`, [randomUUID(), travel, egress, at(0)]);
  }
  // Half the next stays begin before this one ends.
  const stays = await randomStays(app, { units, egresses }, { random, pick }, (t) => Math.max(0, random() < 0.5 ? t - Math.floor(random() * 50) : t + Math.floor(random() * 6)));
  return { stays, units: units.map((u) => u.id) };
}

describe('trace_runs on overlapping stays', () => {
  test("equals Migration0058's walk, row for row, from every unit and an animal, forward and backward, with and without a hop limit", async () => {
    const em = app.service.orm.em.fork();
    let rowsSeen = 0;
    let overlapping = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), async (seed, maxHops) => {
        const { stays, units } = await network(seed);
        const from = (seed % 97) + 10;
        const to = from + 30 + ((seed >> 8) % 90);
        const inWindow = (s: (typeof stays)[number]) => s.f <= to && (s.t ?? 1e9) >= from;
        // Every column but via_animal_id, which names an animal that was there since Migration0072TraceViaPresent (held equal to the walk in memory's by test/trace-walk-graph.test.ts).
        const walk = (name: string) =>
          `select animal_id, control_unit_id, establishment_id, stay_id, ts_exposure, int_hops, via_control_unit_id, ts_via, bl_seed
             from ${name}(array(select jsonb_array_elements_text(?::jsonb)::bigint), ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer)`;
        // Every unit, both directions; an animal too.
        const seedSets = [...units.map((u) => stays.filter((s) => s.unit === u && inWindow(s))), stays.filter((s) => s.animal === stays[seed % stays.length]!.animal && inWindow(s))];
        const questions = seedSets.flatMap((seeds) => [true, false].map((forward) => [JSON.stringify(seeds.map((s) => s.id)), at(from), at(to), forward, maxHops]));
        // One statement per question: the same now() for both walks.
        const diff = { n: 0, a_b: 0, b_a: 0 };
        for (const args of questions) {
          const [d] = await em.execute<{ n: number; a_b: number; b_a: number }[]>(
            `with a as materialized (${walk('trace_runs')}), b as materialized (${walk('trace_runs_0058')})
             select (select count(*) from a)::int as n, (select count(*) from (select * from a except all select * from b) x)::int as a_b,
                    (select count(*) from (select * from b except all select * from a) x)::int as b_a`,
            [...args, ...args],
          );
          diff.n += d!.n;
          diff.a_b += d!.a_b;
          diff.b_a += d!.b_a;
        }
        expect(diff).toEqual({ n: diff.n, a_b: 0, b_a: 0 });
        rowsSeen += diff!.n;
        const byAnimal = new Map<string, typeof stays>();
        for (const s of stays) byAnimal.set(s.animal, [...(byAnimal.get(s.animal) ?? []), s]);
        for (const list of byAnimal.values()) {
          list.sort((x, y) => x.f - y.f || x.id - y.id);
          for (let i = 1; i < list.length; i++) if ((list[i - 1]!.t ?? 1e9) > list[i]!.f) overlapping++;
        }
      }),
      { numRuns: 10 },
    );
    // The networks did overlap, and the walks answered something.
    expect(overlapping).toBeGreaterThan(100);
    expect(rowsSeen).toBeGreaterThan(100);
  }, 180_000);
});
