import { FingerprintSums, uuidHashes, type FingerprintPart, type StayHashes } from './trace-graph.fingerprint.js';
import { isStayChunk, type GraphStay, type StayChunk, type StayRows } from './trace-graph.types.js';
import { UuidTable } from './uuid-table.js';

/**
 * Every stay of the herd in memory, for the outbreak walk (src/trace/walk/trace-walk.ts;
 * docs/decisions/trace.md, "The walk in memory"). A stay is two records, side by side in memory
 * (the walk's cost is cache misses: one stay's fields share a line): six ints (animal, unit,
 * vehicle, establishment: uuids interned as ints; the previous and next stay of the animal's path)
 * and three floats (from, to, id). Indexes, built on the first read after a change:
 * - by unit: the stays themselves, renumbered at each build so that each unit's closed stays, then
 *   its open ones, each part in `from` order, are a range; with the longest closed stay of the unit
 *   (a window's closed stays are found by one binary search);
 * - by animal: each path in `animal_stay_path`'s order (key = coalesce(to, ∞), from, id), as the
 *   links and each animal's first stay;
 * - by vehicle: the stays each vehicle carried away.
 * `add` and `replaceAnimals` after a build do not rebuild: old stays are marked dead, new ones
 * appended, their animals' paths relinked, and the new stays listed in a small overlay by unit and
 * by vehicle, which the reads merge; once the overlay passes an eighth of the stays the next read
 * rebuilds (renumbering, the dead dropped). A stay index is valid until the next change.
 * Times are epoch microseconds in Float64Arrays; an open stay's `to` is NaN.
 */
/** A stay's record: ints (animal, unit, vehicle, establishment, previous, next, egress) and floats (from, to, id). */
export const INTS = 7;
export const FLOATS = 3;
/** The fields' places in a record (`ints[INTS * s + I_UNIT]`, `floats[FLOATS * s + F_TO]`), for the walk's direct reads. */
export const I_ANIMAL = 0;
export const I_UNIT = 1;
export const I_VEHICLE = 2;
export const I_ESTABLISHMENT = 3;
export const I_PREVIOUS = 4;
export const I_NEXT = 5;
/** The egress that closed the stay, whatever its state (-1 none): the GTA the animal left under. */
export const I_EGRESS = 6;
export const F_FROM = 0;
export const F_TO = 1;
export const F_ID = 2;
/** The ints a renumbering copies (the path's links, I_PREVIOUS and I_NEXT, are made again). */
const KEPT_FIELDS = [I_ANIMAL, I_UNIT, I_VEHICLE, I_ESTABLISHMENT, I_EGRESS];

export class TraceGraph {
  /** The overlay's size (appended plus dead stays) past which the next read rebuilds; default an eighth of the stays, at least 50,000. */
  private readonly mergeAt: (live: number) => number;
  constructor(options: { mergeAt?: number } = {}) {
    const fixed = options.mergeAt;
    this.mergeAt = fixed === undefined ? (live) => Math.max(50_000, live / 8) : () => fixed;
  }
  private n = 0;
  private live = 0;
  /** INTS ints a stay: animal, unit, vehicle (-1 none), establishment, previous and next stay of its path (-1 none), egress (-1 none). */
  private ints = new Int32Array(INTS * 1024);
  /** FLOATS floats a stay: from, to (NaN open), id. */
  private floats = new Float64Array(FLOATS * 1024);
  private dead = new Uint8Array(1024);
  private readonly animals = new UuidTable();
  private readonly units = new UuidTable();
  private readonly establishments = new UuidTable();
  private readonly vehicles = new UuidTable();
  private readonly egresses = new UuidTable();

  // The indexes (valid when `built`). Units: offsets, where the open part begins, the longest closed stay.
  private built = false;
  private unitOffsets = new Int32Array(1);
  private unitOpen = new Int32Array(0);
  private unitSpan = new Float64Array(0);
  /** Each animal's first stay (-1 none). */
  private pathHead = new Int32Array(0);
  private vehicleOffsets = new Int32Array(1);
  private vehicleStays = new Int32Array(0);
  /** The units each establishment's stays are at (the establishment seeds). */
  private readonly establishmentUnits = new Map<number, number[]>();
  // The overlay since the last build.
  private overlaid = 0;
  private readonly unitExtra = new Map<number, number[]>();
  private readonly vehicleExtra = new Map<number, number[]>();

  /** Appends stays (the initial load, in chunks). After a build, their animals' paths are relinked. */
  add(rows: StayRows): void {
    const each = (fn: (s: number) => void) => {
      if (isStayChunk(rows)) for (let k = 0; k < rows.length; k++) fn(this.appendFrom(rows, k));
      else for (const row of rows) fn(this.append(row));
    };
    if (!this.built) {
      each(() => undefined);
      return;
    }
    const added = new Map<number, number[]>();
    each((s) => {
      this.overlay(s);
      pushTo(added, this.stayAnimal(s), s);
    });
    for (const [a, list] of added) this.link(a, [...this.liveStaysOf(a), ...list]);
    if (this.overlaid > this.mergeAt(this.live)) this.built = false;
  }

  /** Each named animal's stays become exactly its rows among `rows` (none: it has no stays). */
  replaceAnimals(animalIds: readonly string[], rows: readonly GraphStay[]): void {
    this.ensureBuilt();
    const named = new Set(animalIds);
    const fresh = new Map<number, number[]>();
    for (const id of named) {
      const a = this.animals.intern(id);
      for (const s of this.liveStaysOf(a)) this.kill(s);
      fresh.set(a, []);
    }
    for (const row of rows) {
      if (!named.has(row.animal)) continue;
      const s = this.append(row);
      this.overlay(s);
      fresh.get(this.stayAnimal(s))!.push(s);
    }
    for (const [a, list] of fresh) this.link(a, list);
    if (this.overlaid > this.mergeAt(this.live)) this.built = false;
  }

  /** The live stay count. */
  get stays(): number {
    return this.live;
  }

  /** One more than the highest stay index (live or dead). */
  get stayCapacity(): number {
    return this.n;
  }

  /**
   * The live stays' fingerprint in the database's partitions (`parts`: their names and lower
   * bounds, as the database's fingerprint lists them; trace-graph.fingerprint.ts): equal to it when
   * the graph holds exactly the stays the database held under that fingerprint's snapshot.
   */
  fingerprint(parts: readonly Pick<FingerprintPart, 'name' | 'from'>[]): FingerprintPart[] {
    const sums = new FingerprintSums(parts);
    const [animal, unit, establishment, vehicle, egress] = [this.animals, this.units, this.establishments, this.vehicles, this.egresses].map(uuidHashes) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
    const stay: StayHashes = { id: 0, from: 0, to: 0, animal: 0, unit: 0, establishment: 0, vehicle: 0, egress: 0 };
    const I = this.ints;
    const F = this.floats;
    for (let s = 0; s < this.n; s++) {
      if (this.dead[s]) continue;
      const v = I[INTS * s + I_VEHICLE]!;
      const e = I[INTS * s + I_EGRESS]!;
      stay.id = F[FLOATS * s + F_ID]!;
      stay.from = F[FLOATS * s + F_FROM]!;
      stay.to = F[FLOATS * s + F_TO]!;
      stay.animal = animal[I[INTS * s + I_ANIMAL]!]!;
      stay.unit = unit[I[INTS * s + I_UNIT]!]!;
      stay.establishment = establishment[I[INTS * s + I_ESTABLISHMENT]!]!;
      stay.vehicle = v < 0 ? 0 : vehicle[v]!;
      stay.egress = e < 0 ? 0 : egress[e]!;
      sums.add(stay);
    }
    return sums.result();
  }

  /** Uuid order of two animals (PostgreSQL's: `order by src`). */
  /** A number in the animals' uuid order, ties possible (compareAnimals then). */
  animalSortKey(a: number): number {
    return this.animals.sortKey(a);
  }

  compareAnimals(a: number, b: number): number {
    return this.animals.compare(a, b);
  }

  /** The bytes of the uuid tables (16 bytes a uuid and its hash slots). */
  get uuidBytes(): number {
    return this.animals.bytes + this.units.bytes + this.establishments.bytes + this.vehicles.bytes + this.egresses.bytes;
  }

  /** The bytes the records and indexes hold (typed arrays; the uuid tables apart). */
  get bytes(): number {
    const arrays = [this.ints, this.floats, this.dead, this.unitOffsets, this.unitOpen, this.unitSpan, this.pathHead, this.vehicleOffsets, this.vehicleStays];
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
  /** The animal's, unit's, establishment's uuid as its 16 bytes into `out` at `at`; false when its id is not a uuid. */
  writeAnimalUuid(i: number, out: Uint8Array, at: number): boolean {
    return this.animals.writeBytes(i, out, at);
  }
  writeUnitUuid(i: number, out: Uint8Array, at: number): boolean {
    return this.units.writeBytes(i, out, at);
  }
  writeEstablishmentUuid(i: number, out: Uint8Array, at: number): boolean {
    return this.establishments.writeBytes(i, out, at);
  }
  vehicleId(i: number): string {
    return this.vehicles.name(i);
  }
  egressId(i: number): string {
    return this.egresses.name(i);
  }
  writeEgressUuid(i: number, out: Uint8Array, at: number): boolean {
    return this.egresses.writeBytes(i, out, at);
  }
  stayId(s: number): number {
    return this.floats[FLOATS * s + F_ID]!;
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

  /**
   * The records' ints and floats (the fields as the accessors below read them): the walk's hot loops
   * read them directly. Valid until the next change.
   */
  get stayInts(): Int32Array {
    return this.ints;
  }
  get stayFloats(): Float64Array {
    return this.floats;
  }

  stayAnimal(s: number): number {
    return this.ints[INTS * s + I_ANIMAL]!;
  }
  stayUnit(s: number): number {
    return this.ints[INTS * s + I_UNIT]!;
  }
  /** The vehicle index the animal rode after the stay, -1 for none. */
  stayVehicle(s: number): number {
    return this.ints[INTS * s + I_VEHICLE]!;
  }
  stayEstablishment(s: number): number {
    return this.ints[INTS * s + I_ESTABLISHMENT]!;
  }
  /** The stay before s in its animal's path, -1 if none (call `ensureBuilt` first). */
  previousStay(s: number): number {
    return this.ints[INTS * s + I_PREVIOUS]!;
  }
  /** The stay after s in its animal's path, -1 if none (call `ensureBuilt` first). */
  nextStay(s: number): number {
    return this.ints[INTS * s + I_NEXT]!;
  }
  stayFrom(s: number): number {
    return this.floats[FLOATS * s + F_FROM]!;
  }
  /** NaN while open. */
  stayTo(s: number): number {
    return this.floats[FLOATS * s + F_TO]!;
  }

  /** The animal's live stays in path order. */
  forEachStayOfAnimal(animal: number, fn: (stay: number) => void): void {
    this.ensureBuilt();
    for (let s = animal < this.pathHead.length ? this.pathHead[animal]! : -1; s >= 0; s = this.nextStay(s)) fn(s);
  }

  /**
   * Pushes onto `out` the live stays at unit `u` with from <= hi and coalesce(to, now) >= lo, in the
   * order (from, coalesce(to, now), id): Migration0067's unit load, whose runs are read in that order.
   */
  unitWindow(u: number, lo: number, hi: number, now: number, out: IntList): void {
    const first = out.length;
    const f = this.floats;
    if (u + 1 < this.unitOffsets.length) {
      const base = this.unitOffsets[u]!;
      const open = this.unitOpen[u]!;
      const end = this.unitOffsets[u + 1]!;
      // A closed stay ending at lo or later began at lo - (the unit's longest stay) or later.
      let i = lowerBound(f, base, open, lo - this.unitSpan[u]!);
      let j = open;
      // Merge the closed and the open part (both in from order; stays built in are their positions).
      const openOk = now >= lo;
      for (;;) {
        const ci = i < open && f[FLOATS * i]! <= hi ? i : -1;
        const oj = j < end && f[FLOATS * j]! <= hi ? j : -1;
        if (ci < 0 && oj < 0) break;
        if (oj < 0 || (ci >= 0 && f[FLOATS * ci]! <= f[FLOATS * oj]!)) {
          i++;
          if (!this.dead[ci] && f[FLOATS * ci + 1]! >= lo) out.push(ci);
        } else {
          j++;
          if (!this.dead[oj] && openOk) out.push(oj);
        }
      }
    }
    const extra = this.unitExtra.get(u);
    if (extra) for (const s of extra) if (!this.dead[s] && this.stayFrom(s) <= hi && endOf(this.stayTo(s), now) >= lo) out.push(s);
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
    const overlaps = (s: number) => !this.dead[s] && this.stayFrom(s) <= to && endOf(this.stayTo(s), now) >= from;
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
    // An establishment: its units' windows (and the overlay's stays elsewhere that name it).
    const e = this.establishments.find(seed.id);
    if (e === undefined) return found;
    const units = this.establishmentUnits.get(e) ?? [];
    const out = new IntList();
    for (const u of units) this.unitWindow(u, from, to, now, out);
    for (let i = 0; i < out.length; i++) if (this.stayEstablishment(out.data[i]!) === e) found.push(out.data[i]!);
    for (const [u, extra] of this.unitExtra) if (!units.includes(u)) for (const s of extra) if (this.stayEstablishment(s) === e && overlaps(s)) found.push(s);
    return found;
  }

  /**
   * Builds the indexes if a change left them stale (the walk calls it first). The live stays are
   * renumbered in the unit index's order (unit, closed before open, from): a unit's stays are then a
   * range of the records themselves (no permutation array, and a run's stays lie side by side in
   * memory), and the dead ones are gone.
   */
  ensureBuilt(): void {
    if (this.built) return;
    const oldN = this.n;
    // Stays in from order (radix), then stably counted into units (closed before open): the new numbering.
    const froms = new Float64Array(oldN);
    for (let s = 0; s < oldN; s++) froms[s] = this.stayFrom(s);
    const byFrom = radixOrder(froms, oldN);
    const U = this.units.size;
    const unitKey = (s: number) => 2 * this.stayUnit(s) + (Number.isNaN(this.stayTo(s)) ? 1 : 0);
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
    this.establishmentUnits.clear();
    for (let s = 0; s < n; s++) {
      // (Stays are in unit order now: the map is read only where the unit or the establishment changes.)
      const u = this.stayUnit(s);
      const e = this.stayEstablishment(s);
      if (s === 0 || u !== this.stayUnit(s - 1) || e !== this.stayEstablishment(s - 1)) {
        const units = this.establishmentUnits.get(e);
        if (!units) this.establishmentUnits.set(e, [u]);
        else if (!units.includes(u)) units.push(u);
      }
      const span = this.stayTo(s) - this.stayFrom(s);
      if (span > this.unitSpan[this.stayUnit(s)]!) this.unitSpan[this.stayUnit(s)] = span;
    }
    // The from order in the new numbering (nearly the path order: counted into animals, insertion-sorted, linked).
    const renumbered = new Int32Array(oldN).fill(-1);
    for (let i = 0; i < n; i++) renumbered[unitCsr.items[i]!] = i;
    const inFromOrder = new Int32Array(n);
    let w = 0;
    for (let k = 0; k < oldN; k++) {
      const s = renumbered[byFrom[k]!]!;
      if (s >= 0) inFromOrder[w++] = s;
    }
    const paths = countingSort(inFromOrder, this.animals.size, (s) => this.stayAnimal(s), this.dead);
    this.pathHead = new Int32Array(this.animals.size).fill(-1);
    for (let a = 0; a < this.animals.size; a++) {
      const from = paths.offsets[a]!;
      const to = paths.offsets[a + 1]!;
      sortPath(paths.items, from, to, this);
      this.linkRange(a, paths.items, from, to);
    }
    const withVehicle = inFromOrder.filter((s) => this.stayVehicle(s) >= 0);
    const vehicles = countingSort(withVehicle, this.vehicles.size, (s) => this.stayVehicle(s), this.dead);
    this.vehicleOffsets = vehicles.offsets;
    this.vehicleStays = vehicles.items;
    this.unitExtra.clear();
    this.vehicleExtra.clear();
    this.overlaid = 0;
    this.built = true;
  }

  /** Path order: (coalesce(to, ∞), from, id). */
  pathOrder(a: number, b: number): number {
    const ka = keyOf(this.stayTo(a));
    const kb = keyOf(this.stayTo(b));
    return ka - kb || this.stayFrom(a) - this.stayFrom(b) || this.stayId(a) - this.stayId(b) || 0;
  }

  private unitOrder(a: number, b: number, now: number): number {
    return this.stayFrom(a) - this.stayFrom(b) || endOf(this.stayTo(a), now) - endOf(this.stayTo(b), now) || this.stayId(a) - this.stayId(b) || 0;
  }

  private append(row: GraphStay): number {
    if (this.n === this.dead.length) this.grow(Math.max(1024, Math.ceil(this.n * 1.5)));
    const s = this.n++;
    const i = INTS * s;
    this.ints[i + I_ANIMAL] = this.animals.intern(row.animal);
    this.ints[i + I_UNIT] = this.units.intern(row.unit);
    this.ints[i + I_VEHICLE] = row.vehicle === null ? -1 : this.vehicles.intern(row.vehicle);
    this.ints[i + I_ESTABLISHMENT] = this.establishments.intern(row.establishment);
    this.ints[i + I_PREVIOUS] = -1;
    this.ints[i + I_NEXT] = -1;
    this.ints[i + I_EGRESS] = row.egress === null ? -1 : this.egresses.intern(row.egress);
    const f = FLOATS * s;
    this.floats[f + F_FROM] = row.from;
    this.floats[f + F_TO] = row.to === null ? NaN : row.to;
    this.floats[f + F_ID] = row.id;
    this.dead[s] = 0;
    this.live++;
    return s;
  }

  /** Stay `k` of a COPY's chunk appended, its ids interned from their bytes. */
  private appendFrom(c: StayChunk, k: number): number {
    if (this.n === this.dead.length) this.grow(Math.max(1024, Math.ceil(this.n * 1.5)));
    const s = this.n++;
    const i = INTS * s;
    const u = c.uuids;
    const at = 80 * k;
    const nulls = c.nulls;
    this.ints[i + I_ANIMAL] = this.animals.internBytes(u, at);
    this.ints[i + I_UNIT] = this.units.internBytes(u, at + 16);
    this.ints[i + I_ESTABLISHMENT] = this.establishments.internBytes(u, at + 32);
    this.ints[i + I_VEHICLE] = nulls[5 * k + 3] ? -1 : this.vehicles.internBytes(u, at + 48);
    this.ints[i + I_EGRESS] = nulls[5 * k + 4] ? -1 : this.egresses.internBytes(u, at + 64);
    this.ints[i + I_PREVIOUS] = -1;
    this.ints[i + I_NEXT] = -1;
    const f = FLOATS * s;
    this.floats[f + F_FROM] = c.from[k]!;
    this.floats[f + F_TO] = c.to[k]!;
    this.floats[f + F_ID] = c.id[k]!;
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
    pushTo(this.unitExtra, this.stayUnit(s), s);
    if (this.stayVehicle(s) >= 0) pushTo(this.vehicleExtra, this.stayVehicle(s), s);
  }

  private liveStaysOf(a: number): number[] {
    const list: number[] = [];
    for (let s = a < this.pathHead.length ? this.pathHead[a]! : -1; s >= 0; s = this.nextStay(s)) if (!this.dead[s]) list.push(s);
    return list;
  }

  /** Makes `stays` (live, any order) the animal's path. */
  private link(a: number, stays: number[]): void {
    const path = Int32Array.from(stays).sort((x, y) => this.pathOrder(x, y));
    if (a >= this.pathHead.length) {
      const grown = new Int32Array(Math.max(a + 1, Math.ceil(this.pathHead.length * 1.5))).fill(-1);
      grown.set(this.pathHead);
      this.pathHead = grown;
    }
    this.linkRange(a, path, 0, path.length);
  }

  private linkRange(a: number, path: Int32Array, from: number, to: number): void {
    this.pathHead[a] = from < to ? path[from]! : -1;
    for (let k = from; k < to; k++) {
      const s = path[k]!;
      this.ints[INTS * s + I_PREVIOUS] = k > from ? path[k - 1]! : -1;
      this.ints[INTS * s + I_NEXT] = k + 1 < to ? path[k + 1]! : -1;
    }
  }

  private grow(capacity: number): void {
    const ints = new Int32Array(INTS * capacity);
    ints.set(this.ints.subarray(0, INTS * this.n));
    this.ints = ints;
    const floats = new Float64Array(FLOATS * capacity);
    floats.set(this.floats.subarray(0, FLOATS * this.n));
    this.floats = floats;
    const dead = new Uint8Array(capacity);
    dead.set(this.dead.subarray(0, this.n));
    this.dead = dead;
  }

  /** The records reordered so that new stay i is old stay order[i] (the live ones only), with room for the next overlay. */
  private renumber(order: Int32Array): void {
    const n = order.length;
    // Room for the overlay the next build merges (no copy of every record at the first write after a build).
    const size = Math.max(1024, n + Math.ceil(this.mergeAt(n)) + 1);
    const ints = new Int32Array(INTS * size);
    const floats = new Float64Array(FLOATS * size);
    for (let i = 0; i < n; i++) {
      const o = order[i]!;
      // every field but the path's links, which are made again
      for (let j = 0; j < KEPT_FIELDS.length; j++) ints[INTS * i + KEPT_FIELDS[j]!] = this.ints[INTS * o + KEPT_FIELDS[j]!]!;
      for (let k = 0; k < FLOATS; k++) floats[FLOATS * i + k] = this.floats[FLOATS * o + k]!;
    }
    this.ints = ints;
    this.floats = floats;
    this.dead = new Uint8Array(size);
    this.n = n;
    this.live = n;
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

/** The first stay in [lo, hi) whose from is >= value (the range is in from order; `floats` the records). */
function lowerBound(floats: Float64Array, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (floats[FLOATS * mid]! < value) lo = mid + 1;
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
