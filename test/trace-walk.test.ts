import fc from 'fast-check';
import { useApp } from './helpers/app.js';
import type { Holding } from './helpers/movements.js';
import { bruteForce, viaNotThere } from './helpers/trace-brute.js';
import { at, hourOf, networkPlaces, randomStays, seeded, unitsAndEgresses, type NetworkStay, twoTravels } from './helpers/trace-network.js';

/**
 * The walk (`trace_runs`, src/trace/sql/trace_runs.sql) against a brute-force reading of DOMAIN.md's
 * "Tracing" (test/helpers/trace-brute.ts): pairwise contacts between presences (a stay at a unit, or a ride on a
 * vehicle from an egress to the next stay), moves one at a time, round k = with at most k moves.
 * On random small networks, every stay the definition reaches is reached with the same fewest
 * moves and the same earliest (backward: latest) exposure, and nothing else is.
 */
let places: Holding[];
let vehicleId: string;

const app = useApp();
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
});

type Stay = NetworkStay;

/** A small random network: units, animals with 1–5 stays each, some stays left by an egress (a vehicle), some egresses on a travel. */
async function network(seed: number): Promise<{ stays: Stay[]; vehicleOf: Map<string, string>; units: string[] }> {
  const { random, pick } = seeded(seed);
  const { units, egresses } = await unitsAndEgresses(app, places);
  const vehicleOf = await twoTravels(app, places, vehicleId, units, egresses);

  const stays = await randomStays(app, { units, egresses }, { random, pick }, (t) => t + Math.floor(random() * 6));
  return { stays, vehicleOf, units: units.map((u) => u.id) };
}

describe('trace_runs equals the definition on random networks', () => {
  test('forward and backward, with and without a hop limit, seeded at a unit or an animal', async () => {
    const em = app.service.orm.em.fork();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.boolean(), fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), fc.boolean(), async (seed, forward, maxHops, byUnit) => {
        const { stays, vehicleOf, units } = await network(seed);
        const from = (seed % 97) + 10;
        const to = from + ((seed >> 8) % 90);
        const inWindow = (s: Stay) => s.f <= to && (s.t ?? 1e9) >= from;
        const seeds = byUnit ? stays.filter((s) => s.unit === units[seed % 6] && inWindow(s)) : stays.filter((s) => s.animal === stays[seed % stays.length]!.animal && inWindow(s));
        const expected = bruteForce(stays, vehicleOf, seeds, from, to, forward, maxHops);
        const all = await em.execute<{ stay_id: string; control_unit_id: string | null; int_hops: number; ts_exposure: Date | string; via_animal_id: string | null; ts_via: Date | string | null; bl_seed: boolean }[]>(
          'select stay_id, control_unit_id, int_hops, ts_exposure, via_animal_id, ts_via, bl_seed from trace_runs(array(select jsonb_array_elements_text(?::jsonb)::bigint), ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer)',
          [JSON.stringify(seeds.map((s) => s.id)), at(from), at(to), forward, maxHops],
        );
        const rows = all.filter((r) => r.control_unit_id !== null);
        const actual = new Map(rows.map((r) => [Number(r.stay_id), { hops: r.int_hops, exposure: hourOf(r.ts_exposure) }]));
        expect(rows).toHaveLength(actual.size);
        const sorted = (m: Map<number, unknown>) => [...m].sort(([a], [b]) => a - b);
        expect(sorted(actual)).toEqual(sorted(expected));
        // Every contact names an animal that was there then (the unit, or the vehicle), itself traced.
        const via = all.map((r) => ({ stay_id: Number(r.stay_id), unit: r.control_unit_id, via: r.via_animal_id, at: r.ts_via === null ? null : hourOf(r.ts_via), seed: r.bl_seed }));
        expect(viaNotThere(stays, vehicleOf, expected, forward, via)).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});
