import fc from 'fast-check';
import { TraceGraph } from '../src/trace/graph/trace-graph.js';
import { walkGraph, walkRows } from '../src/trace/walk/trace-walk.js';
import { bruteForce } from './helpers/trace-brute.js';
import { seeded, type NetworkStay } from './helpers/trace-network.js';

/**
 * Backward is forward with time reversed (issue 37: a holding one move back through a truck must count
 * one move, as forward): on random networks, a backward trace's stays, moves and exposures equal a
 * forward trace's over the mirrored network (each stay [f, t] becomes [-t, -f], a path runs the other
 * way, and the egress that ended a stay ends the mirror of the stay after it, so each ride keeps its
 * vehicle and its two units), for the brute-force reading of DOMAIN.md and for the walk in memory. The
 * networks' instants never touch (a stay lasts, and the next begins later), so no tie of the closed
 * intervals depends on the direction. No database.
 */
function network(seed: number): { stays: NetworkStay[]; vehicleOf: Map<string, string>; units: string[] } {
  const { random, pick } = seeded(seed);
  const units = Array.from({ length: 6 }, (_, i) => ({ id: `unit-${i}`, establishment: `holding-${i % 3}` }));
  const egresses = Array.from({ length: 8 }, (_, i) => `egress-${i}`);
  const vehicleOf = new Map<string, string>(egresses.map((e) => [e, e]));
  for (const i of [0, 1, 2]) vehicleOf.set(egresses[i]!, 'travel-0');
  vehicleOf.set(egresses[3]!, 'travel-1');
  const stays: NetworkStay[] = [];
  for (let n = 0; n < 30; n++) {
    let time = Math.floor(random() * 150);
    const count = 1 + Math.floor(random() * 5);
    for (let i = 0; i < count; i++) {
      const last = i === count - 1;
      const unit = pick(units);
      const f = time;
      // Every stay closed (the mirror of an open stay would begin at minus now).
      const t = f + 1 + Math.floor(random() * 40);
      stays.push({ id: stays.length + 1, animal: `animal-${n}`, unit: unit.id, establishment: unit.establishment, f, t, egress: !last && random() < 0.5 ? pick(egresses) : null });
      time = t + 1 + Math.floor(random() * 6);
    }
  }
  return { stays, vehicleOf, units: units.map((u) => u.id) };
}

/** The network with time reversed: the egress of a stay moves to the stay after it (the one before it, mirrored). */
function mirrored(stays: NetworkStay[]): NetworkStay[] {
  const out = stays.map((s) => ({ ...s, f: -s.t!, t: -s.f, egress: null as string | null }));
  stays.forEach((s, i) => {
    if (s.egress) out[i + 1]!.egress = s.egress;
  });
  return out;
}

const graphOf = (stays: NetworkStay[], vehicleOf: Map<string, string>) => {
  const g = new TraceGraph();
  g.add(stays.map((s) => ({ id: s.id, animal: s.animal, unit: s.unit, establishment: s.establishment, from: s.f, to: s.t, vehicle: s.egress === null ? null : vehicleOf.get(s.egress)!, egress: s.egress })));
  return g;
};

const text = (m: Map<number, { hops: number; exposure: number }>, sign: number) =>
  [...m].map(([id, v]) => `${id}: ${v.hops} moves, exposed ${sign * v.exposure}`).sort();

describe('backward is forward with time reversed', () => {
  test('the brute force and the walk in memory, at a unit or an animal, hop limits 0-3 or none', () => {
    let reached = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), fc.boolean(), (seed, maxHops, byUnit) => {
        const { stays, vehicleOf, units } = network(seed);
        const mirror = mirrored(stays);
        const from = (seed % 97) + 10;
        const to = from + ((seed >> 8) % 90);
        const question = byUnit ? { kind: 'unit' as const, id: units[seed % 6]! } : { kind: 'animal' as const, id: stays[seed % stays.length]!.animal };
        const seedsOf = (list: NetworkStay[], a: number, b: number) => list.filter((s) => (byUnit ? s.unit : s.animal) === question.id && s.f <= b && s.t! >= a);
        const backward = bruteForce(stays, vehicleOf, seedsOf(stays, from, to), from, to, false, maxHops);
        const forward = bruteForce(mirror, vehicleOf, seedsOf(mirror, -to, -from), -to, -from, true, maxHops);
        expect(text(backward, 1)).toEqual(text(forward, -1));
        const g = graphOf(stays, vehicleOf);
        const walked = walkRows(g, walkGraph(g, { seeds: g.seedStays(question, from, to, 1e9), from, to, forward: false, maxHops, now: 1e9 })).filter((r) => r.control_unit_id !== null);
        expect(text(new Map(walked.map((r) => [r.stay_id, { hops: r.int_hops, exposure: r.ts_exposure }])), 1)).toEqual(text(backward, 1));
        reached += backward.size;
      }),
      { numRuns: 500 },
    );
    expect(reached).toBeGreaterThan(1000);
  });
});
