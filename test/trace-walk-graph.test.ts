import fc from 'fast-check';
import { TraceGraph } from '../src/trace/graph/trace-graph.js';
import { graphStay, graphStaysSql, type GraphStayRow } from '../src/trace/graph/trace-graph.rows.js';
import { walkGraph, walkRows, type WalkRow } from '../src/trace/walk/trace-walk.js';
import { useApp } from './helpers/app.js';
import type { Holding } from './helpers/movements.js';
import { at, networkPlaces, randomStays, seeded, unitsAndEgresses, type NetworkStay, twoTravels } from './helpers/trace-network.js';

/**
 * The in-memory walk (walkGraph over a TraceGraph loaded by graphStaysSql) equals `trace_runs`
 * (src/trace/sql/trace_runs.sql) row for row, every column, as multisets: on the random networks of
 * test/trace-walk.test.ts (paths that do not overlap) and of test/trace-walk-overlap.test.ts (a next
 * stay often begins before the previous one ended), from every unit and from an animal, forward and
 * backward, with hop limits 0–3 or none. Both walks read the same now: the statement's now(),
 * returned beside trace_runs' rows and given to walkGraph. One graph is kept across the cases and
 * fed each new network's stays (`add` after a build: the overlay); then some animals' paths are
 * changed in the database and `replaceAnimals` given their new rows: the walk still equals
 * trace_runs, and a graph built fresh.
 */
let places: Holding[];
let vehicleId: string;

const app = useApp();
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
});

/** The networks of test/trace-walk.test.ts (`overlap`: of test/trace-walk-overlap.test.ts's next-stay rule). */
async function network(seed: number, overlap: boolean): Promise<{ stays: NetworkStay[]; units: string[] }> {
  const { random, pick } = seeded(seed);
  const { units, egresses } = await unitsAndEgresses(app, places);
  await twoTravels(app, places, vehicleId, units, egresses);

  const nextFrom = overlap ? (t: number) => Math.max(0, random() < 0.5 ? t - Math.floor(random() * 50) : t + Math.floor(random() * 6)) : (t: number) => t + Math.floor(random() * 6);
  const stays = await randomStays(app, { units, egresses }, { random, pick }, nextFrom);
  return { stays, units: units.map((u) => u.id) };
}

const us = (column: string) => `(extract(epoch from ${column}) * 1000000)::float8`;

/** trace_runs' rows (times in microseconds) and the now() they were walked at. */
async function traceRuns(seeds: number[], from: number, to: number, forward: boolean, maxHops: number | null): Promise<{ now: number; rows: WalkRow[] }> {
  const em = app.service.orm.em.fork();
  const rows = await em.execute<(Omit<WalkRow, 'stay_id' | 'ts_exposure' | 'ts_via'> & { now: number; stay_id: string | null; ts_exposure: number; ts_via: number | null })[]>(
    `with n as (select now() as now)
     select ${us('n.now')} as now, r.animal_id, r.control_unit_id, r.establishment_id, r.stay_id, ${us('r.ts_exposure')} as ts_exposure, r.int_hops,
            r.via_animal_id, r.via_control_unit_id, ${us('r.ts_via')} as ts_via, r.bl_seed
       from n left join lateral trace_runs(array(select jsonb_array_elements_text(?::jsonb)::bigint), ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer) r on true`,
    [JSON.stringify(seeds), at(from), at(to), forward, maxHops],
  );
  const now = Number(rows[0]!.now);
  return {
    now,
    rows: rows
      .filter((r) => r.stay_id !== null)
      .map((r) => ({
        animal_id: r.animal_id,
        control_unit_id: r.control_unit_id,
        establishment_id: r.establishment_id,
        stay_id: Number(r.stay_id),
        ts_exposure: Number(r.ts_exposure),
        int_hops: r.int_hops,
        via_animal_id: r.via_animal_id,
        via_control_unit_id: r.via_control_unit_id,
        ts_via: r.ts_via === null ? null : Number(r.ts_via),
        bl_seed: r.bl_seed,
      })),
  };
}

async function graphRows(tail: string, params: unknown[]) {
  return (await app.service.orm.em.fork().execute<GraphStayRow[]>(graphStaysSql(tail), params)).map(graphStay);
}

const canonical = (rows: WalkRow[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)))).sort();

describe('the in-memory walk equals trace_runs', () => {
  test('row for row, every column, on networks with and without overlapping paths; after replaceAnimals too', async () => {
    const em = app.service.orm.em.fork();
    const graph = new TraceGraph();
    // The same changes on a graph that merges its overlay at once (rebuilt on every read after a change).
    const eager = new TraceGraph({ mergeAt: 0 });
    let loaded = 0;
    let rowsSeen = 0;
    let rides = 0;
    let replaced = 0;
    const hour = (h: number) => at(h).getTime() * 1000;
    const compare = async (g: TraceGraph, stays: NetworkStay[], units: string[], seed: number, maxHops: number | null) => {
      const from = (seed % 97) + 10;
      const to = from + 30 + ((seed >> 8) % 90);
      const questions: { kind: 'unit' | 'animal'; id: string }[] = [...units.map((id) => ({ kind: 'unit' as const, id })), { kind: 'animal', id: stays[seed % stays.length]!.animal }];
      for (const seedOf of questions) {
        for (const forward of [true, false]) {
          const seeds = g.seedStays(seedOf, hour(from), hour(to), Date.now() * 1000);
          const sql = await traceRuns(seeds.map((s) => g.stayId(s)), from, to, forward, maxHops);
          const mine = walkRows(g, walkGraph(g, { seeds, from: hour(from), to: hour(to), forward, maxHops, now: sql.now }));
          expect(canonical(mine)).toEqual(canonical(sql.rows));
          rowsSeen += mine.length;
          rides += mine.filter((r) => r.control_unit_id === null).length;
        }
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), fc.boolean(), async (seed, maxHops, overlap) => {
        const { stays, units } = await network(seed, overlap);
        const fresh = await graphRows('where s.id > ? order by s.id', [loaded]);
        graph.add(fresh);
        eager.add(fresh);
        loaded = Math.max(loaded, ...fresh.map((r) => r.id));
        await compare(graph, stays, units, seed, maxHops);
        // Some animals' paths change: a last stay dropped, a stay's end moved, an animal's path emptied.
        const animals = [...new Set(stays.map((s) => s.animal))].slice(0, 12);
        await em.execute(`delete from animal_stay where id in (select max(id) from animal_stay where animal_id in (select jsonb_array_elements_text(?::jsonb)::uuid) group by animal_id)`, [JSON.stringify(animals.slice(0, 6))]);
        await em.execute(`update animal_stay set ts_to = ts_to + interval '7 hours' where animal_id in (select jsonb_array_elements_text(?::jsonb)::uuid) and ts_to is not null`, [JSON.stringify(animals.slice(6, 11))]);
        await em.execute(`delete from animal_stay where animal_id = ?`, [animals[11]]);
        const changed = await graphRows('where s.animal_id in (select jsonb_array_elements_text(?::jsonb)::uuid) order by s.id', [JSON.stringify(animals)]);
        graph.replaceAnimals(animals, changed);
        eager.replaceAnimals(animals, changed);
        replaced += animals.length;
        const now = (await graphRows('where s.animal_id in (select jsonb_array_elements_text(?::jsonb)::uuid)', [JSON.stringify(stays.map((s) => s.animal))])).map((r) => r.id);
        const remaining = stays.filter((s) => now.includes(s.id));
        await compare(graph, remaining, units, seed, maxHops);
        // A graph built fresh from the database answers the same (its stay indexes differ: compared by rows).
        const rebuilt = new TraceGraph();
        rebuilt.add(await graphRows('order by s.id', []));
        for (const forward of [true, false]) {
          const q = { from: hour(10), to: hour(200), forward, maxHops, now: hour(1e6) };
          const answer = (g: TraceGraph) => canonical(walkRows(g, walkGraph(g, { ...q, seeds: g.seedStays({ kind: 'unit', id: units[seed % 6]! }, q.from, q.to, q.now) })));
          const expected = answer(rebuilt);
          expect(answer(graph)).toEqual(expected);
          expect(answer(eager)).toEqual(expected);
        }
        expect(graph.stays).toBe(rebuilt.stays);
        expect(eager.stays).toBe(rebuilt.stays);
      }),
      { numRuns: 12 },
    );
    // The walks answered something, rides among it, and paths were replaced.
    expect(rowsSeen).toBeGreaterThan(1000);
    expect(rides).toBeGreaterThan(10);
    expect(replaced).toBeGreaterThan(100);
  }, 300_000);
});
