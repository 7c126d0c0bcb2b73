import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { useApp } from './helpers/app.js';
import type { Holding } from './helpers/movements.js';
import { at, hourOf, networkPlaces, randomStays, seeded, unitsAndEgresses, type NetworkStay } from './helpers/trace-network.js';

/**
 * The walk (`trace_runs`, Migration0025TraceRuns) against a brute-force reading of DOMAIN.md's
 * "Tracing" written here: pairwise contacts between presences (a stay at a unit, or a ride on a
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

interface Presence {
  key: string;
  place: string;
  f: number;
  t: number;
  stay: Stay;
  ride: boolean;
}

/** A small random network: units, animals with 1–5 stays each, some stays left by an egress (a vehicle), some egresses on a travel. */
async function network(seed: number): Promise<{ stays: Stay[]; vehicleOf: Map<string, string>; units: string[] }> {
  const { random, pick } = seeded(seed);
  const em = app.service.orm.em.fork();
  const { units, egresses } = await unitsAndEgresses(app, places);
  const travels = [randomUUID(), randomUUID()];
  const vehicleOf = new Map<string, string>(egresses.map((e) => [e, e]));
  for (const travel of travels) {
    await em.execute(
      `insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`,
      [travel, vehicleId, places[0]!.owner.user.id, units[0]!.id, units[1]!.id, at(0)],
    );
  }
  // Egresses 0–2 on the first travel, 3 on the second, 4 released from the second (it rode alone).
  const embarks: [string, string, boolean][] = [[travels[0]!, egresses[0]!, false], [travels[0]!, egresses[1]!, false], [travels[0]!, egresses[2]!, false], [travels[1]!, egresses[3]!, false], [travels[1]!, egresses[4]!, true]];
  for (const [travel, egress, released] of embarks) {
    await em.execute(`insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at, ts_released_at) values (?, ?, ?, ?, ?)`, [randomUUID(), travel, egress, at(0), released ? at(1) : null]);
    if (!released) vehicleOf.set(egress, travel);
  }
  const stays = await randomStays(app, { units, egresses }, { random, pick }, (t) => t + Math.floor(random() * 6));
  return { stays, vehicleOf, units: units.map((u) => u.id) };
}

/** DOMAIN.md's definition, read literally: exposure per presence per round, contacts pairwise until nothing changes. */
function bruteForce(stays: Stay[], vehicleOf: Map<string, string>, seeds: Stay[], from: number, to: number, forward: boolean, maxHops: number | null): Map<number, { hops: number; exposure: number }> {
  const NOW = 1e9;
  const presences: Presence[] = [];
  const next = new Map<Presence, Presence>();
  const previous = new Map<Presence, Presence>();
  const byAnimal = new Map<string, Stay[]>();
  for (const s of stays) byAnimal.set(s.animal, [...(byAnimal.get(s.animal) ?? []), s]);
  const stayPresence = new Map<Stay, Presence>();
  for (const list of byAnimal.values()) {
    list.sort((a, b) => a.f - b.f || a.id - b.id);
    let before: Presence | undefined;
    list.forEach((s, i) => {
      const p: Presence = { key: `s${s.id}`, place: s.unit, f: s.f, t: s.t ?? NOW, stay: s, ride: false };
      presences.push(p);
      stayPresence.set(s, p);
      if (before) {
        next.set(before, p);
        previous.set(p, before);
      }
      before = p;
      if (s.egress && s.t !== null) {
        const ride: Presence = { key: `r${s.id}`, place: vehicleOf.get(s.egress)!, f: s.t, t: list[i + 1]?.f ?? NOW, stay: s, ride: true };
        presences.push(ride);
        next.set(p, ride);
        previous.set(ride, p);
        before = ride;
      }
    });
  }
  const better = (a: number, b: number | undefined) => b === undefined || (forward ? a < b : a > b);
  const closure = (e: Map<Presence, number>) => {
    for (let changed = true; changed; ) {
      changed = false;
      const set = (q: Presence, x: number) => {
        if (better(x, e.get(q))) {
          e.set(q, x);
          changed = true;
        }
      };
      for (const [p, x] of [...e]) {
        for (const q of presences) {
          if (q === p || q.place !== p.place) continue;
          if (forward) {
            const s = Math.max(x, q.f);
            if (s <= Math.min(p.t, q.t, to)) set(q, s);
          } else {
            const s = Math.min(x, q.t);
            if (s >= Math.max(p.f, q.f, from)) set(q, s);
          }
        }
        // Leaving a vehicle for the unit it unloads at (backward: boarding it) is part of the move.
        const end = p.ride ? (forward ? next.get(p) : previous.get(p)) : undefined;
        if (end) set(end, forward ? end.f : end.t);
      }
    }
  };
  let e = new Map<Presence, number>();
  for (const s of seeds) {
    const p = stayPresence.get(s)!;
    e.set(p, forward ? Math.max(from, p.f) : Math.min(to, p.t));
  }
  closure(e);
  const hops = new Map<Presence, number>([...e.keys()].map((p) => [p, 0]));
  for (let k = 1; maxHops === null || k <= maxHops; k++) {
    const after = new Map(e);
    for (const [p] of e) {
      if (p.ride) continue;
      const n = forward ? next.get(p) : previous.get(p);
      if (n) {
        const x = forward ? n.f : n.t;
        if (better(x, after.get(n))) after.set(n, x);
      }
    }
    closure(after);
    const same = after.size === e.size && [...after].every(([p, x]) => e.get(p) === x);
    for (const p of after.keys()) if (!hops.has(p)) hops.set(p, k);
    e = after;
    if (same) break;
  }
  const answer = new Map<number, { hops: number; exposure: number }>();
  for (const [p, x] of e) if (!p.ride) answer.set(p.stay.id, { hops: hops.get(p)!, exposure: x });
  return answer;
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
        const rows = await em.execute<{ stay_id: string; int_hops: number; ts_exposure: Date | string }[]>(
          'select stay_id, int_hops, ts_exposure from trace_runs(array(select jsonb_array_elements_text(?::jsonb)::bigint), ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer) where control_unit_id is not null',
          [JSON.stringify(seeds.map((s) => s.id)), at(from), at(to), forward, maxHops],
        );
        const actual = new Map(rows.map((r) => [Number(r.stay_id), { hops: r.int_hops, exposure: hourOf(r.ts_exposure) }]));
        expect(rows).toHaveLength(actual.size);
        const sorted = (m: Map<number, unknown>) => [...m].sort(([a], [b]) => a - b);
        expect(sorted(actual)).toEqual(sorted(expected));
      }),
      { numRuns: 40 },
    );
  });
});
