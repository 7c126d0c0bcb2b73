import { endOf, IntList, keyOf, type TraceGraph } from './trace-graph.js';

/**
 * `trace_runs` (Migration0067TraceStayKey) in memory, one direction: the same rows, column for column
 * (docs/decisions/trace.md, "The walk in memory"). The SQL's temporary tables become typed arrays:
 * places (units 0..U-1, vehicles U+v) are loaded on first mention, exactly as trace_run_state_load
 * loads them (including the narrowed bounds of a hop limit's last round, which decide the runs);
 * each run keeps its label (x, the previous x, src, the round it changed) and the list of its
 * labels with their rounds; candidates are three parallel lists. No object per row in the loops.
 */
export interface WalkQuestion {
  /** Seed stay indexes of the graph. */
  seeds: readonly number[];
  /** The window, epoch microseconds. */
  from: number;
  to: number;
  forward: boolean;
  maxHops: number | null;
  /** now() of the question, epoch microseconds: an open stay's end, a ride still under way's end. */
  now: number;
}

/** trace_runs' rows as columns. Indexes are the graph's (valid until its next change); -1 / NaN for SQL null. */
export interface WalkResult {
  length: number;
  animal: Int32Array;
  /** -1: a ride row (control_unit_id null). */
  unit: Int32Array;
  establishment: Int32Array;
  stay: Int32Array;
  exposure: Float64Array;
  hops: Int32Array;
  viaAnimal: Int32Array;
  viaUnit: Int32Array;
  viaTime: Float64Array;
  seed: Uint8Array;
}

/** A row with uuids, stay ids and microseconds (tests, comparisons with SQL). */
export interface WalkRow {
  animal_id: string;
  control_unit_id: string | null;
  establishment_id: string | null;
  stay_id: number;
  ts_exposure: number;
  int_hops: number;
  via_animal_id: string | null;
  via_control_unit_id: string | null;
  ts_via: number | null;
  bl_seed: boolean;
}

export function walkRows(graph: TraceGraph, r: WalkResult): WalkRow[] {
  const rows: WalkRow[] = [];
  for (let i = 0; i < r.length; i++) {
    rows.push({
      animal_id: graph.animalId(r.animal[i]!),
      control_unit_id: r.unit[i]! < 0 ? null : graph.unitId(r.unit[i]!),
      establishment_id: r.establishment[i]! < 0 ? null : graph.establishmentId(r.establishment[i]!),
      stay_id: graph.stayId(r.stay[i]!),
      ts_exposure: r.exposure[i]!,
      int_hops: r.hops[i]!,
      via_animal_id: r.viaAnimal[i]! < 0 ? null : graph.animalId(r.viaAnimal[i]!),
      via_control_unit_id: r.viaUnit[i]! < 0 ? null : graph.unitId(r.viaUnit[i]!),
      ts_via: Number.isNaN(r.viaTime[i]!) ? null : r.viaTime[i]!,
      bl_seed: r.seed[i] === 1,
    });
  }
  return rows;
}

class FloatList {
  data = new Float64Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const d = new Float64Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = v;
  }
}

/** The answer's columns, grown as rows come. */
class Rows {
  animal = new IntList();
  unit = new IntList();
  establishment = new IntList();
  stay = new IntList();
  exposure = new FloatList();
  hops = new IntList();
  viaAnimal = new IntList();
  viaUnit = new IntList();
  viaTime = new FloatList();
  seed = new IntList();
  add(animal: number, unit: number, establishment: number, stay: number, exposure: number, hops: number, viaAnimal: number, viaUnit: number, viaTime: number, seed: boolean): void {
    this.animal.push(animal);
    this.unit.push(unit);
    this.establishment.push(establishment);
    this.stay.push(stay);
    this.exposure.push(exposure);
    this.hops.push(hops);
    this.viaAnimal.push(viaAnimal);
    this.viaUnit.push(viaUnit);
    this.viaTime.push(viaTime);
    this.seed.push(seed ? 1 : 0);
  }
  result(): WalkResult {
    const n = this.animal.length;
    return {
      length: n,
      animal: this.animal.data.subarray(0, n),
      unit: this.unit.data.subarray(0, n),
      establishment: this.establishment.data.subarray(0, n),
      stay: this.stay.data.subarray(0, n),
      exposure: this.exposure.data.subarray(0, n),
      hops: this.hops.data.subarray(0, n),
      viaAnimal: this.viaAnimal.data.subarray(0, n),
      viaUnit: this.viaUnit.data.subarray(0, n),
      viaTime: this.viaTime.data.subarray(0, n),
      seed: Uint8Array.from(this.seed.data.subarray(0, n)),
    };
  }
}

/** Candidates (trace_wcand): place, x, src. */
class Candidates {
  place = new IntList();
  x = new FloatList();
  src = new IntList();
  get length(): number {
    return this.place.length;
  }
  push(place: number, x: number, src: number): void {
    this.place.push(place);
    this.x.push(x);
    this.src.push(src);
  }
  clear(): void {
    this.place.length = 0;
    this.x.length = 0;
    this.src.length = 0;
  }
}

export function walkGraph(graph: TraceGraph, q: WalkQuestion): WalkResult {
  graph.ensureBuilt();
  return new Walk(graph, q, scratchOf(graph)).run();
}

/**
 * The walk's arrays by place, animal and stay, kept from one walk to the next of a graph: at a million
 * animals they are some 35 MB, allocated and zeroed for every walk they cost more than a 1-hop walk
 * itself, and their garbage made the collector run inside the walks. What a walk marks it lists
 * (`dirty*`), and the next walk clears those entries first (so a walk that threw leaves nothing).
 * Walks never interleave (each runs to its end synchronously).
 */
class Scratch {
  runFirst = new Int32Array(0);
  runCount = new Int32Array(0);
  pending = new Float64Array(0);
  pendingStamp = new Int32Array(0);
  done = new Uint8Array(0);
  anchor = new Int32Array(0);
  seeds = new Uint8Array(0);
  stamp = 0;
  readonly dirtyPlaces = new IntList();
  readonly dirtyAnimals = new IntList();
  readonly dirtySeeds = new IntList();

  /** Sized for the graph as it is now, every entry as a fresh walk wants it. */
  ready(places: number, animals: number, stays: number): this {
    if (this.runFirst.length < places) {
      this.runFirst = new Int32Array(places).fill(-1);
      this.runCount = new Int32Array(places);
      this.pending = new Float64Array(places);
      this.pendingStamp = new Int32Array(places);
      this.stamp = 0;
    } else for (let i = 0; i < this.dirtyPlaces.length; i++) this.runFirst[this.dirtyPlaces.data[i]!] = -1;
    if (this.done.length < animals) {
      this.done = new Uint8Array(animals);
      this.anchor = new Int32Array(animals).fill(-1);
    } else {
      for (let i = 0; i < this.dirtyAnimals.length; i++) {
        this.done[this.dirtyAnimals.data[i]!] = 0;
        this.anchor[this.dirtyAnimals.data[i]!] = -1;
      }
    }
    if (this.seeds.length < stays) this.seeds = new Uint8Array(stays);
    else for (let i = 0; i < this.dirtySeeds.length; i++) this.seeds[this.dirtySeeds.data[i]!] = 0;
    // The pending stamps only grow; near the end of their range, cleared once.
    if (this.stamp > 2 ** 30) {
      this.pendingStamp.fill(0);
      this.stamp = 0;
    }
    this.dirtyPlaces.clear();
    this.dirtyAnimals.clear();
    this.dirtySeeds.clear();
    return this;
  }
}

const scratches = new WeakMap<TraceGraph, Scratch>();
function scratchOf(graph: TraceGraph): Scratch {
  let s = scratches.get(graph);
  if (!s) scratches.set(graph, (s = new Scratch()));
  return s.ready(graph.unitCount + graph.vehicleCount, graph.animalCount, graph.stayCapacity);
}

class Walk {
  private readonly U: number;
  private readonly fwd: boolean;
  private readonly rows = new Rows();
  // Places: their runs [runFirst, runFirst + runCount), -1 before loading; their pending bounds.
  private readonly runFirst: Int32Array;
  private readonly runCount: Int32Array;
  private readonly pending: Float64Array;
  private readonly pendingStamp: Int32Array;
  // Runs (trace_wrun).
  private rFrom = new FloatList();
  private rTo = new FloatList();
  private rX = new FloatList();
  private rPrev = new FloatList();
  private rSrc = new IntList();
  private rPlace = new IntList();
  /** The run's members: stays (unit) or rides (vehicle), [rMemberFirst, rMemberEnd). */
  private rMemberFirst = new IntList();
  private rMemberEnd = new IntList();
  private rLabelFirst = new IntList();
  private rLabelLast = new IntList();
  // This round's best candidate per run.
  private rBestX = new FloatList();
  private rBestSrc = new IntList();
  private rBestStamp = new IntList();
  // Labels (xs, ks) as linked lists.
  private labelX = new FloatList();
  private labelK = new IntList();
  private labelNext = new IntList();
  /** The unit runs' stays, each run a contiguous range. */
  private unitMembers = new IntList();
  // Rides (trace_wride), each vehicle run a contiguous range.
  private rideStay = new IntList();
  private rideF = new FloatList();
  private rideT = new FloatList();
  private rideEndUnit = new IntList();
  private rideEndX = new FloatList();
  private rideHops = new IntList();
  // Candidates to vehicles and to units.
  private readonly toVehicles = new Candidates();
  private readonly toUnits = new Candidates();
  /** Animals whose path past the window a round returned (trace_wdone). */
  private readonly done: Uint8Array;
  private readonly changedUnitRuns = new IntList();
  private readonly changedVehicleRuns = new IntList();
  private readonly scratch = new IntList();
  /** A vehicle's riders while it loads. */
  private readonly scratch2 = new IntList();

  constructor(
    private readonly graph: TraceGraph,
    private readonly q: WalkQuestion,
    private readonly scratch0: Scratch,
  ) {
    this.U = graph.unitCount;
    this.fwd = q.forward;
    this.runFirst = scratch0.runFirst;
    this.runCount = scratch0.runCount;
    this.pending = scratch0.pending;
    this.pendingStamp = scratch0.pendingStamp;
    this.done = scratch0.done;
  }

  run(): WalkResult {
    const { graph, q } = this;
    let k = 0;
    // Seeds: 0 moves, from the window's start (backward: to its end), if they reach into the window.
    for (const s of new Set(q.seeds)) {
      const to = graph.stayTo(s);
      if (keyOf(to) < q.from) continue;
      const x = this.fwd ? Math.max(q.from, graph.stayFrom(s)) : Math.min(q.to, endOf(to, q.now));
      this.toUnits.push(graph.stayUnit(s), x, graph.stayAnimal(s));
    }
    this.apply(false, 0);
    for (;;) {
      if (q.maxHops !== null && k >= q.maxHops) break;
      if (this.fwd) this.unitMovesForward(k);
      else this.unitMovesBackward(k);
      if (this.toVehicles.length === 0 && this.toUnits.length === 0) break;
      k++;
      this.apply(true, k);
      this.rideEnds(k);
      this.apply(false, k);
    }
    this.finalRows();
    return this.rows.result();
  }

  private isLast(k: number): boolean {
    return this.q.maxHops !== null && k >= this.q.maxHops;
  }

  /** Loads the places the candidates name, then improves the label of each run a candidate falls in. */
  private apply(vehicle: boolean, k: number): void {
    const c = vehicle ? this.toVehicles : this.toUnits;
    const changed = vehicle ? this.changedVehicleRuns : this.changedUnitRuns;
    changed.clear();
    const n = c.length;
    const last = this.isLast(k);
    const stamp = ++this.scratch0.stamp;
    const fresh = this.scratch;
    fresh.clear();
    for (let i = 0; i < n; i++) {
      const p = c.place.data[i]!;
      if (this.runFirst[p]! >= 0) continue;
      const x = c.x.data[i]!;
      if (this.pendingStamp[p] !== stamp) {
        this.pendingStamp[p] = stamp;
        this.pending[p] = x;
        fresh.push(p);
      } else if (this.fwd ? x < this.pending[p]! : x > this.pending[p]!) this.pending[p] = x;
    }
    for (let i = 0; i < fresh.length; i++) {
      const p = fresh.data[i]!;
      const lo = last && this.fwd ? this.pending[p]! : this.q.from;
      const hi = last && !this.fwd ? this.pending[p]! : this.q.to;
      if (vehicle) this.loadVehicle(p, lo, hi);
      else this.loadUnit(p, lo, hi);
    }
    // The best candidate per run: the earliest (backward: latest), ties to the smallest source uuid.
    const touched = this.scratch;
    touched.clear();
    for (let i = 0; i < n; i++) {
      const p = c.place.data[i]!;
      const x = c.x.data[i]!;
      const r = this.runAt(p, x);
      if (r < 0) continue;
      const src = c.src.data[i]!;
      if (this.rBestStamp.data[r] !== stamp) {
        this.rBestStamp.data[r] = stamp;
        this.rBestX.data[r] = x;
        this.rBestSrc.data[r] = src;
        touched.push(r);
        continue;
      }
      const bx = this.rBestX.data[r]!;
      if ((this.fwd ? x < bx : x > bx) || (x === bx && this.graph.compareAnimals(src, this.rBestSrc.data[r]!) < 0)) {
        this.rBestX.data[r] = x;
        this.rBestSrc.data[r] = src;
      }
    }
    for (let i = 0; i < touched.length; i++) {
      const r = touched.data[i]!;
      const x = this.rBestX.data[r]!;
      const old = this.rX.data[r]!;
      if (!(Number.isNaN(old) || (this.fwd ? x < old : x > old))) continue;
      this.rPrev.data[r] = old;
      this.rX.data[r] = x;
      this.rSrc.data[r] = this.rBestSrc.data[r]!;
      const label = this.labelX.length;
      this.labelX.push(x);
      this.labelK.push(k);
      this.labelNext.push(-1);
      if (this.rLabelLast.data[r]! < 0) this.rLabelFirst.data[r] = label;
      else this.labelNext.data[this.rLabelLast.data[r]!] = label;
      this.rLabelLast.data[r] = label;
      changed.push(r);
    }
    c.clear();
  }

  /** The run of place p a time falls in: the last begun by it (its highest number among equal starts), if it has not ended. */
  private runAt(p: number, x: number): number {
    let lo = this.runFirst[p]!;
    let hi = lo + this.runCount[p]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rFrom.data[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    const r = lo - 1;
    return r >= this.runFirst[p]! && x <= this.rTo.data[r]! ? r : -1;
  }

  private newRun(p: number, from: number, to: number, first: number, end: number): void {
    this.rFrom.push(from);
    this.rTo.push(to);
    this.rX.push(NaN);
    this.rPrev.push(NaN);
    this.rSrc.push(-1);
    this.rPlace.push(p);
    this.rMemberFirst.push(first);
    this.rMemberEnd.push(end);
    this.rLabelFirst.push(-1);
    this.rLabelLast.push(-1);
    this.rBestX.push(NaN);
    this.rBestSrc.push(-1);
    this.rBestStamp.push(0);
  }

  /** A unit's runs (gaps and islands over its stays in the place's bounds, in (from, end, id) order). */
  private loadUnit(u: number, lo: number, hi: number): void {
    const m = this.unitMembers;
    const first = m.length;
    this.graph.unitWindow(u, lo, hi, this.q.now, m);
    this.runFirst[u] = this.rFrom.length;
    this.scratch0.dirtyPlaces.push(u);
    // A run breaks where a stay begins after every earlier one has ended (the max over all earlier rows, as the SQL's window).
    let start = first;
    let maxT = -Infinity;
    let runTo = -Infinity;
    for (let i = first; i < m.length; i++) {
      const s = m.data[i]!;
      const f = this.graph.stayFrom(s);
      const t = endOf(this.graph.stayTo(s), this.q.now);
      if (i > first && f > maxT) {
        this.newRun(u, this.graph.stayFrom(m.data[start]!), runTo, start, i);
        start = i;
        runTo = -Infinity;
      }
      if (t > maxT) maxT = t;
      if (t > runTo) runTo = t;
    }
    if (m.length > first) this.newRun(u, this.graph.stayFrom(m.data[start]!), runTo, start, m.length);
    this.runCount[u] = this.rFrom.length - this.runFirst[u]!;
  }

  /**
   * A vehicle's rides, from the egress that closed a stay (by hi) to the animal's next stay (still riding:
   * now), ending at or after lo; its runs over them in (f, t, -id) order. A ride whose next stay began
   * before the egress runs backwards (t < f): the SQL's running max makes it a run of its own when it
   * breaks, and so here.
   */
  private loadVehicle(p: number, lo: number, hi: number): void {
    const g = this.graph;
    const riders = this.scratch2;
    riders.clear();
    g.vehicleRiders(p - this.U, riders);
    const first = this.rideStay.length;
    for (let i = 0; i < riders.length; i++) {
      const s = riders.data[i]!;
      const to = g.stayTo(s);
      if (!(to <= hi)) continue;
      const n = g.nextStay(s);
      const t = n < 0 ? this.q.now : g.stayFrom(n);
      if (!(t >= lo)) continue;
      this.rideStay.push(s);
      this.rideF.push(to);
      this.rideT.push(t);
      this.rideEndUnit.push(this.fwd ? (n < 0 ? -1 : g.stayUnit(n)) : g.stayUnit(s));
      this.rideEndX.push(this.fwd ? (n < 0 ? NaN : g.stayFrom(n)) : to);
      this.rideHops.push(-1);
    }
    this.sortRides(first, this.rideStay.length);
    this.runFirst[p] = this.rFrom.length;
    this.scratch0.dirtyPlaces.push(p);
    let start = first;
    let maxT = -Infinity;
    let runTo = -Infinity;
    for (let i = first; i < this.rideStay.length; i++) {
      const f = this.rideF.data[i]!;
      const t = this.rideT.data[i]!;
      if (i > first && f > maxT) {
        this.newRun(p, this.rideF.data[start]!, runTo, start, i);
        start = i;
        runTo = -Infinity;
      }
      if (t > maxT) maxT = t;
      if (t > runTo) runTo = t;
    }
    if (this.rideStay.length > first) this.newRun(p, this.rideF.data[start]!, runTo, start, this.rideStay.length);
    this.runCount[p] = this.rFrom.length - this.runFirst[p]!;
  }

  /** Insertion sort of rides [a, b) by (f, t, -stay id): a vehicle carries a truckload, tens of rides. */
  private sortRides(a: number, b: number): void {
    const { rideStay, rideF, rideT, rideEndUnit, rideEndX } = this;
    const g = this.graph;
    const before = (i: number, s: number, f: number, t: number) => rideF.data[i]! > f || (rideF.data[i] === f && (rideT.data[i]! > t || (rideT.data[i] === t && g.stayId(rideStay.data[i]!) < g.stayId(s))));
    for (let k = a + 1; k < b; k++) {
      const s = rideStay.data[k]!;
      const f = rideF.data[k]!;
      const t = rideT.data[k]!;
      const eu = rideEndUnit.data[k]!;
      const ex = rideEndX.data[k]!;
      let m = k - 1;
      while (m >= a && before(m, s, f, t)) {
        rideStay.data[m + 1] = rideStay.data[m]!;
        rideF.data[m + 1] = rideF.data[m]!;
        rideT.data[m + 1] = rideT.data[m]!;
        rideEndUnit.data[m + 1] = rideEndUnit.data[m]!;
        rideEndX.data[m + 1] = rideEndX.data[m]!;
        m--;
      }
      rideStay.data[m + 1] = s;
      rideF.data[m + 1] = f;
      rideT.data[m + 1] = t;
      rideEndUnit.data[m + 1] = eu;
      rideEndX.data[m + 1] = ex;
    }
  }

  /** Forward: the presences newly exposed in round k sent on (to their vehicle, or their next stay), and the paths past the window. */
  private unitMovesForward(k: number): void {
    const { graph: g, q } = this;
    const runs = this.changedUnitRuns;
    for (let ri = 0; ri < runs.length; ri++) {
      const r = runs.data[ri]!;
      const x = this.rX.data[r]!;
      const prev = this.rPrev.data[r]!;
      for (let i = this.rMemberFirst.data[r]!; i < this.rMemberEnd.data[r]!; i++) {
        const s = this.unitMembers.data[i]!;
        const end = endOf(g.stayTo(s), q.now);
        if (!(end >= x && (Number.isNaN(prev) || end < prev))) continue;
        const animal = g.stayAnimal(s);
        const vehicle = g.stayVehicle(s);
        const to = g.stayTo(s);
        if (vehicle >= 0) {
          // (An egress on a stay still open: the SQL's `rides` is null, and nothing follows.)
          if (Number.isNaN(to)) continue;
          if (to <= q.to) {
            this.toVehicles.push(this.U + vehicle, to, animal);
            continue;
          }
        }
        const next = g.nextStay(s);
        if (next >= 0 && vehicle < 0 && g.stayFrom(next) <= q.to) this.toUnits.push(g.stayUnit(next), g.stayFrom(next), animal);
        if (this.clearAfter(next)) {
          this.done[animal] = 1;
          this.scratch0.dirtyAnimals.push(animal);
          this.pathAfter(animal, next, k);
        }
      }
    }
  }

  /** The first member in [lo, hi) of the unit members (from order) that began after t. */
  private firstBegunAfter(lo: number, hi: number, t: number): number {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.graph.stayFrom(this.unitMembers.data[mid]!) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Backward: the presences newly exposed in round k sent back (to the vehicle that brought them, or their previous stay), and the paths before the window. */
  private unitMovesBackward(k: number): void {
    const { graph: g, q } = this;
    const runs = this.changedUnitRuns;
    for (let ri = 0; ri < runs.length; ri++) {
      const r = runs.data[ri]!;
      const x = this.rX.data[r]!;
      const prev = this.rPrev.data[r]!;
      // The members are in from order: the fresh ones (begun after the previous label, by this one) are a range.
      const end = this.rMemberEnd.data[r]!;
      for (let i = Number.isNaN(prev) ? this.rMemberFirst.data[r]! : this.firstBegunAfter(this.rMemberFirst.data[r]!, end, prev); i < end; i++) {
        const s = this.unitMembers.data[i]!;
        const from = g.stayFrom(s);
        if (from > x) break;
        const animal = g.stayAnimal(s);
        const before = g.previousStay(s);
        if (from >= q.from) {
          if (before < 0) continue;
          const vehicle = g.stayVehicle(before);
          if (vehicle >= 0) this.toVehicles.push(this.U + vehicle, from, animal);
          else if (g.stayTo(before) >= q.from) this.toUnits.push(g.stayUnit(before), g.stayTo(before), animal);
          continue;
        }
        if (before >= 0 && g.stayTo(before) >= q.from && g.stayVehicle(before) < 0) this.toUnits.push(g.stayUnit(before), g.stayTo(before), animal);
        if (this.clearBefore(before)) {
          this.done[animal] = 1;
          this.scratch0.dirtyAnimals.push(animal);
          this.pathBefore(animal, before, k);
        }
      }
    }
  }

  // The paths past the window, each loop in a method of its own: V8 deoptimizes a caller whose
  // OSR-compiled inner loop exits, over and over (measured: the backward walk ×2 slower inlined).

  /** Forward: whether every stay from `o` on begins after the window. */
  private clearAfter(o: number): boolean {
    const g = this.graph;
    for (; o >= 0; o = g.nextStay(o)) if (!(Math.min(g.stayFrom(o), keyOf(g.stayTo(o))) > this.q.to)) return false;
    return true;
  }

  /** Backward: whether every stay from `o` back ended before the window. */
  private clearBefore(o: number): boolean {
    const g = this.graph;
    for (; o >= 0; o = g.previousStay(o)) if (!(keyOf(g.stayTo(o)) < this.q.from)) return false;
    return true;
  }

  /** The rows of the stays from `o` on, one move each after `hops`, within the hop limit. */
  private pathAfter(animal: number, o: number, hops: number): void {
    const { graph: g, q } = this;
    for (; o >= 0; o = g.nextStay(o)) {
      hops++;
      if (q.maxHops !== null && hops > q.maxHops) return;
      this.rows.add(animal, g.stayUnit(o), g.stayEstablishment(o), o, g.stayFrom(o), hops, animal, -1, g.stayFrom(o), false);
    }
  }

  /** The rows of the stays from `o` back, one move each after `hops`, within the hop limit. */
  private pathBefore(animal: number, o: number, hops: number): void {
    const { graph: g, q } = this;
    for (; o >= 0; o = g.previousStay(o)) {
      hops++;
      if (q.maxHops !== null && hops > q.maxHops) return;
      const ex = endOf(g.stayTo(o), q.now);
      this.rows.add(animal, g.stayUnit(o), g.stayEstablishment(o), o, ex, hops, animal, -1, ex, false);
    }
  }

  /** The rides newly exposed in round k: hops k, and a candidate to the unit their move ends at (forward: unloaded at; backward: loaded at). */
  private rideEnds(k: number): void {
    const runs = this.changedVehicleRuns;
    for (let ri = 0; ri < runs.length; ri++) {
      const r = runs.data[ri]!;
      const x = this.rX.data[r]!;
      for (let i = this.rMemberFirst.data[r]!; i < this.rMemberEnd.data[r]!; i++) {
        if (this.rideHops.data[i]! >= 0) continue;
        if (!(this.fwd ? this.rideT.data[i]! >= x : this.rideF.data[i]! <= x)) continue;
        this.rideHops.data[i] = k;
        const endX = this.rideEndX.data[i]!;
        const animal = this.graph.stayAnimal(this.rideStay.data[i]!);
        if (this.fwd ? endX <= this.q.to : endX >= this.q.from) this.toUnits.push(this.rideEndUnit.data[i]!, endX, animal);
      }
    }
  }

  /** The rows of every reached presence, then each traced animal's path past the window (from its last reached presence; backward, its first). */
  private finalRows(): void {
    const { graph: g, q, rows, fwd } = this;
    // The seeds marked by stay (a set's lookup per reached row costs more than the whole mark).
    const { seeds, anchor } = this.scratch0;
    for (const s of q.seeds) {
      seeds[s] = 1;
      this.scratch0.dirtySeeds.push(s);
    }
    // Per animal, the row of its anchor (the last reached presence; backward the first), -1 none.
    const better = (row: number, than: number) => {
      const s = rows.stay.data[row]!;
      const t = rows.stay.data[than]!;
      const d = g.stayFrom(s) - g.stayFrom(t) || g.stayId(s) - g.stayId(t) || (rows.unit.data[row]! < 0 ? 1 : 0) - (rows.unit.data[than]! < 0 ? 1 : 0);
      return fwd ? d > 0 : d < 0;
    };
    const consider = (row: number) => {
      const a = rows.animal.data[row]!;
      if (this.done[a]) return;
      if (anchor[a]! < 0) this.scratch0.dirtyAnimals.push(a);
      if (anchor[a]! < 0 || better(row, anchor[a]!)) anchor[a] = row;
    };
    for (let r = 0; r < this.rFrom.length; r++) {
      const x = this.rX.data[r]!;
      if (Number.isNaN(x)) continue;
      const place = this.rPlace.data[r]!;
      const src = this.rSrc.data[r]!;
      if (place < this.U) {
        for (let i = this.rMemberFirst.data[r]!; i < this.rMemberEnd.data[r]!; i++) {
          const s = this.unitMembers.data[i]!;
          const from = g.stayFrom(s);
          // (Backward, the members after the label began after it: none of them is reached.)
          if (!fwd && from > x) break;
          const end = endOf(g.stayTo(s), q.now);
          if (fwd && end < x) continue;
          const ex = fwd ? Math.max(from, x) : Math.min(end, x);
          // The fewest moves: the first round whose label reached the stay.
          let hops = -1;
          for (let l = this.rLabelFirst.data[r]!; l >= 0; l = this.labelNext.data[l]!) {
            const lx = this.labelX.data[l]!;
            if (fwd ? lx <= end : lx >= from) {
              hops = this.labelK.data[l]!;
              break;
            }
          }
          const seed = seeds[s] === 1;
          rows.add(g.stayAnimal(s), place, g.stayEstablishment(s), s, ex, hops, seed ? -1 : src, seed ? -1 : place, seed ? NaN : ex, seed);
          consider(rows.animal.length - 1);
        }
      } else {
        for (let i = this.rMemberFirst.data[r]!; i < this.rMemberEnd.data[r]!; i++) {
          const hops = this.rideHops.data[i]!;
          if (hops < 0) continue;
          const s = this.rideStay.data[i]!;
          const ex = fwd ? Math.max(this.rideF.data[i]!, x) : Math.min(this.rideT.data[i]!, x);
          rows.add(g.stayAnimal(s), -1, -1, s, ex, hops, src, -1, ex, false);
          consider(rows.animal.length - 1);
        }
      }
    }
    // Past the window: each anchor's later (backward: earlier) stays, one move each; a ride's far end is part of its move.
    const anchored = this.scratch0.dirtyAnimals;
    for (let i = 0; i < anchored.length; i++) {
      const a = anchored.data[i]!;
      const row = anchor[a]!;
      if (row < 0) continue;
      const ride = rows.unit.data[row]! < 0;
      const base = rows.hops.data[row]! - (ride ? 1 : 0);
      if (q.maxHops !== null && base + 1 > q.maxHops) continue;
      const stay = rows.stay.data[row]!;
      if (fwd) this.pathAfter(a, g.nextStay(stay), base);
      else this.pathBefore(a, ride ? stay : g.previousStay(stay), base);
    }
  }
}
