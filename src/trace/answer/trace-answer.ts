import type { Db } from '../../db/sql.js';
import { boolArrayParam, int4ArrayParam, isoMicros, timestamptzArrayParam, uuidArrayParam } from '../../db/array-param.js';
import type { DataVersion, TraceQuestion, TraceRun, TracedAnimalRow, TracedEstablishmentRow } from '../trace.reader.js';
import { RUN_KEPT, rankedPage } from '../trace.reader.js';
import type { WalkResult } from '../walk/trace-walk.js';
import type { UnitScopeOn } from '../../places/establishment.policy.js';

/**
 * The rows of the walk in memory (`trace_runs`' columns, one row per reached presence), columnar:
 * the animal, unit and establishment as the graph's indexes (`-1`: null; a ride has no unit nor
 * establishment), times in epoch microseconds (`NaN`: null).
 */
export type ReachedRows = Omit<WalkResult, 'stay'> & {
  /** The stay, as `names.stayId` reads it (the walk in memory hands over the ids themselves). */
  stay: Int32Array | Float64Array;
  /**
   * The egress of the row's leg (`names.egressId`; -1 none): the last one that closed a stay before
   * this one in the animal's path (the GTA it arrived under), or for a BACKWARD question the one
   * that closed this stay (the GTA it left under). The holdings' GTAs are read through it, no stay read.
   */
  legEgress: Int32Array;
};

/** The graph's indexes back to the database's ids, and the animals' order as the database orders their uuids. */
export interface ReachedNames {
  animalId(animal: number): string;
  unitId(unit: number): string;
  establishmentId(establishment: number): string;
  stayId(stay: number): number;
  egressId(egress: number): string;
  compareAnimals(a: number, b: number): number;
  /** A number in uuid order where one is cheap to give (ties then go to compareAnimals). */
  animalSortKey?(animal: number): number;
  /** The animal's, unit's, establishment's uuid as its 16 bytes into `out` at `at` (a binary parameter); false when it cannot (then its text is used). */
  writeAnimalUuid?(animal: number, out: Uint8Array, at: number): boolean;
  writeUnitUuid?(unit: number, out: Uint8Array, at: number): boolean;
  writeEstablishmentUuid?(establishment: number, out: Uint8Array, at: number): boolean;
  writeEgressUuid?(egress: number, out: Uint8Array, at: number): boolean;
}

/** A uuid[] parameter of these indexes (-1: NULL), named by the graph's bytes where it has them. */
function uuidsParam(db: Db, list: ArrayLike<number>, name: (i: number) => string, bytes: ((i: number, out: Uint8Array, at: number) => boolean) | undefined) {
  return uuidArrayParam(
    db,
    list.length,
    (k) => (list[k] === -1 ? null : name(list[k]!)),
    bytes && ((k, out, at) => list[k] !== -1 && bytes(list[k]!, out, at)),
  );
}
const animalsParam = (db: Db, animals: ArrayLike<number>, names: ReachedNames) => uuidsParam(db, animals, (a) => names.animalId(a), names.writeAnimalUuid?.bind(names));
const unitsParam = (db: Db, units: ArrayLike<number>, names: ReachedNames) => uuidsParam(db, units, (u) => names.unitId(u), names.writeUnitUuid?.bind(names));
const establishmentsParam = (db: Db, establishments: ArrayLike<number>, names: ReachedNames) =>
  uuidsParam(db, establishments, (e) => names.establishmentId(e), names.writeEstablishmentUuid?.bind(names));
const egressesParam = (db: Db, egresses: ArrayLike<number>, names: ReachedNames) => uuidsParam(db, egresses, (g) => names.egressId(g), names.writeEgressUuid?.bind(names));

/** The time as JSON gives it back (milliseconds, as the database's timestamptz read into a Date). */
const dateOf = (us: number): Date => new Date(Math.floor(us / 1000));

/** One past the largest index in the first `n` entries (0 when all are -1). */
function bound(n: number, ...columns: Int32Array[]): number {
  let max = -1;
  for (const c of columns) for (let i = 0; i < n; i++) if (c[i]! > max) max = c[i]!;
  return max + 1;
}

/**
 * Stores the answer the caller may see of a walk done in memory: the same rows and contact chain as
 * `traceRun`'s storing statement over `trace_runs` (its rules are written there; test/trace-answer.test.ts
 * holds the two equal), computed here in passes over the walk's rows with typed arrays, the database
 * asked only what it alone knows: which of the reached units the caller sees (one statement), which
 * animals it may read where no seen unit says so (their stays' holder columns, one statement,
 * skipped when none), the holdings' names, statuses, visibility and legs' GTA (one statement), then
 * the stored answer (one statement). The arrays go in PostgreSQL's binary array format where the Db
 * takes it (src/db/array-param.ts: text literals of a quarter of a million animals cost about a
 * second of CPU to build and write out), else as array literals.
 */
export async function storeTraceAnswer(db: Db, q: TraceQuestion, reached: ReachedRows, names: ReachedNames, version: DataVersion, id: string, key: string): Promise<TraceRun> {
  const latest = q.direction === 'BACKWARD';
  const n = reached.length;
  const { animal, unit, establishment, exposure, hops, viaAnimal, seed } = reached;
  const animals = bound(n, animal, viaAnimal);
  const units = bound(n, unit, reached.viaUnit);

  // The reached units (with their establishment) and those the caller sees: asked first, the statement runs while the passes below do.
  const establishmentOfUnit = new Int32Array(units).fill(-1);
  for (let i = 0; i < n; i++) if (unit[i] !== -1) establishmentOfUnit[unit[i]!] = establishment[i]!;
  const seenP = seenOf(db, q, establishmentOfUnit, names);
  seenP.catch(() => undefined); // heard at its await below, after the passes

  // Each animal's entry: its fewest moves, a seed first, then the earliest exposure (then the contact's animal, the unit, the stay: the
  // statement's order), among its rows that are a seed or a contact with another animal.
  const ties = tieBreaks(names, reached);
  const entry = new Int32Array(animals).fill(-1);
  const entered: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!seed[i] && (viaAnimal[i] === -1 || viaAnimal[i] === animal[i])) continue;
    const j = entry[animal[i]!]!;
    if (j === -1) entered.push(animal[i]!);
    const better =
      j === -1 || (hops[i] !== hops[j] ? hops[i]! < hops[j]! : seed[i] !== seed[j] ? seed[i] === 1 : exposure[i] !== exposure[j] ? exposure[i]! < exposure[j]! : ties.entryBefore(i, j));
    if (better) entry[animal[i]!] = i;
  }

  const holdings = holdingsOf(reached, latest, ties);
  const seen = await seenP;

  // An animal entered on a vehicle is vouched for when another of its reached rows is at a seen unit.
  const riderSeen = new Uint8Array(animals);
  for (let i = 0; i < n; i++) {
    if (unit[i] === -1 || !seen[unit[i]!]) continue;
    const e = entry[animal[i]!]!;
    if (e !== -1 && unit[e] === -1) riderSeen[animal[i]!] = 1;
  }
  const vouched = (a: number) => {
    const e = entry[a]!;
    return e !== -1 && (unit[e] !== -1 ? seen[unit[e]!] === 1 : riderSeen[a] === 1);
  };

  // The animals no seen unit vouches for, probed by their stays' holder columns in one statement: the traced ones, the contacts, the holdings' animals.
  const probed = new Uint8Array(animals);
  const probe: number[] = [];
  const ask = (a: number) => {
    if (a !== -1 && !probed[a] && !vouched(a)) {
      probed[a] = 1;
      probe.push(a);
    }
  };
  for (const a of entered) {
    ask(a);
    ask(viaAnimal[entry[a]!]!);
  }
  for (const row of holdings.row) if (row !== -1) ask(animal[row]!);
  const readable = await readableOf(db, q, probe, names, animals);
  const visible = (a: number) => vouched(a) || readable[a] === 1;

  // The traced animals the caller sees; the holdings and the contacts' units asked of the database while they are ranked
  // by (moves, contact time with seeds first, animal).
  const visibleEntries = Int32Array.from(entered.filter(visible), (a) => entry[a]!);
  const traced = new Uint8Array(animals);
  for (const e of visibleEntries) traced[animal[e]!] = 1;
  const placesP = placesOf(db, q, holdings, reached, names, { seen, establishmentOfUnit, visible, traced, latest });
  const viaUnitsP = viaUnitsShown(db, q, visibleEntries, reached, seen, establishmentOfUnit, names);
  placesP.catch(() => undefined);
  viaUnitsP.catch(() => undefined);
  const shown = rank(visibleEntries, reached, names);
  const places = await placesP;
  const answer = answerRows(shown, reached, visible, await viaUnitsP);
  /** The rows from `lo` to `hi` (ranks lo + 1 .. hi) as the statement's array parameters, for the Db that runs it. */
  const params = (on: Db, lo: number, hi: number) => {
    const part = answer.slice(lo, hi);
    return {
      animal: animalsParam(on, part.animal, names),
      hops: int4ArrayParam(on, part.hops),
      seed: boolArrayParam(on, part.seed),
      viaAnimal: animalsParam(on, part.viaAnimal, names),
      viaUnit: unitsParam(on, part.viaUnit, names),
      viaTime: timestamptzArrayParam(on, part.viaTime),
      groupFrom: int4ArrayParam(on, part.groupFrom),
      groupTo: int4ArrayParam(on, part.groupTo),
    };
  };
  // The first page is read from here; the answer is written once asked (`pending.store`, after the first page is read):
  // `trace_run` and `trace_answer` in one statement, so that a later request finds the whole answer or none.
  let stored: Promise<void> | undefined;
  const store = (on: Db = db) => (stored ??= on
    .rows({
      sql: `with expired as materialized (select trace_answers_expire(interval '${RUN_KEPT}') as answers),
        answer as (insert into trace_answer (run_id, ord, animal_id, int_hops, bl_seed, via_animal_id, via_control_unit_id, ts_via, int_group_from, int_group_to)
                    select ?, x.ord::int, x.animal_id, x.hops, x.seed, x.via_animal_id, x.via_control_unit_id, x.ts_via, x.group_from, x.group_to
                      from unnest(?::uuid[], ?::int[], ?::boolean[], ?::uuid[], ?::uuid[], ?::timestamptz[], ?::int[], ?::int[]) with ordinality
                           as x(animal_id, hops, seed, via_animal_id, via_control_unit_id, ts_via, group_from, group_to, ord))
        insert into trace_run (id, int_total, establishments, str_key, int_event_head, int_event_recent)
          select ?, ?, ?::jsonb, ?, ?::bigint, ?::int from expired`,
      params: ((all) => [id, all.animal, all.hops, all.seed, all.viaAnimal, all.viaUnit, all.viaTime, all.groupFrom, all.groupTo, id, shown.length, JSON.stringify(places.json), key, version.head, version.recent])(
        params(on, 0, shown.length),
      ),
    })
    .then(() => undefined));
  const page = (pageDb: Db, limit: number, offset: number) => {
    if (offset >= shown.length) return Promise.resolve([]);
    const [lo, hi] = answer.groupsOf(offset, Math.min(offset + limit, shown.length));
    const part = params(pageDb, lo, hi);
    return pageDb.rows<TracedAnimalRow>(
      rankedPage(
        {
          from: `unnest(?::uuid[], ?::int[], ?::boolean[], ?::uuid[], ?::uuid[], ?::timestamptz[], ?::int[]) as x(animal_id, int_hops, bl_seed, via_animal_id, via_control_unit_id, ts_via, int_group_from)`,
          where: 'true',
          params: [part.animal, part.hops, part.seed, part.viaAnimal, part.viaUnit, part.viaTime, part.groupFrom],
        },
        limit,
        offset,
      ),
    );
  };
  return { id, total: shown.length, establishments: places.rows, pending: { page, store } };
}

/**
 * The entries in rank order: fewest moves, then the contact's time (seeds first), then the animal's
 * uuid. Moves and time become one dense number per entry, sorted natively with the entry's place
 * packed below it (a comparator over a quarter of a million entries cost about 0.4 s); the uuid
 * then orders each run of equal moves and time (a truck's load, a seed group) by a comparator.
 */
function rank(entries: Int32Array, reached: ReachedRows, names: ReachedNames): Int32Array {
  const m = entries.length;
  const when = new Float64Array(m);
  let maxHops = 0;
  for (let k = 0; k < m; k++) {
    const e = entries[k]!;
    // (A contact always has its time; were one missing, it would rank after every time.)
    when[k] = reached.seed[e] ? -Infinity : Number.isNaN(reached.viaTime[e]!) ? Infinity : reached.viaTime[e]!;
    if (reached.hops[e]! > maxHops) maxHops = reached.hops[e]!;
  }
  // The distinct times in order, each time's rank found by bisection (a Map of a quarter of a million times cost a tenth of a second).
  const sorted = when.slice().sort();
  let distinct = 0;
  for (let i = 0; i < m; i++) if (distinct === 0 || sorted[i] !== sorted[distinct - 1]) sorted[distinct++] = sorted[i]!;
  const timeRank = (t: number) => {
    let lo = 0;
    let hi = distinct - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const sortKey = new Float64Array(m);
  if (names.animalSortKey) for (let k = 0; k < m; k++) sortKey[k] = names.animalSortKey(reached.animal[entries[k]!]!);
  const byAnimal = (x: number, y: number) => sortKey[x]! - sortKey[y]! || names.compareAnimals(reached.animal[entries[x]!]!, reached.animal[entries[y]!]!);
  const order = new Uint32Array(m);
  if ((maxHops + 1) * distinct * m < 2 ** 53) {
    const packed = new Float64Array(m);
    for (let k = 0; k < m; k++) packed[k] = (reached.hops[entries[k]!]! * distinct + timeRank(when[k]!)) * m + k;
    packed.sort();
    for (let k = 0; k < m; k++) order[k] = packed[k]! % m;
    // Each run of equal moves and time, by animal.
    for (let lo = 0; lo < m; ) {
      const group = Math.floor(packed[lo]! / m);
      let hi = lo + 1;
      while (hi < m && Math.floor(packed[hi]! / m) === group) hi++;
      if (hi - lo > 1) order.subarray(lo, hi).sort(byAnimal);
      lo = hi;
    }
  } else {
    for (let k = 0; k < m; k++) order[k] = k;
    order.sort((x, y) => reached.hops[entries[x]!]! - reached.hops[entries[y]!]! || (when[x] === when[y] ? 0 : when[x]! < when[y]! ? -1 : 1) || byAnimal(x, y));
  }
  return Int32Array.from(order, (k) => entries[k]!);
}

/** The statement's last tie-breaks, on the ids' text as the database orders uuids, nulls last. */
function tieBreaks(names: ReachedNames, r: ReachedRows) {
  const nullsLast = (a: number, b: number, order: (a: number, b: number) => number) => (a === b ? 0 : a === -1 ? 1 : b === -1 ? -1 : order(a, b));
  const byText = (of: (i: number) => string) => (a: number, b: number) => {
    const x = of(a);
    const y = of(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const unitOrder = byText((u) => names.unitId(u));
  const unitStay = (i: number, j: number) => nullsLast(r.unit[i]!, r.unit[j]!, unitOrder) || names.stayId(r.stay[i]!) - names.stayId(r.stay[j]!);
  return {
    /** Row i before row j by (contact's animal, unit, stay): an entry's ties. */
    entryBefore: (i: number, j: number) => (nullsLast(r.viaAnimal[i]!, r.viaAnimal[j]!, (a, b) => names.compareAnimals(a, b)) || unitStay(i, j)) < 0,
    /** Row i before row j by (animal, unit, stay): a holding's ties. */
    holdingBefore: (i: number, j: number) => (names.compareAnimals(r.animal[i]!, r.animal[j]!) || unitStay(i, j)) < 0,
  };
}

/** Up to how many reached units are each checked by their establishment's key (past it, by the caller's establishments hashed; tests try both). */
export const seenUnitsLookup = { perRowUpTo: 2000 };

/**
 * Every visibility scope the answer asks of `q.visibleUnit`, as its arguments: a walk in the trace's
 * engine (src/trace/engine/) gets them computed beforehand by the thread that knows the caller.
 */
const SCOPE = {
  seenPerRow: ['su.control_unit_id', { establishment: 'su.establishment_id', perRow: true }],
  seenHashed: ['su.control_unit_id', { establishment: 'su.establishment_id', perRow: false }],
  readable: ['vs.control_unit_id', { holder: 'vs' }],
  viaUnit: ['x.control_unit_id', {}],
  place: ['vu.id', { establishment: 'vu.establishment_id', perRow: true }],
} as const satisfies Record<string, readonly [string, UnitScopeOn]>;
export const ANSWER_SCOPES: readonly (readonly [string, UnitScopeOn])[] = Object.values(SCOPE);
/** The key of a scope's arguments in a table of them. */
export const scopeKey = (column: string, on: UnitScopeOn = {}): string => JSON.stringify([column, on.establishment ?? null, on.holder ?? null, on.prefix ?? null, on.perRow ?? null]);

/** The reached units the caller sees, by unit index: one statement over their ids (`perRow` up to `seenUnitsLookup.perRowUpTo`). */
async function seenOf(db: Db, q: TraceQuestion, establishmentOfUnit: Int32Array, names: ReachedNames): Promise<Uint8Array> {
  const seen = new Uint8Array(establishmentOfUnit.length);
  const units: number[] = [];
  establishmentOfUnit.forEach((e, u) => {
    if (e !== -1) units.push(u);
  });
  if (!units.length) return seen;
  // A few units: each looked up by its establishment's key; many (a backward trace reaches tens of thousands):
  // the caller's establishments hashed once (44,585 lookups took 72-78 ms, the hashed set 17 ms, at 1M for a state's authority).
  const [column, on] = units.length <= seenUnitsLookup.perRowUpTo ? SCOPE.seenPerRow : SCOPE.seenHashed;
  const visible = q.visibleUnit(column, on);
  const rows = await db.rows<{ i: number }>({
    sql: `select su.i::int as i from unnest(?::uuid[], ?::uuid[]) with ordinality as su(control_unit_id, establishment_id, i) where (select ${visible.sql} offset 0)`,
    params: [unitsParam(db, units, names), establishmentsParam(db, units.map((u) => establishmentOfUnit[u]!), names), ...visible.params],
  });
  for (const r of rows) seen[units[r.i - 1]!] = 1;
  return seen;
}

/** Of these animals, those with a stay the caller may read (the stay's holder columns, as the pages read them), by animal index. */
async function readableOf(db: Db, q: TraceQuestion, probe: number[], names: ReachedNames, animals: number): Promise<Uint8Array> {
  const readable = new Uint8Array(animals);
  if (!probe.length) return readable;
  const visible = q.visibleUnit(...SCOPE.readable);
  const rows = await db.rows<{ i: number }>({
    sql: `select x.i::int as i from unnest(?::uuid[]) with ordinality as x(animal_id, i)
           where exists (select 1 from animal_stay vs where vs.animal_id = x.animal_id and ${visible.sql} offset 0)`,
    params: [animalsParam(db, probe, names), ...visible.params],
  });
  for (const r of rows) readable[probe[r.i - 1]!] = 1;
  return readable;
}

/**
 * The contact's units shown: a seen reached unit; a unit the walk did not reach (none: a contact's
 * unit is its label's place) by the policy.
 */
async function viaUnitsShown(db: Db, q: TraceQuestion, shown: Int32Array, reached: ReachedRows, seen: Uint8Array, establishmentOfUnit: Int32Array, names: ReachedNames): Promise<Uint8Array> {
  const out = Uint8Array.from(seen);
  const elsewhere = new Set<number>();
  for (const e of shown) {
    const u = reached.viaUnit[e]!;
    if (u !== -1 && establishmentOfUnit[u] === -1) elsewhere.add(u);
  }
  if (elsewhere.size) {
    const visible = q.visibleUnit(...SCOPE.viaUnit);
    const units = [...elsewhere];
    const rows = await db.rows<{ i: number }>({
      sql: `select x.i::int as i from unnest(?::uuid[]) with ordinality as x(control_unit_id, i) where ${visible.sql}`,
      params: [unitsParam(db, units, names), ...visible.params],
    });
    for (const r of rows) out[units[r.i - 1]!] = 1;
  }
  return out;
}

/** Each reached establishment's extreme exposure, fewest moves and the row that brought it, by establishment index (`row` -1: not reached). */
interface Holdings {
  exposure: Float64Array;
  hops: Int32Array;
  row: Int32Array;
}

/** At its extreme exposure, the row brought there (a seed, or the animal that carried the exposure) first, then fewest moves, then the animal, unit, stay. */
function holdingsOf(reached: ReachedRows, latest: boolean, ties: ReturnType<typeof tieBreaks>): Holdings {
  const { length: n, establishment, exposure, hops, seed, viaAnimal, animal } = reached;
  const size = bound(n, establishment);
  const h: Holdings = { exposure: new Float64Array(size), hops: new Int32Array(size), row: new Int32Array(size).fill(-1) };
  for (let i = 0; i < n; i++) {
    const e = establishment[i]!;
    if (e === -1) continue;
    const j = h.row[e]!;
    if (j === -1) {
      h.exposure[e] = exposure[i]!;
      h.hops[e] = hops[i]!;
      h.row[e] = i;
      continue;
    }
    if (hops[i]! < h.hops[e]!) h.hops[e] = hops[i]!;
    if (latest ? exposure[i]! > h.exposure[e]! : exposure[i]! < h.exposure[e]!) {
      h.exposure[e] = exposure[i]!;
      h.row[e] = i;
    }
  }
  const brought = (i: number) => seed[i] === 1 || viaAnimal[i] === animal[i];
  for (let i = 0; i < n; i++) {
    const e = establishment[i]!;
    if (e === -1 || exposure[i] !== h.exposure[e] || i === h.row[e]) continue;
    const j = h.row[e]!;
    const better = brought(i) !== brought(j) ? brought(i) : hops[i] !== hops[j] ? hops[i]! < hops[j]! : ties.holdingBefore(i, j);
    if (better) h.row[e] = i;
  }
  return h;
}

/** How many distinct traced animals the caller sees stood at each holding (its reached rows): the rows grouped by holding, each animal stamped once. */
function tracedAt(reached: ReachedRows, size: number, traced: Uint8Array): Int32Array {
  const { length: n, establishment, animal } = reached;
  const start = new Int32Array(size + 1);
  for (let i = 0; i < n; i++) if (establishment[i] !== -1) start[establishment[i]! + 1]!++;
  for (let e = 0; e < size; e++) start[e + 1]! += start[e]!;
  const next = start.slice(0, size);
  const grouped = new Int32Array(start[size]!);
  for (let i = 0; i < n; i++) if (establishment[i] !== -1) grouped[next[establishment[i]!]!++] = animal[i]!;
  const stamp = new Int32Array(traced.length).fill(-1);
  const counts = new Int32Array(size);
  for (let e = 0; e < size; e++) {
    for (let k = start[e]!; k < start[e + 1]!; k++) {
      const a = grouped[k]!;
      if (traced[a] && stamp[a] !== e) {
        stamp[a] = e;
        counts[e]!++;
      }
    }
  }
  return counts;
}

/**
 * The contact chain: each reached establishment the caller sees (one of its seen units, else any of
 * its units by the policy), in the database's order (moves, exposure, name, id), with its name,
 * type and socio-environmental status, the leg's GTA where the bringing unit is seen and the
 * animal brought it (forward, the GTA it arrived under: its previous stay's egress; backward, the
 * one it left under: the walk hands over that egress, `legEgress`), looked up by key.
 */
async function placesOf(
  db: Db,
  q: TraceQuestion,
  holdings: Holdings,
  reached: ReachedRows,
  names: ReachedNames,
  on: { seen: Uint8Array; establishmentOfUnit: Int32Array; visible: (a: number) => boolean; traced: Uint8Array; latest: boolean },
): Promise<{ rows: TracedEstablishmentRow[]; json: unknown[] }> {
  const list: number[] = [];
  holdings.row.forEach((row, e) => {
    if (row !== -1) list.push(e);
  });
  if (!list.length) return { rows: [], json: [] };
  const counts = tracedAt(reached, holdings.row.length, on.traced);
  // Whether a holding has a seen unit, a boolean beside it (an array of their ids searched row by row cost 0.5 s at 16,065 holdings once planned generic).
  const seenEstablishment = new Uint8Array(holdings.row.length);
  on.seen.forEach((s, u) => {
    if (s && on.establishmentOfUnit[u] !== -1) seenEstablishment[on.establishmentOfUnit[u]!] = 1;
  });
  const row = (e: number) => holdings.row[e]!;
  const unitSeen = (e: number) => reached.unit[row(e)] !== -1 && on.seen[reached.unit[row(e)]!] === 1;
  const brought = (e: number) => reached.seed[row(e)] === 1 || reached.viaAnimal[row(e)] === reached.animal[row(e)];
  const visible = q.visibleUnit(...SCOPE.place);
  const rows = await db.rows<{ i: number; str_name: string; str_type: string; str_socioenvironmental_status: string; gta_id: string | null; str_gta_code: string | null }>({
    sql: `select x.i::int as i, e.str_name, e.str_type, e.str_socioenvironmental_status, g.id as gta_id, g.str_code as str_gta_code
            from unnest(?::uuid[], ?::int[], ?::timestamptz[], ?::uuid[], ?::boolean[]) with ordinality as x(establishment_id, hops, ts_exposure, egress_id, seen, i)
            join establishment e on e.id = x.establishment_id
            left join lateral (select g.id, g.str_code from animals_egress ae join gta g on g.id = ae.gta_id where ae.id = x.egress_id offset 0) g on true
           where case when x.seen then true
                      else exists (select 1 from control_unit vu where vu.establishment_id = e.id and ${visible.sql} offset 0) end
           order by x.hops, x.ts_exposure${on.latest ? ' desc' : ''}, e.str_name, e.id`,
    params: [
      establishmentsParam(db, list, names),
      int4ArrayParam(db, list.map((e) => holdings.hops[e]!)),
      timestamptzArrayParam(db, list.map((e) => holdings.exposure[e]!)),
      // the leg's egress only where its GTA is shown (brought by an animal at a unit the caller sees)
      egressesParam(db, list.map((e) => (unitSeen(e) && brought(e) ? reached.legEgress[row(e)]! : -1)), names),
      boolArrayParam(db, list.map((e) => seenEstablishment[e]!)),
      ...visible.params,
    ],
  });
  const out: TracedEstablishmentRow[] = [];
  const json: unknown[] = [];
  for (const r of rows) {
    const e = list[r.i - 1]!;
    const a = reached.animal[row(e)]!;
    const place = {
      id: names.establishmentId(e),
      str_name: r.str_name,
      str_type: r.str_type,
      str_socioenvironmental_status: r.str_socioenvironmental_status,
      int_hops: holdings.hops[e]!,
      animal_id: on.visible(a) ? names.animalId(a) : null,
      control_unit_id: unitSeen(e) ? names.unitId(reached.unit[row(e)]!) : null,
      gta_id: r.gta_id,
      str_gta_code: r.str_gta_code,
      int_traced_animals: counts[e]!,
    };
    out.push({ ...place, ts_exposure: dateOf(holdings.exposure[e]!) });
    json.push({ ...place, ts_exposure: isoMicros(holdings.exposure[e]!) });
  }
  return { rows: out, json };
}

/**
 * The stored answer in rank order: each row's animal and shown contact (indexes), and its group of
 * equal moves and contact time (its first and last rank). The columns are written only for the
 * rows asked (`slice`): the first page's groups before the response, the whole answer after it.
 */
function answerRows(ranked: Int32Array, reached: ReachedRows, visible: (a: number) => boolean, viaUnitShown: Uint8Array) {
  const { animal, hops, seed, viaAnimal, viaUnit, viaTime } = reached;
  const m = ranked.length;
  const animalIndex = new Int32Array(m);
  const viaAnimalIndex = new Int32Array(m);
  const groupFrom = new Int32Array(m);
  const groupTo = new Int32Array(m);
  const time = (e: number) => (seed[e] ? NaN : viaTime[e]!);
  let from = 0;
  for (let i = 0; i < m; i++) {
    const e = ranked[i]!;
    if (i > 0) {
      const p = ranked[i - 1]!;
      const t = time(e);
      const tp = time(p);
      if (hops[e] !== hops[p] || !(t === tp || (Number.isNaN(t) && Number.isNaN(tp)))) from = i;
    }
    groupFrom[i] = from + 1;
    animalIndex[i] = animal[e]!;
    const va = viaAnimal[e]!;
    viaAnimalIndex[i] = va !== -1 && visible(va) ? va : -1;
  }
  for (let i = m - 1, to = m; i >= 0; i--) {
    groupTo[i] = to;
    if (i > 0 && groupFrom[i] !== groupFrom[i - 1]) to = i;
  }
  return {
    /** The rows from `lo` to `hi` (ranks lo + 1 .. hi), columnar: indexes (-1: NULL), times in epoch microseconds (NaN: NULL). */
    slice: (lo: number, hi: number) => {
      const n = hi - lo;
      const hopsOf = new Int32Array(n);
      const seedOf = new Uint8Array(n);
      const viaUnitOf = new Int32Array(n);
      const viaTimeOf = new Float64Array(n);
      for (let k = 0; k < n; k++) {
        const e = ranked[lo + k]!;
        hopsOf[k] = hops[e]!;
        seedOf[k] = seed[e] ? 1 : 0;
        const vu = viaUnit[e]!;
        viaUnitOf[k] = vu !== -1 && viaUnitShown[vu] ? vu : -1;
        viaTimeOf[k] = time(e);
      }
      return {
        animal: animalIndex.subarray(lo, hi),
        hops: hopsOf,
        seed: seedOf,
        viaAnimal: viaAnimalIndex.subarray(lo, hi),
        viaUnit: viaUnitOf,
        viaTime: viaTimeOf,
        groupFrom: groupFrom.subarray(lo, hi),
        groupTo: groupTo.subarray(lo, hi),
      };
    },
    /** The rows of the groups the ranks from `from` + 1 to `to` fall in: [first row, end). */
    groupsOf: (from: number, to: number): [number, number] => [groupFrom[from]! - 1, groupTo[to - 1]!],
  };
}
