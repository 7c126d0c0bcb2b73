import type { NetworkStay } from './trace-network.js';

/**
 * A brute-force reading of DOMAIN.md's "Tracing" (shared by test/trace-walk.test.ts, which holds
 * `trace_runs` to it, and test/trace-walk-memory.test.ts, which holds the in-memory walk to it):
 * pairwise contacts between presences (a stay at a unit, or a ride on a vehicle from an egress to the
 * next stay), moves one at a time, round k = with at most k moves. Times in hours; now is 1e9.
 */
type Stay = NetworkStay;

interface Presence {
  key: string;
  place: string;
  f: number;
  t: number;
  stay: Stay;
  ride: boolean;
}

/** DOMAIN.md's definition, read literally: exposure per presence per round, contacts pairwise until nothing changes. */
export function bruteForce(stays: Stay[], vehicleOf: Map<string, string>, seeds: Stay[], from: number, to: number, forward: boolean, maxHops: number | null): Map<number, { hops: number; exposure: number }> {
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


/** A walk's row as the via check reads it: the stay (its ride when `unit` is null), the contact's animal and time. */
export interface ViaRow {
  stay_id: number;
  unit: string | null;
  via: string | null;
  at: number | null;
  seed: boolean;
}

/**
 * docs/decisions/trace.md, "Via: an animal that was there": a presence reached by a contact names an
 * animal that stood at its place (the unit, or the vehicle it rode) at `ts_via`, itself traced there by
 * then (forward: exposed at or before `ts_via`; backward: at or after). The rows that break it, as
 * text (none: it holds). `answer` is bruteForce's; open stays end at `now`.
 */
export function viaNotThere(stays: Stay[], vehicleOf: Map<string, string>, answer: Map<number, { exposure: number }>, forward: boolean, rows: ViaRow[], now = Infinity): string[] {
  const byId = new Map(stays.map((s) => [s.id, s]));
  const next = new Map<number, Stay>();
  const byAnimal = new Map<string, Stay[]>();
  for (const s of stays) byAnimal.set(s.animal, [...(byAnimal.get(s.animal) ?? []), s]);
  for (const list of byAnimal.values()) {
    list.sort((a, b) => a.f - b.f || a.id - b.id);
    list.forEach((s, i) => list[i + 1] && next.set(s.id, list[i + 1]!));
  }
  const vehicle = (s: Stay) => (s.egress && s.t !== null ? vehicleOf.get(s.egress) : undefined);
  const broken: string[] = [];
  for (const r of rows) {
    if (r.seed || r.via === null || r.at === null) continue;
    const own = byId.get(r.stay_id)!;
    if (r.via === own.animal) continue;
    const at = r.at;
    const there = (byAnimal.get(r.via) ?? []).some((q) => {
      if (r.unit !== null) {
        const e = answer.get(q.id)?.exposure;
        return q.unit === r.unit && q.f <= at && at <= (q.t ?? now) && e !== undefined && (forward ? e <= at : e >= at);
      }
      return vehicle(q) !== undefined && vehicle(q) === vehicle(own) && q.t! <= at && at <= (next.get(q.id)?.f ?? now);
    });
    if (!there) broken.push(`stay ${r.stay_id}${r.unit === null ? "'s ride" : ''}: via ${r.via} at ${at}`);
  }
  return broken;
}
