import type { GraphStay } from './trace-graph.types.js';
import { UuidTable } from './uuid-table.js';

/**
 * Every stay of the herd in memory, for the outbreak walk (src/movements/trace-walk.ts;
 * docs/decisions/trace.md, "The walk in memory"). Columns by stay index (typed arrays, uuids
 * interned as ints), and three indexes built lazily on the first read after a change:
 * - by unit: the stays themselves, renumbered at each build so that each unit's closed stays, then
 *   its open ones, each part in `from` order, are a range; with the longest closed stay of the unit
 *   (a window's closed stays are found by one binary search);
 * - by animal: each animal's path in `animal_stay_path`'s order (key = coalesce(to, ∞), from, id);
 * - by vehicle: the stays each vehicle carried away.
 * `replaceAnimals` after a build does not rebuild: the old stays are marked dead, the new ones
 * appended and listed in a small overlay (by unit, by vehicle, and the changed animals' paths),
 * which the reads merge; once the overlay passes an eighth of the stays the next read rebuilds
 * (renumbering, the dead dropped). A stay index is valid until the next change.
 * Times are epoch microseconds in Float64Arrays; an open stay's `to` is NaN.
 */
export class TraceGraph {
  /** The overlay's size (appended plus dead stays) past which the next read rebuilds; default an eighth of the stays, at least 50,000. */
  private readonly mergeAt: (live: number) => number;
  constructor(options: { mergeAt?: number } = {}) {
    const fixed = options.mergeAt;
    this.mergeAt = fixed === undefined ? (live) => Math.max(50_000, live / 8) : () => fixed;
  }
  private n = 0;
  private live = 0;
  private animalOf = new Int32Array(1024);
  private unitOf = new Int32Array(1024);
  private establishmentOf = new Int32Array(1024);
  private vehicleOf = new Int32Array(1024);
  private fromOf = new Float64Array(1024);
  private toOf = new Float64Array(1024);
  private idOf = new Float64Array(1024);
  private dead = new Uint8Array(1024);
  /** Each stay's position in its animal's path array (`path`): the walk steps to the next or previous stay in O(1). */
  private pathPos = new Int32Array(1024);
  private readonly animals = new UuidTable();
  private readonly units = new UuidTable();
  private readonly establishments = new UuidTable();
  private readonly vehicles = new UuidTable();

  // The indexes (valid when `built`), CSR: offsets by key, stay indexes.
  private built = false;
  private unitOffsets = new Int32Array(1);
  private unitOpen = new Int32Array(0);
  private unitSpan = new Float64Array(0);
  private pathOffsets = new Int32Array(1);
  private pathStays = new Int32Array(0);
  private vehicleOffsets = new Int32Array(1);
  private vehicleStays = new Int32Array(0);
  // The overlay since the last build.
  private overlaid = 0;
  private readonly unitExtra = new Map<number, number[]>();
  private readonly vehicleExtra = new Map<number, number[]>();
  private readonly pathOverride = new Map<number, Int32Array>();

  /** Appends stays (the initial load, in chunks). After a build, their animals' paths are overlaid. */
  add(rows: Iterable<GraphStay>): void {
    if (!this.built) {
      for (const row of rows) this.append(row);
      return;
    }
    const added = new Map<number, number[]>();
    for (const row of rows) {
      const s = this.append(row);
      this.overlay(s);
      pushTo(added, this.animalOf[s]!, s);
    }
    for (const [a, list] of added) this.setPath(a, this.sortedPath([...this.currentPath(a), ...list]));
    if (this.overlaid > this.mergeAt(this.live)) this.built = false;
  }

  /** Each named animal's stays become exactly its rows among `rows` (none: it has no stays). */
  replaceAnimals(animalIds: readonly string[], rows: readonly GraphStay[]): void {
    this.ensureBuilt();
    const named = new Set(animalIds);
    const fresh = new Map<number, number[]>();
    for (const id of named) {
      const a = this.animals.intern(id);
      for (const s of this.currentPath(a)) this.kill(s);
      fresh.set(a, []);
    }
    for (const row of rows) {
      if (!named.has(row.animal)) continue;
      const s = this.append(row);
      this.overlay(s);
      fresh.get(this.animalOf[s]!)!.push(s);
    }
    for (const [a, list] of fresh) this.setPath(a, this.sortedPath(list));
    if (this.overlaid > this.mergeAt(this.live)) this.built = false;
  }

  /** One more than the highest stay index (live or dead). */
  get stayCapacity(): number {
    return this.n;
  }

  /** The live stay count. */
  get stays(): number {
    return this.live;
  }

  /** Uuid order of two animals (PostgreSQL's: `order by src`). */
  compareAnimals(a: number, b: number): number {
    return this.animals.compare(a, b);
  }

  /** The bytes of the uuid tables (16 bytes a uuid and its hash slots). */
  get uuidBytes(): number {
    return this.animals.bytes + this.units.bytes + this.establishments.bytes + this.vehicles.bytes;
  }

  /** The bytes the columns and indexes hold (typed arrays; the uuid tables apart). */
  get bytes(): number {
    const arrays = [this.animalOf, this.unitOf, this.establishmentOf, this.vehicleOf, this.fromOf, this.toOf, this.idOf, this.dead, this.pathPos, this.unitOffsets, this.unitOpen, this.unitSpan, this.pathOffsets, this.pathStays, this.vehicleOffsets, this.vehicleStays];
    return arrays.reduce((sum, a) => sum + a.byteLength, 0);
  }

  /** Interned counts (the walk sizes its per-place and per-animal state by them). */
  get animalCount(): number {
    return this.animals.size;
  }
  get unitCount(): number {
    return this.units.size;
  }
  get vehicleCount(): number {
    return this.vehicles.size;
  }

  animalId(i: number): string {
    return this.animals.name(i);
  }
  unitId(i: number): string {
    return this.units.name(i);
  }
  establishmentId(i: number): string {
    return this.establishments.name(i);
  }
  vehicleId(i: number): string {
    return this.vehicles.name(i);
  }
  stayId(s: number): number {
    return this.idOf[s]!;
  }
  establishmentIndex(uuid: string): number | undefined {
    return this.establishments.find(uuid);
  }
  animalIndex(uuid: string): number | undefined {
    return this.animals.find(uuid);
  }
  unitIndex(uuid: string): number | undefined {
    return this.units.find(uuid);
  }

  stayAnimal(s: number): number {
    return this.animalOf[s]!;
  }
  stayUnit(s: number): number {
    return this.unitOf[s]!;
  }
  stayEstablishment(s: number): number {
    return this.establishmentOf[s]!;
  }
  /** The vehicle index the animal rode after the stay, -1 for none. */
  stayVehicle(s: number): number {
    return this.vehicleOf[s]!;
  }
  stayFrom(s: number): number {
    return this.fromOf[s]!;
  }
  /** NaN while open. */
  stayTo(s: number): number {
    return this.toOf[s]!;
  }

  /** The animal's live stays in path order. */
  forEachStayOfAnimal(animal: number, fn: (stay: number) => void): void {
    this.ensureBuilt();
    const path = this.path(animal);
    for (let i = this.pathStart; i < this.pathEnd; i++) fn(path[i]!);
  }

  /**
   * The animal's path: the array, with its range in `pathStart`/`pathEnd` (fields, not a new object per
   * call: the walk asks once per exposed stay). Call `ensureBuilt` first.
   */
  pathStart = 0;
  pathEnd = 0;
  path(animal: number): Int32Array {
    const override = this.pathOverride.size === 0 ? undefined : this.pathOverride.get(animal);
    if (override) {
      this.pathStart = 0;
      this.pathEnd = override.length;
      return override;
    }
    this.pathStart = animal + 1 < this.pathOffsets.length ? this.pathOffsets[animal]! : 0;
    this.pathEnd = animal + 1 < this.pathOffsets.length ? this.pathOffsets[animal + 1]! : 0;
    return this.pathStays;
  }

  /** The stay's position in the array `path` returns for its animal. */
  pathAt(s: number): number {
    return this.pathPos[s]!;
  }

  private setPath(a: number, path: Int32Array): void {
    this.pathOverride.set(a, path);
    for (let i = 0; i < path.length; i++) this.pathPos[path[i]!] = i;
  }

  /**
   * Pushes onto `out` the live stays at unit `u` with from <= hi and coalesce(to, now) >= lo, in the
   * order (from, coalesce(to, now), id): Migration0067's unit load, whose runs are read in that order.
   */
  unitWindow(u: number, lo: number, hi: number, now: number, out: IntList): void {
    const first = out.length;
    if (u + 1 < this.unitOffsets.length) {
      const base = this.unitOffsets[u]!;
      const open = this.unitOpen[u]!;
      const end = this.unitOffsets[u + 1]!;
      // A closed stay ending at lo or later began at lo - (the unit's longest stay) or later.
      let i = lowerBound(this.fromOf, base, open, lo - this.unitSpan[u]!);
      let j = open;
      // Merge the closed and the open part (both in from order; stays built in are their positions).
      const openOk = now >= lo;
      for (;;) {
        const ci = i < open && this.fromOf[i]! <= hi ? i : -1;
        const oj = j < end && this.fromOf[j]! <= hi ? j : -1;
        if (ci < 0 && oj < 0) break;
        if (oj < 0 || (ci >= 0 && this.fromOf[ci]! <= this.fromOf[oj]!)) {
          i++;
          if (!this.dead[ci] && this.toOf[ci]! >= lo) out.push(ci);
        } else {
          j++;
          if (!this.dead[oj] && openOk) out.push(oj);
        }
      }
    }
    const extra = this.unitExtra.get(u);
    if (extra) for (const s of extra) if (!this.dead[s] && this.fromOf[s]! <= hi && endOf(this.toOf[s]!, now) >= lo) out.push(s);
    // Ties in from (and the overlay) put in order: insertion sort, linear on a nearly sorted list.
    const a = out.data;
    for (let k = first + 1; k < out.length; k++) {
      const s = a[k]!;
      let m = k - 1;
      while (m >= first && this.unitOrder(a[m]!, s, now) > 0) {
        a[m + 1] = a[m]!;
        m--;
      }
      a[m + 1] = s;
    }
  }

  /** Pushes onto `out` the live stays vehicle `v` carried away. */
  vehicleRiders(v: number, out: IntList): void {
    if (v + 1 < this.vehicleOffsets.length) {
      for (let i = this.vehicleOffsets[v]!; i < this.vehicleOffsets[v + 1]!; i++) {
        const s = this.vehicleStays[i]!;
        if (!this.dead[s]) out.push(s);
      }
    }
    const extra = this.vehicleExtra.get(v);
    if (extra) for (const s of extra) if (!this.dead[s]) out.push(s);
  }

  /**
   * The stays at the place (or of the animal) overlapping [from, to], an open stay ending at `now`
   * (trace.service.ts's seeds: `s.ts_from <= to and coalesce(s.ts_to, now()) >= from`).
   */
  seedStays(seed: { kind: 'establishment' | 'unit' | 'animal'; id: string }, from: number, to: number, now: number = Date.now() * 1000): number[] {
    this.ensureBuilt();
    const found: number[] = [];
    const overlaps = (s: number) => !this.dead[s] && this.fromOf[s]! <= to && endOf(this.toOf[s]!, now) >= from;
    if (seed.kind === 'unit') {
      const u = this.units.find(seed.id);
      if (u === undefined) return found;
      const out = new IntList();
      this.unitWindow(u, from, to, now, out);
      return Array.from(out.data.subarray(0, out.length));
    }
    if (seed.kind === 'animal') {
      const a = this.animals.find(seed.id);
      if (a !== undefined) this.forEachStayOfAnimal(a, (s) => overlaps(s) && found.push(s));
      return found;
    }
    // An establishment: one pass over the column (once per question; no index kept for it).
    const e = this.establishments.find(seed.id);
    if (e === undefined) return found;
    for (let s = 0; s < this.n; s++) if (this.establishmentOf[s] === e && overlaps(s)) found.push(s);
    return found;
  }

  /**
   * Builds the indexes if a change left them stale (the walk calls it first). The live stays are
   * renumbered in the unit index's order (unit, closed before open, from): a unit's stays are then a
   * range of the columns themselves (no permutation array, and a run's stays lie side by side in
   * memory), and the dead ones are gone.
   */
  ensureBuilt(): void {
    if (this.built) return;
    const oldN = this.n;
    // Stays in from order (radix), then stably counted into units (closed before open): the new numbering.
    const byFrom = radixOrder(this.fromOf, oldN);
    const U = this.units.size;
    const unitKey = (s: number) => 2 * this.unitOf[s]! + (Number.isNaN(this.toOf[s]!) ? 1 : 0);
    const unitCsr = countingSort(byFrom, 2 * U, unitKey, this.dead);
    this.renumber(unitCsr.items);
    const n = this.n;
    this.unitOffsets = new Int32Array(U + 1);
    this.unitOpen = new Int32Array(U);
    for (let u = 0; u < U; u++) {
      this.unitOffsets[u] = unitCsr.offsets[2 * u]!;
      this.unitOpen[u] = unitCsr.offsets[2 * u + 1]!;
    }
    this.unitOffsets[U] = unitCsr.offsets[2 * U]!;
    this.unitSpan = new Float64Array(U);
    for (let s = 0; s < n; s++) {
      const span = this.toOf[s]! - this.fromOf[s]!;
      if (span > this.unitSpan[this.unitOf[s]!]!) this.unitSpan[this.unitOf[s]!] = span;
    }
    // The from order in the new numbering (nearly the path order: counted into animals, then insertion-sorted).
    const renumbered = new Int32Array(oldN).fill(-1);
    for (let i = 0; i < n; i++) renumbered[unitCsr.items[i]!] = i;
    const inFromOrder = new Int32Array(n);
    let w = 0;
    for (let k = 0; k < oldN; k++) {
      const s = renumbered[byFrom[k]!]!;
      if (s >= 0) inFromOrder[w++] = s;
    }
    const paths = countingSort(inFromOrder, this.animals.size, (s) => this.animalOf[s]!, this.dead);
    this.pathOffsets = paths.offsets;
    this.pathStays = paths.items;
    for (let a = 0; a < this.animals.size; a++) sortPath(this.pathStays, this.pathOffsets[a]!, this.pathOffsets[a + 1]!, this);
    for (let i = 0; i < this.pathStays.length; i++) this.pathPos[this.pathStays[i]!] = i;
    const withVehicle = inFromOrder.filter((s) => this.vehicleOf[s]! >= 0);
    const vehicles = countingSort(withVehicle, this.vehicles.size, (s) => this.vehicleOf[s]!, this.dead);
    this.vehicleOffsets = vehicles.offsets;
    this.vehicleStays = vehicles.items;
    this.unitExtra.clear();
    this.vehicleExtra.clear();
    this.pathOverride.clear();
    this.overlaid = 0;
    this.built = true;
  }

  /** The columns reordered so that new stay i is old stay order[i] (the live ones only), at exact size. */
  private renumber(order: Int32Array): void {
    const n = order.length;
    const size = Math.max(1024, n);
    const gather = <T extends Int32Array | Float64Array>(column: T, make: (n: number) => T): T => {
      const c = make(size);
      for (let i = 0; i < n; i++) c[i] = column[order[i]!]!;
      return c;
    };
    this.animalOf = gather(this.animalOf, (c) => new Int32Array(c));
    this.unitOf = gather(this.unitOf, (c) => new Int32Array(c));
    this.establishmentOf = gather(this.establishmentOf, (c) => new Int32Array(c));
    this.vehicleOf = gather(this.vehicleOf, (c) => new Int32Array(c));
    this.fromOf = gather(this.fromOf, (c) => new Float64Array(c));
    this.toOf = gather(this.toOf, (c) => new Float64Array(c));
    this.idOf = gather(this.idOf, (c) => new Float64Array(c));
    this.dead = new Uint8Array(size);
    this.pathPos = new Int32Array(size);
    this.n = n;
    this.live = n;
  }

  /** Path order: (coalesce(to, ∞), from, id). */
  pathOrder(a: number, b: number): number {
    const ka = keyOf(this.toOf[a]!);
    const kb = keyOf(this.toOf[b]!);
    return ka - kb || this.fromOf[a]! - this.fromOf[b]! || this.idOf[a]! - this.idOf[b]! || 0;
  }

  private unitOrder(a: number, b: number, now: number): number {
    return this.fromOf[a]! - this.fromOf[b]! || endOf(this.toOf[a]!, now) - endOf(this.toOf[b]!, now) || this.idOf[a]! - this.idOf[b]! || 0;
  }

  private append(row: GraphStay): number {
    if (this.n === this.animalOf.length) this.grow(Math.max(1024, Math.ceil(this.n * 1.5)));
    const s = this.n++;
    this.animalOf[s] = this.animals.intern(row.animal);
    this.unitOf[s] = this.units.intern(row.unit);
    this.establishmentOf[s] = this.establishments.intern(row.establishment);
    this.vehicleOf[s] = row.vehicle === null ? -1 : this.vehicles.intern(row.vehicle);
    this.fromOf[s] = row.from;
    this.toOf[s] = row.to === null ? NaN : row.to;
    this.idOf[s] = row.id;
    this.dead[s] = 0;
    this.live++;
    return s;
  }

  private kill(s: number): void {
    if (this.dead[s]) return;
    this.dead[s] = 1;
    this.live--;
    this.overlaid++;
  }

  /** Lists a stay appended after the build in the unit's and the vehicle's overlay. */
  private overlay(s: number): void {
    this.overlaid++;
    pushTo(this.unitExtra, this.unitOf[s]!, s);
    if (this.vehicleOf[s]! >= 0) pushTo(this.vehicleExtra, this.vehicleOf[s]!, s);
  }

  private *currentPath(a: number): Generator<number> {
    const path = this.path(a);
    const [start, end] = [this.pathStart, this.pathEnd];
    for (let i = start; i < end; i++) if (!this.dead[path[i]!]) yield path[i]!;
  }

  private sortedPath(list: number[]): Int32Array {
    return Int32Array.from(list).sort((x, y) => this.pathOrder(x, y));
  }

  private grow(capacity: number): void {
    const copy = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.animalOf = copy(this.animalOf, (c) => new Int32Array(c));
    this.unitOf = copy(this.unitOf, (c) => new Int32Array(c));
    this.establishmentOf = copy(this.establishmentOf, (c) => new Int32Array(c));
    this.vehicleOf = copy(this.vehicleOf, (c) => new Int32Array(c));
    this.fromOf = copy(this.fromOf, (c) => new Float64Array(c));
    this.toOf = copy(this.toOf, (c) => new Float64Array(c));
    this.idOf = copy(this.idOf, (c) => new Float64Array(c));
    this.dead = copy(this.dead, (c) => new Uint8Array(c));
    this.pathPos = copy(this.pathPos, (c) => new Int32Array(c));
  }

}

/** A growable Int32Array (the walk's lists; no object per element). */
export class IntList {
  data = new Int32Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const d = new Int32Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = v;
  }
  clear(): void {
    this.length = 0;
  }
}

/** An open stay's end: now. */
export const endOf = (to: number, now: number): number => (Number.isNaN(to) ? now : to);
/** The stays' key, coalesce(ts_to, 'infinity'). */
export const keyOf = (to: number): number => (Number.isNaN(to) ? Infinity : to);

function pushTo(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The first stay in [lo, hi) whose from is >= value (the range is in from order). */
function lowerBound(from: Float64Array, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (from[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Insertion sort of a path segment (counted from the from order: nearly sorted already). */
function sortPath(a: Int32Array, start: number, end: number, graph: TraceGraph): void {
  for (let k = start + 1; k < end; k++) {
    const s = a[k]!;
    let m = k - 1;
    while (m >= start && graph.pathOrder(a[m]!, s) > 0) {
      a[m + 1] = a[m]!;
      m--;
    }
    a[m + 1] = s;
  }
}

/** Stable counting sort of `order` by an int key in [0, keys), leaving out dead stays: CSR offsets and items. */
function countingSort(order: Int32Array, keys: number, keyOfStay: (s: number) => number, dead: Uint8Array): { offsets: Int32Array<ArrayBuffer>; items: Int32Array<ArrayBuffer> } {
  const offsets = new Int32Array(keys + 1);
  let live = 0;
  for (let i = 0; i < order.length; i++) {
    const s = order[i]!;
    if (dead[s]) continue;
    offsets[keyOfStay(s) + 1]!++;
    live++;
  }
  for (let k = 0; k < keys; k++) offsets[k + 1]! += offsets[k]!;
  const next = offsets.slice(0, keys);
  const items = new Int32Array(live);
  for (let i = 0; i < order.length; i++) {
    const s = order[i]!;
    if (!dead[s]) items[next[keyOfStay(s)]!++] = s;
  }
  return { offsets, items };
}

/**
 * The stay indexes 0..n-1 in the order of a Float64 column (LSD radix on the float's bits, 16 bits a
 * pass, the key carried along so each pass reads sequentially): 5M stays in a fraction of a second,
 * where a comparator sort takes seconds.
 */
function radixOrder(values: Float64Array, n: number): Int32Array {
  let hi = new Uint32Array(n);
  let lo = new Uint32Array(n);
  let idx = new Int32Array(n);
  const bits = new Uint32Array(new Float64Array(values.subarray(0, n)).buffer);
  for (let i = 0; i < n; i++) {
    let h = bits[2 * i + 1]!;
    let l = bits[2 * i]!;
    // IEEE order as unsigned: negative numbers flipped whole, positive ones with the sign bit set.
    if (h & 0x80000000) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else h = (h | 0x80000000) >>> 0;
    hi[i] = h;
    lo[i] = l;
    idx[i] = i;
  }
  let hi2 = new Uint32Array(n);
  let lo2 = new Uint32Array(n);
  let idx2 = new Int32Array(n);
  const count = new Int32Array(65537);
  for (let pass = 0; pass < 4; pass++) {
    const word = pass < 2 ? lo : hi;
    const shift = (pass % 2) * 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[((word[i]! >>> shift) & 0xffff) + 1]!++;
    if (count[(((word[0] ?? 0) >>> shift) & 0xffff) + 1] === n) continue;
    for (let d = 0; d < 65536; d++) count[d + 1]! += count[d]!;
    for (let i = 0; i < n; i++) {
      const j = count[(word[i]! >>> shift) & 0xffff]!++;
      hi2[j] = hi[i]!;
      lo2[j] = lo[i]!;
      idx2[j] = idx[i]!;
    }
    [hi, hi2] = [hi2, hi];
    [lo, lo2] = [lo2, lo];
    [idx, idx2] = [idx2, idx];
  }
  return idx;
}
