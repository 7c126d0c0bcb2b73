import type { Db } from '../db/sql.js';
import { stayKey } from '../animals/stays.js';
import type { DataVersion, TraceQuestion, TraceRun, TracedEstablishmentRow } from './trace.reader.js';
import { RUN_KEPT } from './trace.reader.js';

/**
 * The rows of the walk in memory (`trace_runs`' columns, one row per reached presence), columnar:
 * the animal, unit, establishment and stay as the graph's indexes (`-1`: null; a ride has no unit
 * nor establishment), times in epoch microseconds (`NaN`: null).
 */
export interface ReachedRows {
  length: number;
  animal: Int32Array;
  unit: Int32Array;
  establishment: Int32Array;
  /** The stay, as `names.stayId` reads it (the walk in memory hands over the ids themselves). */
  stay: Int32Array | Float64Array;
  exposure: Float64Array;
  hops: Int32Array;
  viaAnimal: Int32Array;
  viaUnit: Int32Array;
  viaTime: Float64Array;
  seed: Uint8Array;
}

/** The graph's indexes back to the database's ids. */
export interface ReachedNames {
  animalId(animal: number): string;
  unitId(unit: number): string;
  establishmentId(establishment: number): string;
  stayId(stay: number): number;
}

/** An instant in epoch microseconds as ISO text with its microseconds (timestamptz's resolution). */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const rest = us - ms * 1000;
  const iso = new Date(ms).toISOString();
  return rest ? `${iso.slice(0, -1)}${String(Math.round(rest)).padStart(3, '0')}Z` : iso;
}

/** The time as JSON gives it back (milliseconds, as the database's timestamptz read into a Date). */
const dateOf = (us: number): Date => new Date(Math.floor(us / 1000));

/**
 * Stores the answer the caller may see of a walk done in memory: the same rows and contact chain as
 * `traceRun`'s storing statement over `trace_runs` (the rules are written there), computed here in
 * one pass over the walk's rows, with the database asked only what it alone knows: which of the
 * reached units the caller sees (one statement), which animals it may read where no seen unit says
 * so (their stays' holder columns, one statement, skipped when none), the establishments' names,
 * statuses and visibility with the GTA of each shown holding's leg (one statement), then the stored
 * answer (one statement). `latest`: backward (the last exposure of each holding, not the first).
 */
export async function storeTraceAnswer(db: Db, q: TraceQuestion, reached: ReachedRows, names: ReachedNames, version: DataVersion, id: string, key: string): Promise<TraceRun> {
  const latest = q.direction === 'BACKWARD';
  const n = reached.length;
  const { animal, unit, establishment, exposure, hops, viaAnimal, viaTime, seed } = reached;

  // Each animal's entry: its fewest moves, a seed first, then the earliest exposure (then the contact's animal, the unit, the stay: the statement's order),
  // among its rows that are a seed or a contact with another animal.
  const ids = idOrder(names);
  const entryOf = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    if (!seed[i] && (viaAnimal[i] === -1 || viaAnimal[i] === animal[i])) continue;
    const j = entryOf.get(animal[i]!);
    const better =
      j === undefined ||
      (hops[i] !== hops[j] ? hops[i]! < hops[j]! : seed[i] !== seed[j] ? seed[i] === 1 : exposure[i] !== exposure[j] ? exposure[i]! < exposure[j]! : ids.after(j, i, reached));
    if (better) entryOf.set(animal[i]!, i);
  }

  // The reached units the caller sees.
  const establishmentOfUnit = new Map<number, number>();
  for (let i = 0; i < n; i++) if (unit[i] !== -1 && !establishmentOfUnit.has(unit[i]!)) establishmentOfUnit.set(unit[i]!, establishment[i]!);
  const reachedUnits = [...establishmentOfUnit.keys()];
  const seenUnits = await seenOf(db, q, reachedUnits, names, establishmentOfUnit);

  // An animal entered on a vehicle is seen when another of its reached rows is at a seen unit.
  const ridersSeen = new Set<number>();
  for (let i = 0; i < n; i++) if (unit[i] !== -1 && seenUnits.has(unit[i]!)) { const e = entryOf.get(animal[i]!); if (e !== undefined && unit[e] === -1) ridersSeen.add(animal[i]!); }
  const seenAtUnit = (a: number, e: number) => (unit[e] !== -1 ? seenUnits.has(unit[e]!) : ridersSeen.has(a));

  // Each holding's first (backward: last) exposure, fewest moves, and the row that brought it.
  const holdings = holdingsOf(reached, latest, names);

  // The animals no seen unit vouches for: their stays are probed (their holder columns), in one statement.
  const probe = new Set<number>();
  for (const [a, e] of entryOf) if (!seenAtUnit(a, e)) probe.add(a);
  const vouched = (a: number) => { const e = entryOf.get(a); return e !== undefined && seenAtUnit(a, e); };
  for (const e of entryOf.values()) if (viaAnimal[e] !== -1 && !vouched(viaAnimal[e]!)) probe.add(viaAnimal[e]!);
  for (const h of holdings.values()) if (!vouched(animal[h.row]!)) probe.add(animal[h.row]!);
  const readable = await readableOf(db, q, [...probe], names);
  const visible = (a: number) => vouched(a) || readable.has(a);
  // The traced animals (each has an entry) the caller sees.
  const traced = (a: number) => entryOf.has(a) && visible(a);

  // The traced animals the caller sees, ranked by (moves, contact time with seeds first, animal).
  const shown: number[] = [];
  for (const [a, e] of entryOf) if (visible(a)) shown.push(e);
  const viaTimeOf = (e: number) => (seed[e] ? -Infinity : viaTime[e]!);
  const animalIds = shown.map((e) => names.animalId(animal[e]!));
  const order = shown.map((_, i) => i).sort((x, y) => hops[shown[x]!]! - hops[shown[y]!]! || viaTimeOf(shown[x]!) - viaTimeOf(shown[y]!) || (animalIds[x]! < animalIds[y]! ? -1 : 1));
  const viaUnitShown = await viaUnitsShown(db, q, shown, reached, seenUnits, establishmentOfUnit, names);

  const places = await placesOf(db, q, holdings, reached, names, {
    seenUnits,
    establishmentOfUnit,
    visibleAnimal: visible,
    tracedVisible: countVisible(reached, holdings, traced),
    latest,
  });

  const rows = answerRows(order.map((i) => shown[i]!), reached, names, visible, viaUnitShown);
  const [run] = await db.rows<{ int_total: number }>({
    sql: `with expired as materialized (select trace_answers_expire(interval '${RUN_KEPT}') as answers),
      answer as (insert into trace_answer (run_id, ord, animal_id, int_hops, bl_seed, via_animal_id, via_control_unit_id, ts_via, int_group_from, int_group_to)
                  select ?, x.ord, x.animal_id, x.hops, x.seed, x.via_animal_id, x.via_control_unit_id, x.ts_via, x.group_from, x.group_to
                    from unnest(?::int[], ?::uuid[], ?::int[], ?::boolean[], ?::uuid[], ?::uuid[], ?::timestamptz[], ?::int[], ?::int[])
                         as x(ord, animal_id, hops, seed, via_animal_id, via_control_unit_id, ts_via, group_from, group_to))
      insert into trace_run (id, int_total, establishments, str_key, int_event_head, int_event_recent)
        select ?, ?, ?::jsonb, ?, ?::bigint, ?::int from expired
      returning int_total`,
    params: [id, rows.ord, rows.animal, rows.hops, rows.seed, rows.viaAnimal, rows.viaUnit, rows.viaTime, rows.groupFrom, rows.groupTo, id, rows.ord.length, JSON.stringify(places.json), key, version.head, version.recent],
  });
  return { id, total: run!.int_total, establishments: places.rows };
}

/** The reached units the caller sees: one statement over their ids, each checked by its establishment's key (`perRow`). */
async function seenOf(db: Db, q: TraceQuestion, units: number[], names: ReachedNames, establishmentOfUnit: Map<number, number>): Promise<Set<number>> {
  if (!units.length) return new Set();
  const visible = q.visibleUnit('su.control_unit_id', { establishment: 'su.establishment_id', perRow: true });
  const ids = units.map((u) => names.unitId(u));
  const rows = await db.rows<{ i: number }>({
    sql: `select su.i::int as i from unnest(?::uuid[], ?::uuid[]) with ordinality as su(control_unit_id, establishment_id, i) where (select ${visible.sql} offset 0)`,
    params: [ids, units.map((u) => names.establishmentId(establishmentOfUnit.get(u)!)), ...visible.params],
  });
  return new Set(rows.map((r) => units[r.i - 1]!));
}

/** Of these animals, those with a stay the caller may read (the stay's holder columns, as the pages read them). */
async function readableOf(db: Db, q: TraceQuestion, animals: number[], names: ReachedNames): Promise<Set<number>> {
  if (!animals.length) return new Set();
  const visible = q.visibleUnit('vs.control_unit_id', { holder: 'vs' });
  const rows = await db.rows<{ i: number }>({
    sql: `select x.i::int as i from unnest(?::uuid[]) with ordinality as x(animal_id, i)
           where exists (select 1 from animal_stay vs where vs.animal_id = x.animal_id and ${visible.sql} offset 0)`,
    params: [animals.map((a) => names.animalId(a)), ...visible.params],
  });
  return new Set(rows.map((r) => animals[r.i - 1]!));
}

/**
 * The contact's unit of each shown animal, where the caller sees it: a seen reached unit; a unit the
 * walk did not reach (none: a contact's unit is its label's place) by the policy.
 */
async function viaUnitsShown(db: Db, q: TraceQuestion, shown: number[], reached: ReachedRows, seenUnits: Set<number>, establishmentOfUnit: Map<number, number>, names: ReachedNames): Promise<Set<number>> {
  const shownUnits = new Set<number>();
  const elsewhere = new Set<number>();
  for (const e of shown) {
    const u = reached.viaUnit[e]!;
    if (u === -1) continue;
    if (seenUnits.has(u)) shownUnits.add(u);
    else if (!establishmentOfUnit.has(u)) elsewhere.add(u);
  }
  if (elsewhere.size) {
    const visible = q.visibleUnit('x.control_unit_id');
    const units = [...elsewhere];
    const rows = await db.rows<{ i: number }>({
      sql: `select x.i::int as i from unnest(?::uuid[]) with ordinality as x(control_unit_id, i) where ${visible.sql}`,
      params: [units.map((u) => names.unitId(u)), ...visible.params],
    });
    for (const r of rows) shownUnits.add(units[r.i - 1]!);
  }
  return shownUnits;
}

interface Holding {
  exposure: number;
  hops: number;
  /** The row that brought it: at its extreme exposure, brought there (a seed, or the animal that carried the exposure) first, then fewest moves, then the animal. */
  row: number;
}

/** The statement's last tie-breaks, on the ids' text as the database orders uuids, nulls last. */
function idOrder(names: ReachedNames) {
  const text = (i: number, of: (i: number) => string) => (i === -1 ? null : of(i));
  const before = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  const unitStay = (i: number, j: number, r: ReachedRows) => before(text(r.unit[i]!, names.unitId), text(r.unit[j]!, names.unitId)) || names.stayId(r.stay[i]!) - names.stayId(r.stay[j]!);
  return {
    /** Whether row i comes before row j by (contact's animal, unit, stay): the entry's ties. */
    after: (j: number, i: number, r: ReachedRows) => (before(text(r.viaAnimal[i]!, names.animalId), text(r.viaAnimal[j]!, names.animalId)) || unitStay(i, j, r)) < 0,
    /** Whether row i comes before row j by (unit, stay): a holding's ties on one animal. */
    unitStayBefore: (i: number, j: number, r: ReachedRows) => unitStay(i, j, r) < 0,
  };
}

/** Each reached establishment's extreme exposure, fewest moves and bringing row. */
function holdingsOf(reached: ReachedRows, latest: boolean, names: ReachedNames): Map<number, Holding> {
  const { length: n, establishment, exposure, hops, seed, viaAnimal, animal } = reached;
  const holdings = new Map<number, Holding>();
  for (let i = 0; i < n; i++) {
    const e = establishment[i]!;
    if (e === -1) continue;
    const h = holdings.get(e);
    if (!h) holdings.set(e, { exposure: exposure[i]!, hops: hops[i]!, row: i });
    else {
      if (hops[i]! < h.hops) h.hops = hops[i]!;
      if (latest ? exposure[i]! > h.exposure : exposure[i]! < h.exposure) {
        h.exposure = exposure[i]!;
        h.row = i;
      }
    }
  }
  // Among the rows at the extreme exposure: brought first, then fewest moves, then the animal.
  const brought = (i: number) => seed[i] === 1 || viaAnimal[i] === animal[i];
  for (let i = 0; i < n; i++) {
    const h = establishment[i] === -1 ? undefined : holdings.get(establishment[i]!);
    if (!h || exposure[i] !== h.exposure || i === h.row) continue;
    const j = h.row;
    const better =
      brought(i) !== brought(j) ? brought(i) : hops[i] !== hops[j] ? hops[i]! < hops[j]! : animal[i] !== animal[j] ? names.animalId(animal[i]!) < names.animalId(animal[j]!) : idOrder(names).unitStayBefore(i, j, reached);
    if (better) h.row = i;
  }
  return holdings;
}

/** How many distinct visible animals stood at each holding (its reached rows). */
function countVisible(reached: ReachedRows, holdings: Map<number, Holding>, visible: (a: number) => boolean): Map<number, number> {
  const seen = new Map<number, Set<number>>();
  for (let i = 0; i < reached.length; i++) {
    const e = reached.establishment[i]!;
    if (e === -1 || !visible(reached.animal[i]!)) continue;
    let s = seen.get(e);
    if (!s) seen.set(e, (s = new Set()));
    s.add(reached.animal[i]!);
  }
  return new Map([...holdings.keys()].map((e) => [e, seen.get(e)?.size ?? 0]));
}

/**
 * The contact chain: each reached establishment the caller sees (one of its seen units, else any of
 * its units by the policy), in the database's order (moves, exposure, name, id), with its name,
 * type and socio-environmental status, the leg's GTA where the bringing unit is seen and the
 * animal brought it (forward, the GTA it arrived under: its previous stay's egress; backward, the
 * one it left under), looked up by key.
 */
async function placesOf(
  db: Db,
  q: TraceQuestion,
  holdings: Map<number, Holding>,
  reached: ReachedRows,
  names: ReachedNames,
  on: { seenUnits: Set<number>; establishmentOfUnit: Map<number, number>; visibleAnimal: (a: number) => boolean; tracedVisible: Map<number, number>; latest: boolean },
): Promise<{ rows: TracedEstablishmentRow[]; json: unknown[] }> {
  if (!holdings.size) return { rows: [], json: [] };
  const list = [...holdings];
  const seenEstablishments = new Set([...on.seenUnits].map((u) => names.establishmentId(on.establishmentOfUnit.get(u)!)));
  const unitSeen = (h: Holding) => on.seenUnits.has(reached.unit[h.row]!);
  const brought = (h: Holding) => reached.seed[h.row] === 1 || reached.viaAnimal[h.row] === reached.animal[h.row];
  const leg = on.latest
    ? 'select ae.gta_id from animals_egress ae where ae.id = s.animals_egress_id'
    : `select ae.gta_id from animal_stay b join animals_egress ae on ae.id = b.animals_egress_id
        where b.animal_id = s.animal_id and (${stayKey('b')}, b.ts_from, b.id) < (${stayKey('s')}, s.ts_from, s.id) and ${stayKey('b')} <= ${stayKey('s')}
        order by ${stayKey('b')} desc, b.ts_from desc, b.id desc limit 1`;
  const visible = q.visibleUnit('vu.id', { establishment: 'vu.establishment_id', perRow: true });
  const rows = await db.rows<{ i: number; str_name: string; str_type: string; str_socioenvironmental_status: string; gta_id: string | null; str_gta_code: string | null }>({
    sql: `select x.i::int as i, e.str_name, e.str_type, e.str_socioenvironmental_status, g.id as gta_id, g.str_code as str_gta_code
            from unnest(?::uuid[], ?::int[], ?::timestamptz[], ?::bigint[], ?::boolean[]) with ordinality as x(establishment_id, hops, ts_exposure, stay_id, leg, i)
            join establishment e on e.id = x.establishment_id
            left join lateral (select g.id, g.str_code from gta g where x.leg and g.id = (select (${leg}) from animal_stay s where s.id = x.stay_id and ${stayKey('s')} >= x.ts_exposure) offset 0) g on true
           where case when e.id = any(?::uuid[]) then true
                      else exists (select 1 from control_unit vu where vu.establishment_id = e.id and ${visible.sql} offset 0) end
           order by x.hops, x.ts_exposure${on.latest ? ' desc' : ''}, e.str_name, e.id`,
    params: [
      list.map(([e]) => names.establishmentId(e)),
      list.map(([, h]) => h.hops),
      list.map(([, h]) => isoMicros(h.exposure)),
      list.map(([, h]) => names.stayId(reached.stay[h.row]!)),
      list.map(([, h]) => unitSeen(h) && brought(h)),
      [...seenEstablishments],
      ...visible.params,
    ],
  });
  const out: TracedEstablishmentRow[] = [];
  const json: unknown[] = [];
  for (const r of rows) {
    const [e, h] = list[r.i - 1]!;
    const a = reached.animal[h.row]!;
    const place = {
      id: names.establishmentId(e),
      str_name: r.str_name,
      str_type: r.str_type,
      str_socioenvironmental_status: r.str_socioenvironmental_status,
      int_hops: h.hops,
      animal_id: on.visibleAnimal(a) ? names.animalId(a) : null,
      control_unit_id: unitSeen(h) ? names.unitId(reached.unit[h.row]!) : null,
      gta_id: r.gta_id,
      str_gta_code: r.str_gta_code,
      int_traced_animals: on.tracedVisible.get(e) ?? 0,
    };
    out.push({ ...place, ts_exposure: dateOf(h.exposure) });
    json.push({ ...place, ts_exposure: isoMicros(h.exposure) });
  }
  return { rows: out, json };
}

/** The stored answer's columns, in rank order, with each group of equal moves and contact time. */
function answerRows(ranked: number[], reached: ReachedRows, names: ReachedNames, visible: (a: number) => boolean, viaUnitShown: Set<number>) {
  const { animal, hops, seed, viaAnimal, viaUnit, viaTime } = reached;
  const m = ranked.length;
  const out = {
    ord: new Array<number>(m),
    animal: new Array<string>(m),
    hops: new Array<number>(m),
    seed: new Array<boolean>(m),
    viaAnimal: new Array<string | null>(m),
    viaUnit: new Array<string | null>(m),
    viaTime: new Array<string | null>(m),
    groupFrom: new Array<number>(m),
    groupTo: new Array<number>(m),
  };
  const time = (e: number) => (seed[e] ? null : viaTime[e]!);
  let from = 0;
  for (let i = 0; i < m; i++) {
    const e = ranked[i]!;
    if (i > 0 && (hops[e] !== hops[ranked[i - 1]!] || time(e) !== time(ranked[i - 1]!))) from = i;
    out.ord[i] = i + 1;
    out.animal[i] = names.animalId(animal[e]!);
    out.hops[i] = hops[e]!;
    out.seed[i] = seed[e] === 1;
    out.viaAnimal[i] = viaAnimal[e] !== -1 && visible(viaAnimal[e]!) ? names.animalId(viaAnimal[e]!) : null;
    out.viaUnit[i] = viaUnit[e] !== -1 && viaUnitShown.has(viaUnit[e]!) ? names.unitId(viaUnit[e]!) : null;
    const t = time(e);
    out.viaTime[i] = t === null || Number.isNaN(t) ? null : isoMicros(t);
    out.groupFrom[i] = from + 1;
  }
  for (let i = m - 1, to = m; i >= 0; i--) {
    out.groupTo[i] = to;
    if (i > 0 && out.groupFrom[i] !== out.groupFrom[i - 1]) to = i;
  }
  return out;
}
