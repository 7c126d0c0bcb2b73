import { F_FROM, F_ID, F_TO, FLOATS, I_ANIMAL, I_ESTABLISHMENT, I_NEXT, I_PREVIOUS, I_UNIT, I_VEHICLE, IntList, INTS, type TraceGraph } from '../graph/trace-graph.js';
import { RunPresences } from './trace-via.js';

/**
 * `trace_runs` (src/trace/sql/trace_runs.sql) in memory, one direction: the same rows, column for column
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

/**
 * The answer's columns, one capacity check a row. The result is handed the columns as they are (the
 * caller keeps it), and the next walk of the graph starts new ones sized by this one's rows and a
 * quarter: grown by doubling from small they were the collector's work inside the walk, and copied
 * out at exact size at the end, 9% of the backward walk (a profile at 1M).
 */
class Rows {
  length = 0;
  private capacity = 0;
  animal = new Int32Array(0);
  unit = new Int32Array(0);
  establishment = new Int32Array(0);
  stay = new Int32Array(0);
  exposure = new Float64Array(0);
  hops = new Int32Array(0);
  viaAnimal = new Int32Array(0);
  viaUnit = new Int32Array(0);
  viaTime = new Float64Array(0);
  seed = new Uint8Array(0);
  /** Empty, with new columns (the last result keeps the old ones). */
  renew(capacity: number): void {
    this.length = 0;
    this.allocate(capacity, 0);
  }
  add(animal: number, unit: number, establishment: number, stay: number, exposure: number, hops: number, viaAnimal: number, viaUnit: number, viaTime: number, seed: number): void {
    const i = this.length;
    if (i === this.capacity) this.allocate(2 * this.capacity, i);
    this.animal[i] = animal;
    this.unit[i] = unit;
    this.establishment[i] = establishment;
    this.stay[i] = stay;
    this.exposure[i] = exposure;
    this.hops[i] = hops;
    this.viaAnimal[i] = viaAnimal;
    this.viaUnit[i] = viaUnit;
    this.viaTime[i] = viaTime;
    this.seed[i] = seed;
    this.length = i + 1;
  }
  /** New columns of `capacity` rows, the first `keep` copied. */
  private allocate(capacity: number, keep: number): void {
    this.capacity = capacity;
    const int = (a: Int32Array) => {
      const d = new Int32Array(capacity);
      if (keep) d.set(a.subarray(0, keep));
      return d;
    };
    const float = (a: Float64Array) => {
      const d = new Float64Array(capacity);
      if (keep) d.set(a.subarray(0, keep));
      return d;
    };
    this.animal = int(this.animal);
    this.unit = int(this.unit);
    this.establishment = int(this.establishment);
    this.stay = int(this.stay);
    this.exposure = float(this.exposure);
    this.hops = int(this.hops);
    this.viaAnimal = int(this.viaAnimal);
    this.viaUnit = int(this.viaUnit);
    this.viaTime = float(this.viaTime);
    const seed = new Uint8Array(capacity);
    if (keep) seed.set(this.seed.subarray(0, keep));
    this.seed = seed;
  }
  /** The rows as the walk's result; the columns are the result's now (the next walk renews them). */
  result(): WalkResult {
    const n = this.length;
    const result: WalkResult = {
      length: n,
      animal: this.animal.subarray(0, n),
      unit: this.unit.subarray(0, n),
      establishment: this.establishment.subarray(0, n),
      stay: this.stay.subarray(0, n),
      exposure: this.exposure.subarray(0, n),
      hops: this.hops.subarray(0, n),
      viaAnimal: this.viaAnimal.subarray(0, n),
      viaUnit: this.viaUnit.subarray(0, n),
      viaTime: this.viaTime.subarray(0, n),
      seed: this.seed.subarray(0, n),
    };
    this.allocate(0, 0);
    return result;
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
 * Its lists (runs, labels, members, rides, candidates, rows) are kept too, emptied at the start of
 * a walk: grown by doubling they were the walk's garbage. Walks never interleave (each runs to its
 * end synchronously).
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
  // The walk's lists (Walk's fields of the same names).
  readonly rows = new Rows();
  readonly rFrom = new FloatList();
  readonly rTo = new FloatList();
  readonly rX = new FloatList();
  readonly rPrev = new FloatList();
  readonly rSrc = new IntList();
  readonly rPlace = new IntList();
  readonly rMemberFirst = new IntList();
  readonly rMemberEnd = new IntList();
  readonly rLabelFirst = new IntList();
  readonly rLabelLast = new IntList();
  readonly rBestX = new FloatList();
  readonly rBestSrc = new IntList();
  readonly rBestStamp = new IntList();
  readonly labelX = new FloatList();
  readonly labelK = new IntList();
  readonly labelNext = new IntList();
  readonly unitMembers = new IntList();
  readonly rideStay = new IntList();
  readonly rideF = new FloatList();
  readonly rideT = new FloatList();
  readonly rideEndUnit = new IntList();
  readonly rideEndX = new FloatList();
  readonly rideHops = new IntList();
  readonly toVehicles = new Candidates();
  readonly toUnits = new Candidates();
  readonly changedUnitRuns = new IntList();
  readonly changedVehicleRuns = new IntList();
  readonly list1 = new IntList();
  readonly list2 = new IntList();

  private readonly gather: Gathered = { before: new Int32Array(256), vehicle: new Int32Array(256), unit: new Int32Array(256), to: new Float64Array(256) };
  /** The gathered columns with room for n. */
  gathered(n: number): Gathered {
    const g = this.gather;
    if (g.before.length < n) {
      const c = Math.max(n, 2 * g.before.length);
      g.before = new Int32Array(c);
      g.vehicle = new Int32Array(c);
      g.unit = new Int32Array(c);
      g.to = new Float64Array(c);
    }
    return g;
  }

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
    // The pending stamps only grow; near the end of their range, cleared once (each run's best stamp is set when the run is made).
    if (this.stamp > 2 ** 30) {
      this.pendingStamp.fill(0);
      this.stamp = 0;
    }
    this.dirtyPlaces.clear();
    this.dirtyAnimals.clear();
    this.dirtySeeds.clear();
    // (rows.length: the last walk's rows.)
    this.rows.renew(Math.max(1024, Math.ceil(this.rows.length * 1.25)));
    for (const l of [this.rFrom, this.rTo, this.rX, this.rPrev, this.rSrc, this.rPlace, this.rMemberFirst, this.rMemberEnd, this.rLabelFirst, this.rLabelLast, this.rBestX, this.rBestSrc, this.rBestStamp]) l.length = 0;
    for (const l of [this.labelX, this.labelK, this.labelNext, this.unitMembers, this.rideStay, this.rideF, this.rideT, this.rideEndUnit, this.rideEndX, this.rideHops]) l.length = 0;
    for (const l of [this.changedUnitRuns, this.changedVehicleRuns, this.list1, this.list2]) l.length = 0;
    this.toVehicles.clear();
    this.toUnits.clear();
    return this;
  }
}

/** Members' previous stays (-1 none) and, where there is one, its vehicle, unit and to. */
interface Gathered {
  before: Int32Array;
  vehicle: Int32Array;
  unit: Int32Array;
  to: Float64Array;
}

const scratches = new WeakMap<TraceGraph, Scratch>();
function scratchOf(graph: TraceGraph): Scratch {
  let s = scratches.get(graph);
  if (!s) scratches.set(graph, (s = new Scratch()));
  return s.ready(graph.unitCount + graph.vehicleCount, graph.animalCount, graph.stayCapacity);
}

/*
 * The loops read the graph's records directly (ints I, floats F; `I[INTS * s + I_UNIT]` is
 * graph.stayUnit(s)), and an open stay's end (`to !== to`: NaN) inline, not through accessor calls
 * V8 may or may not inline (docs/decisions/trace.md, "The walk made faster").
 */
class Walk {
  private readonly U: number;
  private readonly fwd: boolean;
  private readonly I: Int32Array;
  private readonly F: Float64Array;
  private readonly qFrom: number;
  private readonly qTo: number;
  private readonly now: number;
  /** The hop limit, Infinity for none. */
  private readonly maxHops: number;
  private readonly rows: Rows;
  // Places: their runs [runFirst, runFirst + runCount), -1 before loading; their pending bounds.
  private readonly runFirst: Int32Array;
  private readonly runCount: Int32Array;
  private readonly pending: Float64Array;
  private readonly pendingStamp: Int32Array;
  // Runs (trace_wrun).
  private readonly rFrom: FloatList;
  private readonly rTo: FloatList;
  private readonly rX: FloatList;
  private readonly rPrev: FloatList;
  private readonly rSrc: IntList;
  private readonly rPlace: IntList;
  /** The run's members: stays (unit) or rides (vehicle), [rMemberFirst, rMemberEnd). */
  private readonly rMemberFirst: IntList;
  private readonly rMemberEnd: IntList;
  private readonly rLabelFirst: IntList;
  private readonly rLabelLast: IntList;
  // This round's best candidate per run.
  private readonly rBestX: FloatList;
  private readonly rBestSrc: IntList;
  private readonly rBestStamp: IntList;
  // Labels (xs, ks) as linked lists.
  private readonly labelX: FloatList;
  private readonly labelK: IntList;
  private readonly labelNext: IntList;
  /** The unit runs' stays, each run a contiguous range. */
  private readonly unitMembers: IntList;
  // Rides (trace_wride), each vehicle run a contiguous range.
  private readonly rideStay: IntList;
  private readonly rideF: FloatList;
  private readonly rideT: FloatList;
  private readonly rideEndUnit: IntList;
  private readonly rideEndX: FloatList;
  private readonly rideHops: IntList;
  // Candidates to vehicles and to units.
  private readonly toVehicles: Candidates;
  private readonly toUnits: Candidates;
  /** Animals whose path past the window a round returned (trace_wdone). */
  private readonly done: Uint8Array;
  private readonly changedUnitRuns: IntList;
  private readonly changedVehicleRuns: IntList;
  private readonly scratch: IntList;
  /** A vehicle's riders while it loads. */
  private readonly scratch2: IntList;
  /** The presences of the run whose contacts are being named. */
  private readonly presences: RunPresences;

  constructor(
    private readonly graph: TraceGraph,
    private readonly q: WalkQuestion,
    private readonly scratch0: Scratch,
  ) {
    this.U = graph.unitCount;
    this.fwd = q.forward;
    this.I = graph.stayInts;
    this.F = graph.stayFloats;
    this.qFrom = q.from;
    this.qTo = q.to;
    this.now = q.now;
    this.maxHops = q.maxHops ?? Infinity;
    this.runFirst = scratch0.runFirst;
    this.runCount = scratch0.runCount;
    this.pending = scratch0.pending;
    this.pendingStamp = scratch0.pendingStamp;
    this.done = scratch0.done;
    this.rows = scratch0.rows;
    this.rFrom = scratch0.rFrom;
    this.rTo = scratch0.rTo;
    this.rX = scratch0.rX;
    this.rPrev = scratch0.rPrev;
    this.rSrc = scratch0.rSrc;
    this.rPlace = scratch0.rPlace;
    this.rMemberFirst = scratch0.rMemberFirst;
    this.rMemberEnd = scratch0.rMemberEnd;
    this.rLabelFirst = scratch0.rLabelFirst;
    this.rLabelLast = scratch0.rLabelLast;
    this.rBestX = scratch0.rBestX;
    this.rBestSrc = scratch0.rBestSrc;
    this.rBestStamp = scratch0.rBestStamp;
    this.labelX = scratch0.labelX;
    this.labelK = scratch0.labelK;
    this.labelNext = scratch0.labelNext;
    this.unitMembers = scratch0.unitMembers;
    this.rideStay = scratch0.rideStay;
    this.rideF = scratch0.rideF;
    this.rideT = scratch0.rideT;
    this.rideEndUnit = scratch0.rideEndUnit;
    this.rideEndX = scratch0.rideEndX;
    this.rideHops = scratch0.rideHops;
    this.toVehicles = scratch0.toVehicles;
    this.toUnits = scratch0.toUnits;
    this.changedUnitRuns = scratch0.changedUnitRuns;
    this.changedVehicleRuns = scratch0.changedVehicleRuns;
    this.scratch = scratch0.list1;
    this.scratch2 = scratch0.list2;
    this.presences = new RunPresences((a, b) => graph.compareAnimals(a, b));
  }

  run(): WalkResult {
    const { I, F, q } = this;
    const { seeds, dirtySeeds } = this.scratch0;
    let k = 0;
    // Seeds (each once, marked by stay for the rows): 0 moves, from the window's start (backward: to its end), if they reach into the window.
    for (let i = 0; i < q.seeds.length; i++) {
      const s = q.seeds[i]!;
      if (seeds[s] === 1) continue;
      seeds[s] = 1;
      dirtySeeds.push(s);
      const to = F[FLOATS * s + F_TO]!;
      if (to < this.qFrom) continue;
      const x = this.fwd ? Math.max(this.qFrom, F[FLOATS * s + F_FROM]!) : Math.min(this.qTo, to !== to ? this.now : to);
      this.toUnits.push(I[INTS * s + I_UNIT]!, x, I[INTS * s + I_ANIMAL]!);
    }
    this.apply(false, 0);
    for (;;) {
      if (k >= this.maxHops) break;
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

  /** Loads the places the candidates name, then improves the label of each run a candidate falls in. */
  private apply(vehicle: boolean, k: number): void {
    const c = vehicle ? this.toVehicles : this.toUnits;
    const changed = vehicle ? this.changedVehicleRuns : this.changedUnitRuns;
    changed.clear();
    const n = c.length;
    const last = k >= this.maxHops;
    const fwd = this.fwd;
    const stamp = ++this.scratch0.stamp;
    const { runFirst, pending, pendingStamp } = this;
    const places = c.place.data;
    const xs = c.x.data;
    const fresh = this.scratch;
    fresh.clear();
    for (let i = 0; i < n; i++) {
      const p = places[i]!;
      if (runFirst[p]! >= 0) continue;
      const x = xs[i]!;
      if (pendingStamp[p] !== stamp) {
        pendingStamp[p] = stamp;
        pending[p] = x;
        fresh.push(p);
      } else if (fwd ? x < pending[p]! : x > pending[p]!) pending[p] = x;
    }
    for (let i = 0; i < fresh.length; i++) {
      const p = fresh.data[i]!;
      const lo = last && fwd ? pending[p]! : this.qFrom;
      const hi = last && !fwd ? pending[p]! : this.qTo;
      if (vehicle) this.loadVehicle(p, lo, hi);
      else this.loadUnit(p, lo, hi);
    }
    // The best candidate per run: the earliest (backward: latest), ties to the smallest source uuid.
    const touched = this.scratch;
    touched.clear();
    const srcs = c.src.data;
    const bestStamp = this.rBestStamp.data;
    const bestX = this.rBestX.data;
    const bestSrc = this.rBestSrc.data;
    for (let i = 0; i < n; i++) {
      const x = xs[i]!;
      const r = this.runAt(places[i]!, x);
      if (r < 0) continue;
      const src = srcs[i]!;
      if (bestStamp[r] !== stamp) {
        bestStamp[r] = stamp;
        bestX[r] = x;
        bestSrc[r] = src;
        touched.push(r);
        continue;
      }
      const bx = bestX[r]!;
      if ((fwd ? x < bx : x > bx) || (x === bx && this.graph.compareAnimals(src, bestSrc[r]!) < 0)) {
        bestX[r] = x;
        bestSrc[r] = src;
      }
    }
    const rX = this.rX.data;
    for (let i = 0; i < touched.length; i++) {
      const r = touched.data[i]!;
      const x = bestX[r]!;
      const old = rX[r]!;
      // (old !== old: no label yet, NaN.)
      if (!(old !== old || (fwd ? x < old : x > old))) continue;
      this.rPrev.data[r] = old;
      rX[r] = x;
      this.rSrc.data[r] = bestSrc[r]!;
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
    const first = this.runFirst[p]!;
    const rFrom = this.rFrom.data;
    let lo = first;
    let hi = lo + this.runCount[p]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rFrom[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    const r = lo - 1;
    return r >= first && x <= this.rTo.data[r]! ? r : -1;
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
    const { F, now } = this;
    const m = this.unitMembers;
    const first = m.length;
    this.graph.unitWindow(u, lo, hi, now, m);
    this.runFirst[u] = this.rFrom.length;
    this.scratch0.dirtyPlaces.push(u);
    // A run breaks where a stay begins after every earlier one has ended (the max over all earlier rows, as the SQL's window).
    const members = m.data;
    const n = m.length;
    let start = first;
    let maxT = -Infinity;
    let runTo = -Infinity;
    for (let i = first; i < n; i++) {
      const s = members[i]!;
      const f = F[FLOATS * s + F_FROM]!;
      const to = F[FLOATS * s + F_TO]!;
      const t = to !== to ? now : to;
      if (i > first && f > maxT) {
        this.newRun(u, F[FLOATS * members[start]! + F_FROM]!, runTo, start, i);
        start = i;
        runTo = -Infinity;
      }
      if (t > maxT) maxT = t;
      if (t > runTo) runTo = t;
    }
    if (n > first) this.newRun(u, F[FLOATS * members[start]! + F_FROM]!, runTo, start, n);
    this.runCount[u] = this.rFrom.length - this.runFirst[u]!;
  }

  /**
   * A vehicle's rides, from the egress that closed a stay (by hi) to the animal's next stay (still riding:
   * now), ending at or after lo; its runs over them in (f, t, -id) order. A ride whose next stay began
   * before the egress runs backwards (t < f): the SQL's running max makes it a run of its own when it
   * breaks, and so here.
   */
  private loadVehicle(p: number, lo: number, hi: number): void {
    const { I, F, fwd } = this;
    const riders = this.scratch2;
    riders.clear();
    this.graph.vehicleRiders(p - this.U, riders);
    const first = this.rideStay.length;
    for (let i = 0; i < riders.length; i++) {
      const s = riders.data[i]!;
      const to = F[FLOATS * s + F_TO]!;
      if (!(to <= hi)) continue;
      const n = I[INTS * s + I_NEXT]!;
      const t = n < 0 ? this.now : F[FLOATS * n + F_FROM]!;
      if (!(t >= lo)) continue;
      this.rideStay.push(s);
      this.rideF.push(to);
      this.rideT.push(t);
      this.rideEndUnit.push(fwd ? (n < 0 ? -1 : I[INTS * n + I_UNIT]!) : I[INTS * s + I_UNIT]!);
      this.rideEndX.push(fwd ? (n < 0 ? NaN : F[FLOATS * n + F_FROM]!) : to);
      this.rideHops.push(-1);
    }
    this.sortRides(first, this.rideStay.length);
    this.runFirst[p] = this.rFrom.length;
    this.scratch0.dirtyPlaces.push(p);
    const rideF = this.rideF.data;
    const rideT = this.rideT.data;
    const n = this.rideStay.length;
    let start = first;
    let maxT = -Infinity;
    let runTo = -Infinity;
    for (let i = first; i < n; i++) {
      const f = rideF[i]!;
      const t = rideT[i]!;
      if (i > first && f > maxT) {
        this.newRun(p, rideF[start]!, runTo, start, i);
        start = i;
        runTo = -Infinity;
      }
      if (t > maxT) maxT = t;
      if (t > runTo) runTo = t;
    }
    if (n > first) this.newRun(p, rideF[start]!, runTo, start, n);
    this.runCount[p] = this.rFrom.length - this.runFirst[p]!;
  }

  /** Insertion sort of rides [a, b) by (f, t, -stay id): a vehicle carries a truckload, tens of rides. */
  private sortRides(a: number, b: number): void {
    const F = this.F;
    const rideStay = this.rideStay.data;
    const rideF = this.rideF.data;
    const rideT = this.rideT.data;
    const rideEndUnit = this.rideEndUnit.data;
    const rideEndX = this.rideEndX.data;
    for (let k = a + 1; k < b; k++) {
      const s = rideStay[k]!;
      const f = rideF[k]!;
      const t = rideT[k]!;
      const id = F[FLOATS * s + F_ID]!;
      const eu = rideEndUnit[k]!;
      const ex = rideEndX[k]!;
      let m = k - 1;
      // (Rides [m] after the one moved: a later f, or t, or among equal ones a smaller id.)
      while (m >= a && (rideF[m]! > f || (rideF[m] === f && (rideT[m]! > t || (rideT[m] === t && F[FLOATS * rideStay[m]! + F_ID]! < id))))) {
        rideStay[m + 1] = rideStay[m]!;
        rideF[m + 1] = rideF[m]!;
        rideT[m + 1] = rideT[m]!;
        rideEndUnit[m + 1] = rideEndUnit[m]!;
        rideEndX[m + 1] = rideEndX[m]!;
        m--;
      }
      rideStay[m + 1] = s;
      rideF[m + 1] = f;
      rideT[m + 1] = t;
      rideEndUnit[m + 1] = eu;
      rideEndX[m + 1] = ex;
    }
  }

  /** Forward: the presences newly exposed in round k sent on (to their vehicle, or their next stay), and the paths past the window. */
  private unitMovesForward(k: number): void {
    const { I, F, now, qTo, U } = this;
    const runs = this.changedUnitRuns;
    const members = this.unitMembers.data;
    for (let ri = 0; ri < runs.length; ri++) {
      const r = runs.data[ri]!;
      const x = this.rX.data[r]!;
      const prev = this.rPrev.data[r]!;
      const noPrev = prev !== prev;
      const endAt = this.rMemberEnd.data[r]!;
      for (let i = this.rMemberFirst.data[r]!; i < endAt; i++) {
        const s = members[i]!;
        const to = F[FLOATS * s + F_TO]!;
        const end = to !== to ? now : to;
        if (!(end >= x && (noPrev || end < prev))) continue;
        const animal = I[INTS * s + I_ANIMAL]!;
        const vehicle = I[INTS * s + I_VEHICLE]!;
        if (vehicle >= 0) {
          // (An egress on a stay still open: the SQL's `rides` is null, and nothing follows.)
          if (to !== to) continue;
          if (to <= qTo) {
            this.toVehicles.push(U + vehicle, to, animal);
            continue;
          }
        }
        const next = I[INTS * s + I_NEXT]!;
        if (next >= 0 && vehicle < 0 && F[FLOATS * next + F_FROM]! <= qTo) this.toUnits.push(I[INTS * next + I_UNIT]!, F[FLOATS * next + F_FROM]!, animal);
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
    const F = this.F;
    const members = this.unitMembers.data;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (F[FLOATS * members[mid]! + F_FROM]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Backward: the presences newly exposed in round k sent back (to the vehicle that brought them, or their previous stay), and the paths before the window. */
  private unitMovesBackward(k: number): void {
    const { I, F, qFrom, U } = this;
    const runs = this.changedUnitRuns;
    const members = this.unitMembers.data;
    for (let ri = 0; ri < runs.length; ri++) {
      const r = runs.data[ri]!;
      const x = this.rX.data[r]!;
      const prev = this.rPrev.data[r]!;
      // The members are in from order: the fresh ones (begun after the previous label, by this one) are a range.
      const end = this.rMemberEnd.data[r]!;
      const first = prev !== prev ? this.rMemberFirst.data[r]! : this.firstBegunAfter(this.rMemberFirst.data[r]!, end, prev);
      const last = this.firstBegunAfter(first, end, x);
      if (first >= last) continue;
      const { before: befores, vehicle: vehicles, unit: units, to: tos } = this.gatherPrevious(first, last);
      for (let i = first, j = 0; i < last; i++, j++) {
        const s = members[i]!;
        const from = F[FLOATS * s + F_FROM]!;
        const animal = I[INTS * s + I_ANIMAL]!;
        const before = befores[j]!;
        if (from >= qFrom) {
          if (before < 0) continue;
          const vehicle = vehicles[j]!;
          if (vehicle >= 0) this.toVehicles.push(U + vehicle, from, animal);
          else if (tos[j]! >= qFrom) this.toUnits.push(units[j]!, tos[j]!, animal);
          continue;
        }
        if (before >= 0 && tos[j]! >= qFrom && vehicles[j]! < 0) this.toUnits.push(units[j]!, tos[j]!, animal);
        if (this.clearBefore(before)) {
          this.done[animal] = 1;
          this.scratch0.dirtyAnimals.push(animal);
          this.pathBefore(animal, before, k);
        }
      }
    }
  }

  /**
   * The previous stays of members [first, last) and their vehicle, unit and end, read in a loop of
   * their own: each is a cache miss, and a loop that only loads lets the processor wait for many of
   * them at once (the backward walk's largest part; measured on the 1M herd: the walk −4-6%).
   */
  private gatherPrevious(first: number, last: number): Gathered {
    const { I, F } = this;
    const g = this.scratch0.gathered(last - first);
    const members = this.unitMembers.data;
    const { before: befores, vehicle: vehicles, unit: units, to: tos } = g;
    for (let i = first, j = 0; i < last; i++, j++) {
      const b = I[INTS * members[i]! + I_PREVIOUS]!;
      befores[j] = b;
      if (b < 0) continue;
      vehicles[j] = I[INTS * b + I_VEHICLE]!;
      units[j] = I[INTS * b + I_UNIT]!;
      tos[j] = F[FLOATS * b + F_TO]!;
    }
    return g;
  }

  // The paths past the window, each loop in a method of its own: V8 deoptimizes a caller whose
  // OSR-compiled inner loop exits, over and over (measured: the backward walk ×2 slower inlined).

  /** Forward: whether every stay from `o` on begins after the window. */
  private clearAfter(o: number): boolean {
    const { I, F, qTo } = this;
    for (; o >= 0; o = I[INTS * o + I_NEXT]!) {
      // min(from, coalesce(to, ∞)) > to: an open stay (NaN) compares by its from alone.
      const to = F[FLOATS * o + F_TO]!;
      if (!(F[FLOATS * o + F_FROM]! > qTo && !(to <= qTo))) return false;
    }
    return true;
  }

  /** Backward: whether every stay from `o` back ended before the window. */
  private clearBefore(o: number): boolean {
    const { I, F, qFrom } = this;
    // (coalesce(to, ∞) < from: an open stay's NaN is false.)
    for (; o >= 0; o = I[INTS * o + I_PREVIOUS]!) if (!(F[FLOATS * o + F_TO]! < qFrom)) return false;
    return true;
  }

  /** The rows of the stays from `o` on, one move each after `hops`, within the hop limit. */
  private pathAfter(animal: number, o: number, hops: number): void {
    const { I, F, rows } = this;
    for (; o >= 0; o = I[INTS * o + I_NEXT]!) {
      hops++;
      if (hops > this.maxHops) return;
      const from = F[FLOATS * o + F_FROM]!;
      rows.add(animal, I[INTS * o + I_UNIT]!, I[INTS * o + I_ESTABLISHMENT]!, o, from, hops, animal, -1, from, 0);
    }
  }

  /** The rows of the stays from `o` back, one move each after `hops`, within the hop limit. */
  private pathBefore(animal: number, o: number, hops: number): void {
    const { I, F, rows, now } = this;
    for (; o >= 0; o = I[INTS * o + I_PREVIOUS]!) {
      hops++;
      if (hops > this.maxHops) return;
      const to = F[FLOATS * o + F_TO]!;
      const ex = to !== to ? now : to;
      rows.add(animal, I[INTS * o + I_UNIT]!, I[INTS * o + I_ESTABLISHMENT]!, o, ex, hops, animal, -1, ex, 0);
    }
  }

  /** The rides newly exposed in round k: hops k, and a candidate to the unit their move ends at (forward: unloaded at; backward: loaded at). */
  private rideEnds(k: number): void {
    const runs = this.changedVehicleRuns;
    const { I, fwd } = this;
    const rideHops = this.rideHops.data;
    const rideT = this.rideT.data;
    const rideF = this.rideF.data;
    for (let ri = 0; ri < runs.length; ri++) {
      const r = runs.data[ri]!;
      const x = this.rX.data[r]!;
      const endAt = this.rMemberEnd.data[r]!;
      for (let i = this.rMemberFirst.data[r]!; i < endAt; i++) {
        if (rideHops[i]! >= 0) continue;
        if (!(fwd ? rideT[i]! >= x : rideF[i]! <= x)) continue;
        rideHops[i] = k;
        const endX = this.rideEndX.data[i]!;
        const animal = I[INTS * this.rideStay.data[i]! + I_ANIMAL]!;
        if (fwd ? endX <= this.qTo : endX >= this.qFrom) this.toUnits.push(this.rideEndUnit.data[i]!, endX, animal);
      }
    }
  }

  /** The contact a presence of run r of animal `a`, exposed at `e`, names: one that was there then (trace-via.ts). */
  private viaAt(r: number, a: number, e: number): number {
    const p = this.presences;
    if (p.run !== r) {
      const { F, I, now } = this;
      p.start(r, this.rSrc.data[r]!);
      const endAt = this.rMemberEnd.data[r]!;
      if (this.rPlace.data[r]! < this.U) {
        const members = this.unitMembers.data;
        for (let i = this.rMemberFirst.data[r]!; i < endAt; i++) {
          const s = members[i]!;
          const to = F[FLOATS * s + F_TO]!;
          p.push(F[FLOATS * s + F_FROM]!, to !== to ? now : to, I[INTS * s + I_ANIMAL]!);
        }
      } else {
        for (let i = this.rMemberFirst.data[r]!; i < endAt; i++) p.push(this.rideF.data[i]!, this.rideT.data[i]!, I[INTS * this.rideStay.data[i]! + I_ANIMAL]!);
      }
    }
    return p.via(a, e);
  }

  /** Whether row `row` is a better anchor than row `than` (forward: later; backward: earlier by (from, stay id, a ride after a stay)). */
  private betterAnchor(row: number, than: number): boolean {
    const { rows, F } = this;
    const s = rows.stay[row]!;
    const t = rows.stay[than]!;
    const d = F[FLOATS * s + F_FROM]! - F[FLOATS * t + F_FROM]! || F[FLOATS * s + F_ID]! - F[FLOATS * t + F_ID]! || (rows.unit[row]! < 0 ? 1 : 0) - (rows.unit[than]! < 0 ? 1 : 0);
    return this.fwd ? d > 0 : d < 0;
  }

  /** The last row added as its animal's anchor, if it is the best yet and the animal has no path past the window yet. */
  private consider(a: number): void {
    if (this.done[a]) return;
    const row = this.rows.length - 1;
    const anchor = this.scratch0.anchor;
    const at = anchor[a]!;
    if (at < 0) {
      this.scratch0.dirtyAnimals.push(a);
      anchor[a] = row;
    } else if (this.betterAnchor(row, at)) anchor[a] = row;
  }

  /** The rows of every reached presence, then each traced animal's path past the window (from its last reached presence; backward, its first). */
  private finalRows(): void {
    const { I, F, rows, fwd, now } = this;
    // The seeds are marked by stay (run: a set's lookup per reached row costs more than the whole mark).
    const { seeds, anchor } = this.scratch0;
    const members = this.unitMembers.data;
    const labelX = this.labelX.data;
    const labelK = this.labelK.data;
    const labelNext = this.labelNext.data;
    const runs = this.rFrom.length;
    for (let r = 0; r < runs; r++) {
      const x = this.rX.data[r]!;
      if (x !== x) continue;
      const place = this.rPlace.data[r]!;
      const src = this.rSrc.data[r]!;
      const endAt = this.rMemberEnd.data[r]!;
      if (place < this.U) {
        // Backward, a run's labels are ever later and its members in from order: the first label at or after
        // a member's from only moves on (forward they are ever earlier, the members' ends in no order: scanned).
        let l = this.rLabelFirst.data[r]!;
        for (let i = this.rMemberFirst.data[r]!; i < endAt; i++) {
          const s = members[i]!;
          const from = F[FLOATS * s + F_FROM]!;
          // (Backward, the members after the label began after it: none of them is reached.)
          if (!fwd && from > x) break;
          const to = F[FLOATS * s + F_TO]!;
          const end = to !== to ? now : to;
          if (fwd && end < x) continue;
          const ex = fwd ? Math.max(from, x) : Math.min(end, x);
          // The fewest moves: the first round whose label reached the stay.
          let hops = -1;
          if (fwd) {
            for (let m = this.rLabelFirst.data[r]!; m >= 0; m = labelNext[m]!) {
              if (labelX[m]! <= end) {
                hops = labelK[m]!;
                break;
              }
            }
          } else {
            while (l >= 0 && !(labelX[l]! >= from)) l = labelNext[l]!;
            if (l >= 0) hops = labelK[l]!;
          }
          const animal = I[INTS * s + I_ANIMAL]!;
          if (seeds[s] === 1) rows.add(animal, place, I[INTS * s + I_ESTABLISHMENT]!, s, ex, hops, -1, -1, NaN, 1);
          else rows.add(animal, place, I[INTS * s + I_ESTABLISHMENT]!, s, ex, hops, animal === src ? src : this.viaAt(r, animal, ex), place, ex, 0);
          this.consider(animal);
        }
      } else {
        const rideHops = this.rideHops.data;
        for (let i = this.rMemberFirst.data[r]!; i < endAt; i++) {
          const hops = rideHops[i]!;
          if (hops < 0) continue;
          const s = this.rideStay.data[i]!;
          const ex = fwd ? Math.max(this.rideF.data[i]!, x) : Math.min(this.rideT.data[i]!, x);
          const animal = I[INTS * s + I_ANIMAL]!;
          rows.add(animal, -1, -1, s, ex, hops, animal === src ? src : this.viaAt(r, animal, ex), -1, ex, 0);
          this.consider(animal);
        }
      }
    }
    // Past the window: each anchor's later (backward: earlier) stays, one move each; a ride's far end is part of its move.
    const anchored = this.scratch0.dirtyAnimals;
    for (let i = 0; i < anchored.length; i++) {
      const a = anchored.data[i]!;
      const row = anchor[a]!;
      if (row < 0) continue;
      const ride = rows.unit[row]! < 0;
      const base = rows.hops[row]! - (ride ? 1 : 0);
      if (base + 1 > this.maxHops) continue;
      const stay = rows.stay[row]!;
      if (fwd) this.pathAfter(a, I[INTS * stay + I_NEXT]!, base);
      else this.pathBefore(a, ride ? stay : I[INTS * stay + I_PREVIOUS]!, base);
    }
  }
}
