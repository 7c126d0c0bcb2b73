import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { TraceGraph } from '../src/trace/graph/trace-graph.js';
import type { GraphStay } from '../src/trace/graph/trace-graph.types.js';
import { walkGraph, walkRows } from '../src/trace/walk/trace-walk.js';
import { bruteForce, viaNotThere } from './helpers/trace-brute.js';
import { seeded, type NetworkStay } from './helpers/trace-network.js';

/**
 * The in-memory walk (src/trace/walk/trace-walk.ts) against the brute-force reading of DOMAIN.md's
 * "Tracing" (test/helpers/trace-brute.ts), with no database: random networks drawn as
 * test/trace-walk.test.ts draws them (sixty animals, six units, eight egresses, three of them on one
 * travel and one on another), every stay the definition reaches is reached with the same fewest
 * moves and the same earliest (backward: latest) exposure, and nothing else is.
 */
const NOW = 1e9;

/** The network of `randomStays` (test/helpers/trace-network.ts), in memory: hours as the times. */
function memoryNetwork(seed: number): { stays: NetworkStay[]; vehicleOf: Map<string, string>; units: string[] } {
  const { random, pick } = seeded(seed);
  const units = Array.from({ length: 6 }, () => ({ id: randomUUID(), establishment: '' }));
  const establishments = [randomUUID(), randomUUID(), randomUUID()];
  units.forEach((u, i) => (u.establishment = establishments[i % 3]!));
  const egresses = Array.from({ length: 8 }, () => randomUUID());
  const travels = [randomUUID(), randomUUID()];
  const vehicleOf = new Map<string, string>(egresses.map((e) => [e, e]));
  // Egresses 0–2 on the first travel, 3 on the second, 4 released from it (it rode alone).
  for (const i of [0, 1, 2]) vehicleOf.set(egresses[i]!, travels[0]!);
  vehicleOf.set(egresses[3]!, travels[1]!);
  const stays: NetworkStay[] = [];
  for (let n = 0; n < 60; n++) {
    const animal = randomUUID();
    let time = Math.floor(random() * 150);
    let end = 0;
    const count = 1 + Math.floor(random() * 5);
    for (let i = 0; i < count; i++) {
      const unit = pick(units);
      const f = time;
      const last = i === count - 1;
      const t = last && random() < 0.4 ? null : Math.max(end, f + Math.floor(random() * 40));
      const egress = !last && random() < 0.5 ? pick(egresses) : null;
      stays.push({ id: stays.length + 1, animal, unit: unit.id, establishment: unit.establishment, f, t, egress });
      if (t !== null) {
        end = t;
        time = Math.max(f, t + Math.floor(random() * 6));
      }
    }
  }
  return { stays, vehicleOf, units: units.map((u) => u.id) };
}

const graphRows = (stays: NetworkStay[], vehicleOf: Map<string, string>): GraphStay[] =>
  stays.map((s) => ({ id: s.id, animal: s.animal, unit: s.unit, establishment: s.establishment, from: s.f, to: s.t, vehicle: s.egress === null ? null : vehicleOf.get(s.egress)!, egress: s.egress }));

describe('the in-memory walk equals the definition on random networks', () => {
  test('forward and backward, hop limits 0–3 or none, seeded at a unit or an animal', () => {
    let reached = 0;
    let contacts = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.boolean(), fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), fc.boolean(), (seed, forward, maxHops, byUnit) => {
        const { stays, vehicleOf, units } = memoryNetwork(seed);
        const graph = new TraceGraph();
        graph.add(graphRows(stays, vehicleOf));
        const from = (seed % 97) + 10;
        const to = from + ((seed >> 8) % 90);
        const inWindow = (s: NetworkStay) => s.f <= to && (s.t ?? NOW) >= from;
        const seedAnimal = stays[seed % stays.length]!.animal;
        const seeds = byUnit ? stays.filter((s) => s.unit === units[seed % 6] && inWindow(s)) : stays.filter((s) => s.animal === seedAnimal && inWindow(s));
        const seedStays = graph.seedStays(byUnit ? { kind: 'unit', id: units[seed % 6]! } : { kind: 'animal', id: seedAnimal }, from, to, NOW);
        expect(seedStays.map((s) => graph.stayId(s)).sort((a, b) => a - b)).toEqual(seeds.map((s) => s.id).sort((a, b) => a - b));
        const establishment = stays[seed % stays.length]!.establishment;
        const atEstablishment = graph.seedStays({ kind: 'establishment', id: establishment }, from, to, NOW).map((s) => graph.stayId(s));
        expect(atEstablishment.sort((a, b) => a - b)).toEqual(stays.filter((s) => s.establishment === establishment && inWindow(s)).map((s) => s.id));
        const expected = bruteForce(stays, vehicleOf, seeds, from, to, forward, maxHops);
        const all = walkRows(graph, walkGraph(graph, { seeds: seedStays, from, to, forward, maxHops, now: NOW }));
        const rows = all.filter((r) => r.control_unit_id !== null);
        const actual = new Map(rows.map((r) => [r.stay_id, { hops: r.int_hops, exposure: r.ts_exposure }]));
        expect(rows).toHaveLength(actual.size);
        const sorted = (m: Map<number, unknown>) => [...m].sort(([a], [b]) => a - b);
        expect(sorted(actual)).toEqual(sorted(expected));
        // Every contact names an animal that was there then (the unit, or the vehicle), itself traced.
        const via = all.map((r) => ({ stay_id: r.stay_id, unit: r.control_unit_id, via: r.via_animal_id, at: r.ts_via, seed: r.bl_seed }));
        expect(viaNotThere(stays, vehicleOf, expected, forward, via, NOW)).toEqual([]);
        contacts += via.filter((r) => !r.seed && r.via !== null && r.via !== stays.find((s) => s.id === r.stay_id)!.animal).length;
        reached += actual.size;
      }),
      { numRuns: 400 },
    );
    // The networks were not empty answers.
    expect(reached).toBeGreaterThan(2000);
    expect(contacts).toBeGreaterThan(500);
  });
});
