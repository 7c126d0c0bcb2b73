import type { Db, Query } from '../db/sql.js';
import type { Scope } from '../shared/scoped-query.js';
import type { UnitScopeOn } from '../places/establishment.policy.js';
import type { Readable } from 'node:stream';
import { stayKey } from '../animals/stays.js';
import { csvInParts } from '../db/copy.js';

export type TraceDirection = 'FORWARD' | 'BACKWARD' | 'BOTH';

/** A checked trace question: the seed (SQL on alias "s", the stays at the place), the window, the direction, the hop limit. */
export interface TraceQuestion {
  seed: Scope;
  /** The same seed by kind and id, for the walk in memory. */
  place: { kind: 'establishment' | 'unit' | 'animal'; id: string };
  from: Date;
  to: Date;
  direction: TraceDirection;
  maxHops: number | null;
  /**
   * The units whose stays the caller may see: SQL on a unit id column; `on` as `controlUnitPolicy.unitIn`
   * takes it (the row's column naming that unit's establishment, the alias of a row carrying its
   * unit's holder, a lookup per row).
   */
  visibleUnit: (column: string, on?: UnitScopeOn) => Scope;
}

/** A traced animal: how it was reached (the seed, or a contact with an animal at a unit at a time, named only where the caller sees them) and its fewest moves from the seed. */
export interface TracedAnimalRow {
  animal_id: string;
  int_hops: number;
  bl_seed: boolean;
  via_animal_id: string | null;
  via_control_unit_id: string | null;
  ts_via: Date | null;
  str_status: string;
  last_control_unit_id: string;
  str_tag_code: string | null;
}

/**
 * An establishment of the contact chain: its first exposure (backward: last), its fewest moves
 * from the seed, how it was reached (the animal that brought it, the unit, the GTA of that leg:
 * each null where the caller may not see it) and how many of the traced animals stood there.
 */
export interface TracedEstablishmentRow {
  id: string;
  str_name: string;
  str_type: string;
  str_socioenvironmental_status: string;
  ts_exposure: Date;
  int_hops: number;
  animal_id: string | null;
  control_unit_id: string | null;
  gta_id: string | null;
  str_gta_code: string | null;
  int_traced_animals: number;
}

/** One stay of a traced animal's path, with the GTA it left under. */
export interface TracedStayRow {
  animal_id: string;
  control_unit_id: string;
  str_control_unit_code: string;
  establishment_id: string;
  str_establishment_name: string;
  ts_from: Date;
  ts_to: Date | null;
  animals_ingress_id: string | null;
  animals_egress_id: string | null;
  gta_id: string | null;
  str_gta_code: string | null;
}

// The stays' partition key (`stayKey`) is named where a read implies it, so that partitions by the key
// prune; an animal's path is read in `animal_stay_path`'s order (key, start, id: Migration0067TraceStayKey),
// which is the order of its starts since one animal's stays never nest (src/animals/stays.ts).

/** The reach of the question as SQL: one `trace_runs` walk per direction (src/trace/sql/trace_runs.sql). */
function reachedSql(q: TraceQuestion): { sql: string; params: unknown[] } {
  // The stays' future partition key beside the end's condition (docs/decisions/partitioning.md): implied by it, it prunes closed years.
  const seed = `array(select s.id from animal_stay s where ${q.seed.sql} and s.ts_from <= ? and coalesce(s.ts_to, now()) >= ? and ${stayKey('s')} >= ?)`;
  const walks = q.direction === 'BOTH' ? [true, false] : [q.direction === 'FORWARD'];
  const params: unknown[] = [];
  const parts = walks.map((forward) => {
    params.push(...q.seed.params, q.to, q.from, q.from, q.from, q.to, forward, q.maxHops);
    return `select * from trace_runs(${seed}, ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer)`;
  });
  return { sql: parts.join(' union all '), params };
}

/** A stored answer (`trace_run`): its id, how many traced animals the caller sees, the establishments reached. */
export interface TraceRun {
  id: string;
  total: number;
  establishments: TracedEstablishmentRow[];
  /**
   * A walk in memory whose answer is not yet written (src/trace/answer/trace-answer.ts): its pages are
   * read from the answer it holds; `store` writes `trace_run` and `trace_answer` (once, whoever
   * asks first; the CSV waits for it).
   */
  pending?: { page(db: Db, limit: number, offset: number): Promise<TracedAnimalRow[]>; store(on?: Db): Promise<void> };
}

/** How long a stored answer is kept: the pages of one request read it (a CSV export of a big trace takes seconds). */
export const RUN_KEPT = '10 minutes';

/** How long the same caller's next requests for the same question may reuse a stored answer (while the data version holds). */
const RUN_REUSED = '1 minute';

/**
 * The data version a stored answer was walked at: the event log's head and how many events lie in
 * the last RECENT_EVENTS sequence numbers below it. Every write of stays, egresses, travels and grants
 * appends to the log in its transaction; the count catches a transaction that drew a lower number
 * and committed after the walk (its events then appear below the head).
 */
const RECENT_EVENTS = 10_000;
const EVENT_HEAD = '(select max(ev.seq) from event ev)';
const eventRecent = (head: string) => `(select count(*)::int from event ev where ev.seq > coalesce(${head}, 0) - ${RECENT_EVENTS})`;

/** The data version an answer was walked at: the event log's head and its recent count (RECENT_EVENTS). */
export interface DataVersion {
  head: number | null;
  recent: number;
}

/**
 * Whether the caller sees the seed (`seen`: SQL of one count, 1 when it does), and the answer
 * stored for this question and caller (`key`: the question and the caller's visibility) less than
 * RUN_REUSED ago, if the data version has not moved since: the CSV after a JSON page, and the next
 * pages, read it instead of walking again. One statement: the request's first round trip,
 * which also reads the data version now (a walk in memory stores it: read before the graph's
 * refresh, a write between the two makes the next request walk again, never serves a stale answer).
 */
export async function traceRunReused(db: Db, key: string, seen: Query): Promise<{ seen: boolean; run: TraceRun | null; version: DataVersion; now: number }> {
  const [row] = await db.rows<{ n: number; id: string | null; int_total: number; establishments: TracedEstablishmentRow[]; head: string | null; recent: number; now: number }>({
    sql: `select (${seen.sql}) as n, r.id, r.int_total, r.establishments, v.head, ${eventRecent('v.head')} as recent, (extract(epoch from now()) * 1000000)::float8 as now
            from (select ${EVENT_HEAD} as head) v left join lateral (
              select r.id, r.int_total, r.establishments from trace_run r
               where r.str_key = ? and r.ts_created_at > now() - interval '${RUN_REUSED}'
                 and r.int_event_head is not distinct from v.head and r.int_event_recent = ${eventRecent('r.int_event_head')}
               order by r.ts_created_at desc limit 1) r on true`,
    params: [...seen.params, key],
  });
  const run = row?.id ? { id: row.id, total: row.int_total, establishments: row.establishments.map((e) => ({ ...e, ts_exposure: new Date(e.ts_exposure) })) } : null;
  // `now`: the database's clock (epoch microseconds), where a walk in memory ends an open stay, as the walk in SQL does.
  return { seen: !!row?.n, run, version: { head: row?.head == null ? null : Number(row.head), recent: row?.recent ?? 0 }, now: Number(row!.now) };
}

/**
 * Walks once and stores the answer the caller may see, so that its pages (and its CSV) read the
 * store instead of walking again: one statement, which also drops the answers older than RUN_KEPT
 * (`trace_answers_expire`, Migration0070: through the answers' index whatever the statistics say).
 * - The animals: those with at least one stay at a unit the caller sees, each entered by its
 *   fewest moves (a seed, or a contact with another animal), ranked nearest to the seed first;
 *   the contact's animal and unit only where the caller sees them, its time always.
 * - The establishments (the contact chain): each reached one the caller sees, with its first
 *   exposure (backward: last), its fewest moves, the presence that brought it (preferring the
 *   animal that arrived or was a seed there over one it met there), and its traced animals.
 * An animal entered on a vehicle (an entry without a unit) is seen when another of its reached rows is at
 * a seen unit (one of its stays, as a probe would find): the 1-hop question's 1,323 such animals all
 * arrive at a unit, and a probe each cost about 10 ms of its 130; the set is built only from the
 * vehicle entries, so the backward question's 809,997 reached rows pass one small hash.
 * The visibility checks end in `offset 0`, which keeps each `exists` a lookup per row through its
 * index: the planner, which cannot know how many rows the walk returns, otherwise turned them into
 * a hash join over every stay of the table (2.2 s of a 1-hop trace's 3.2 s at 5 million stays).
 */
export async function traceRun(db: Db, q: TraceQuestion, id: string, key: string): Promise<TraceRun> {
  const reached = reachedSql(q);
  const reachedUnitVisible = q.visibleUnit('su.control_unit_id', { establishment: 'su.establishment_id', perRow: true });
  const stayVisible = q.visibleUnit('vs.control_unit_id', { holder: 'vs' });
  const viaAnimalVisible = q.visibleUnit('va.control_unit_id', { holder: 'va' });
  const viaUnitVisible = q.visibleUnit('e.via_control_unit_id');
  const establishmentVisible = q.visibleUnit('vu.id', { establishment: 'vu.establishment_id', perRow: true });
  const placeAnimalVisible = q.visibleUnit('pa.control_unit_id', { holder: 'pa' });
  const latest = q.direction === 'BACKWARD';
  // The leg that brought the exposure: forward, the GTA the animal arrived under (its previous stay's egress, in path order); backward, the one it left under.
  const leg = latest
    ? 'select ae.gta_id from animals_egress ae where ae.id = s.animals_egress_id'
    : `select ae.gta_id from animal_stay b join animals_egress ae on ae.id = b.animals_egress_id
        where b.animal_id = s.animal_id and (${stayKey('b')}, b.ts_from, b.id) < (${stayKey('s')}, s.ts_from, s.id) and ${stayKey('b')} <= ${stayKey('s')}
        order by ${stayKey('b')} desc, b.ts_from desc, b.id desc limit 1`;
  const [run] = await db.rows<{ int_total: number; establishments: TracedEstablishmentRow[] }>({
    sql: `with expired as materialized (select trace_answers_expire(interval '${RUN_KEPT}') as answers),
      reached as materialized (${reached.sql}),
      reached_units as materialized (select distinct r.control_unit_id, r.establishment_id from reached r where r.control_unit_id is not null),
      seen_units as materialized (select su.control_unit_id, su.establishment_id from reached_units su where (select ${reachedUnitVisible.sql} offset 0)),
      entry as (select distinct on (r.animal_id) r.animal_id, r.control_unit_id, r.int_hops, r.bl_seed, r.via_animal_id, r.via_control_unit_id, r.ts_via
                  from reached r where r.bl_seed or r.via_animal_id <> r.animal_id order by r.animal_id, r.int_hops, r.bl_seed desc, r.ts_exposure, r.via_animal_id, r.control_unit_id, r.stay_id),
      -- the animals entered on a vehicle (no unit) that the walk also reached at a seen unit
      riders_seen as materialized (select r.animal_id from reached r
                                    where r.animal_id in (select v.animal_id from entry v where v.control_unit_id is null) and r.control_unit_id in (select u.control_unit_id from seen_units u)),
      visible as materialized (select e.animal_id, e.int_hops, e.bl_seed, e.via_animal_id, e.via_control_unit_id, e.ts_via from entry e
                                where case when e.control_unit_id in (select u.control_unit_id from seen_units u) then true
                                           when e.control_unit_id is null and e.animal_id in (select x.animal_id from riders_seen x) then true
                                           else exists (select 1 from animal_stay vs where vs.animal_id = e.animal_id and ${stayVisible.sql} offset 0) end),
      shown as (select e.animal_id, e.int_hops, e.bl_seed, e.ts_via,
                       case when e.via_animal_id in (select x.animal_id from visible x) then e.via_animal_id
                            when exists (select 1 from animal_stay va where va.animal_id = e.via_animal_id and ${viaAnimalVisible.sql} offset 0) then e.via_animal_id end as via_animal_id,
                       case when e.via_control_unit_id is null then null
                            when e.via_control_unit_id in (select u.control_unit_id from seen_units u) then e.via_control_unit_id
                            when e.via_control_unit_id not in (select ru.control_unit_id from reached_units ru) and ${viaUnitVisible.sql} then e.via_control_unit_id end as via_control_unit_id
                  from visible e),
      counts as (select r.establishment_id, ${latest ? 'max' : 'min'}(r.ts_exposure) as ts_exposure, min(r.int_hops) as int_hops,
                        count(distinct r.animal_id) filter (where r.animal_id in (select v.animal_id from visible v))::int as int_traced_animals
                  from reached r where r.establishment_id is not null group by r.establishment_id),
      entered as (select f.*, f.control_unit_id in (select u.control_unit_id from seen_units u) as unit_seen
                    from (select distinct on (r.establishment_id) r.establishment_id, r.ts_exposure, r.control_unit_id, r.animal_id, r.stay_id, r.bl_seed or r.via_animal_id = r.animal_id as brought,
                                 c.int_hops, c.int_traced_animals
                            from reached r join counts c on c.establishment_id = r.establishment_id and c.ts_exposure = r.ts_exposure
                           order by r.establishment_id, (r.bl_seed or r.via_animal_id = r.animal_id) desc, r.int_hops, r.animal_id, r.control_unit_id, r.stay_id) f),
      places as (select e.id, e.str_name, e.str_type, e.str_socioenvironmental_status, f.ts_exposure, f.int_hops,
                        case when f.animal_id in (select x.animal_id from visible x) then f.animal_id
                             when exists (select 1 from animal_stay pa where pa.animal_id = f.animal_id and ${placeAnimalVisible.sql} offset 0) then f.animal_id end as animal_id,
                        case when f.unit_seen then f.control_unit_id end as control_unit_id,
                        g.id as gta_id, g.str_code as str_gta_code, f.int_traced_animals
                   from entered f join establishment e on e.id = f.establishment_id
                   -- the leg's GTA only where it is shown (brought by an animal at a unit the caller sees): a one-time filter (offset 0 keeps the subquery apart);
                   -- a reached stay's exposure lies within it, so its key is at or after the exposure (the stay's partition and later ones)
                   left join lateral (select g.id, g.str_code from gta g where f.unit_seen and f.brought and g.id = (select (${leg}) from animal_stay s where s.id = f.stay_id and ${stayKey('s')} >= f.ts_exposure) offset 0) g on true
                  where case when e.id in (select u.establishment_id from seen_units u) then true
                             else exists (select 1 from control_unit vu where vu.establishment_id = e.id and ${establishmentVisible.sql} offset 0) end),
      ranked as (select v.*, row_number() over (order by v.int_hops, v.ts_via nulls first, v.animal_id)::int as ord,
                        -- a group of equal moves and time, from its first row (rank) to its last (the count up to the last peer)
                        (rank() over peers)::int as group_from, (count(*) over peers)::int as group_to
                   from shown v window peers as (order by v.int_hops, v.ts_via nulls first)),
      answer as (insert into trace_answer (run_id, ord, animal_id, int_hops, bl_seed, via_animal_id, via_control_unit_id, ts_via, int_group_from, int_group_to)
                  select ?, v.ord, v.animal_id, v.int_hops, v.bl_seed, v.via_animal_id, v.via_control_unit_id, v.ts_via,
                         v.group_from, v.group_to
                    from ranked v)
      insert into trace_run (id, int_total, establishments, str_key, int_event_head, int_event_recent)
        select ?, (select count(*)::int from visible),
               coalesce((select jsonb_agg(p order by p.int_hops, p.ts_exposure${latest ? ' desc' : ''}, p.str_name, p.id) from places p), '[]'::jsonb),
               ?, h.head, ${eventRecent('h.head')}
          from (select ${EVENT_HEAD} as head) h, expired
      returning int_total, establishments`,
    params: [
      ...reached.params,
      ...reachedUnitVisible.params,
      ...stayVisible.params,
      ...viaAnimalVisible.params,
      ...viaUnitVisible.params,
      ...placeAnimalVisible.params,
      ...establishmentVisible.params,
      id,
      id,
      key,
    ],
  });
  const establishments = run!.establishments.map((e) => ({ ...e, ts_exposure: new Date(e.ts_exposure) }));
  return { id, total: run!.int_total, establishments };
}

/**
 * A page of a stored answer, in rank order (fewest moves, then the contact's time, seeds first,
 * then the tag's code and the animal), with each animal's status, last unit and tag. The answer is
 * stored in the order of its own columns (`ord`: moves, time, animal) with each group of equal
 * moves and time (`int_group_from`..`int_group_to`); the tag only orders the animals inside a
 * group, so a page reads its animals and tags for the groups it touches, not for the whole answer.
 */
export async function traceRunPage(db: Db, runId: string, limit: number, offset: number): Promise<TracedAnimalRow[]> {
  return db.rows<TracedAnimalRow>(
    rankedPage(
      {
        from: 'trace_answer x',
        where: `x.run_id = ? and x.ord >= (select f.int_group_from from trace_answer f where f.run_id = ? and f.ord = ?)
                and x.ord <= (select l.int_group_to from trace_answer l where l.run_id = ? and l.ord <= ? order by l.ord desc limit 1)`,
        params: [runId, runId, offset + 1, runId, offset + limit],
      },
      limit,
      offset,
    ),
  );
}

/**
 * A page in rank order of the answer rows `source` gives (a table expression aliased `x` with the
 * stored answer's columns and a condition on it, parameters in text order, covering the groups of
 * equal moves and time the page touches): each group ranked by tag code (none last), then animal.
 * The stored answer's pages and a walk in memory's first page (its groups handed over as arrays)
 * are ranked by this one text.
 */
export function rankedPage(source: { from: string; where: string; params: unknown[] }, limit: number, offset: number): Query {
  return {
    sql: `select r.animal_id, r.int_hops, r.bl_seed, r.via_animal_id, r.via_control_unit_id, r.ts_via, r.str_status, r.last_control_unit_id, r.str_tag_code
            from (select x.animal_id, x.int_hops, x.bl_seed, x.via_animal_id, x.via_control_unit_id, x.ts_via, a.str_status, a.last_control_unit_id, t.str_code as str_tag_code,
                         x.int_group_from - 1 + row_number() over (partition by x.int_group_from order by t.str_code, x.animal_id) as rank
                    from ${source.from} join animal a on a.id = x.animal_id left join tag t on t.id = a.current_tag_id
                   where ${source.where}) r
           where r.rank > ? and r.rank <= ?
           order by r.rank`,
    params: [...source.params, offset, offset + limit],
  };
}

/** An instant as the JSON answer writes it (toISOString: milliseconds, Z). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The whole stored answer as CSV (the state's veterinarians' spreadsheet): one row per stay of
 * each traced animal at a unit the caller sees, in rank order, the same columns and values as
 * the JSON pages; the caller's visibility is inside the statement. Each answer's stays are read
 * through its animal's index, in order (lateral, `offset 0`): joined instead, the planner read
 * every stay of the caller's establishments into a hash and sorted the whole answer on disk
 * (9.8 s of a 134,000-row COPY at 100,000 animals). The animals are visited in the order of their
 * ids, not of their rank (the output is sorted by rank once either way): consecutive descents then
 * reuse the pages of each partition's path index, where in rank order every animal's descent into
 * the open stays' partition was a page of its own (partitioned / table at 1M backward ×1.14-1.17 → ×1.00-1.10;
 * docs/decisions/partitioning.md). Read in bulk instead (`animal_id = any(array(...))`), the bitmap
 * of a large answer goes lossy and each heap row is rechecked against the whole array, quadratic
 * (minutes). A stay's visibility is the one the JSON
 * pages use (`tracedStays`): its own holder columns, an equality on the row; through its
 * establishment (`establishment in (the caller's establishments)`), a misestimated plan ran that
 * subquery per traced animal (an authority's 20,000 establishments: 60-90 s for a 1-hop CSV).
 * Each stay's unit, establishment and GTA are lookups by key in the select list, as in
 * `tracedStays`: joined, the plan depended on guesses of how many stays a traced animal has (on a
 * partitioned table, or an `establishment` without statistics, it hashed every establishment).
 * Those lookups are CPU in one backend (0.43 of 1.1 s at 43,279 rows): the answer is read in parts
 * (`traceRunParts`), `split.parallel` COPYs at once, their bytes sent in order (`csvInParts`).
 */
export async function traceRunCsv(db: Db, run: { id: string; total: number }, visibleUnit: TraceQuestion['visibleUnit'], split: CsvSplit): Promise<Readable> {
  const visible = visibleUnit('s.control_unit_id', { holder: 's' });
  const ranges = await traceRunParts(db, run, split.animals);
  const part = ([from, to]: [number, number]) => ({
    sql: `select x.animal_id::text as animal_id, x.str_tag_code, x.str_status, case when x.bl_seed then 'SEED' else 'CONTACT' end as str_reached_by,
                 x.int_hops::text as int_hops, x.via_animal_id::text as via_animal_id, x.via_control_unit_id::text as via_control_unit_id, ${iso('x.ts_via')} as ts_via,
                 x.last_control_unit_id::text as last_control_unit_id, (select cu.str_code from control_unit cu where cu.id = s.control_unit_id) as str_control_unit_code,
                 (select e.str_name from establishment e where e.id = s.establishment_id) as str_establishment_name, ${iso('s.ts_from')} as ts_from, ${iso('s.ts_to')} as ts_to,
                 (select g.str_code from animals_egress ae join gta g on g.id = ae.gta_id where ae.id = s.animals_egress_id) as str_gta_code
            from (select x.*, a.str_status, a.last_control_unit_id, t.str_code as str_tag_code,
                         x.int_group_from - 1 + row_number() over (partition by x.int_group_from order by t.str_code, x.animal_id) as rank
                    from trace_answer x join animal a on a.id = x.animal_id left join tag t on t.id = a.current_tag_id
                   where x.run_id = ? and x.ord >= ? and x.ord < ? order by x.animal_id) x
            cross join lateral (select s.* from animal_stay s where s.animal_id = x.animal_id and ${visible.sql} order by ${stayKey('s')}, s.ts_from, s.id offset 0) s
           order by x.rank, s.ts_from, s.id`,
    params: [run.id, from, to, ...visible.params],
  });
  return csvInParts(
    ranges.map((range, i) => () => db.csv(part(range), i === 0)),
    split.parallel,
    CSV_READ_AHEAD,
  );
}

/** How a stored answer's CSV is read in parts (src/db/copy.ts `csvInParts`): about `animals` traced animals each, `parallel` at once. */
export interface CsvSplit {
  animals: number;
  parallel: number;
}

/** The bytes a part read ahead of the one being sent may hold in memory (a part of 5,000 animals is about 8 MB). */
const CSV_READ_AHEAD = 16 * 1024 * 1024;

/**
 * The answer's ranks cut into parts of about `animals` each, [from, to) by `ord`, each cut at the
 * start of a group of equal moves and time: a group is ranked by its tag codes within itself, so a
 * part that holds whole groups ranks its rows as the whole answer would, and the parts in turn
 * are the whole answer in rank order. One statement, and none for an answer of one part.
 */
export async function traceRunParts(db: Db, run: { id: string; total: number }, animals: number): Promise<[number, number][]> {
  const parts = Math.ceil(run.total / Math.max(1, animals));
  let cuts: number[] = [];
  if (parts > 1) {
    const at = Array.from({ length: parts - 1 }, (_, k) => Math.floor(((k + 1) * run.total) / parts) + 1);
    const rows = await db.rows<{ int_group_from: number }>({
      sql: `select distinct f.int_group_from from trace_answer f where f.run_id = ? and f.ord = any(?::int[]) and f.int_group_from > 1 order by 1`,
      params: [run.id, at],
    });
    cuts = rows.map((r) => r.int_group_from);
  }
  const bounds = [1, ...cuts, run.total + 1];
  return bounds.slice(1).map((to, i) => [bounds[i]!, to]);
}

/**
 * The whole path of each traced animal, oldest stay first, only at units the caller sees: one
 * statement. A page's few hundred stays name their unit, establishment and GTA by key, each a
 * lookup: joined, the planner hashed every unit and establishment of the table (57,000 and 20,000
 * at 1,000,000 animals: 15 ms of backend CPU for 291 stays).
 */
export async function tracedStays(db: Db, animalIds: readonly string[], visibleUnit: TraceQuestion['visibleUnit']): Promise<TracedStayRow[]> {
  if (!animalIds.length) return [];
  const visible = visibleUnit('s.control_unit_id', { holder: 's' });
  return db.rows<TracedStayRow>({
    sql: `select s.animal_id, s.control_unit_id, (select cu.str_code from control_unit cu where cu.id = s.control_unit_id) as str_control_unit_code, s.establishment_id,
                 (select e.str_name from establishment e where e.id = s.establishment_id) as str_establishment_name, s.ts_from, s.ts_to,
                 s.animals_ingress_id, s.animals_egress_id, ae.gta_id, (select g.str_code from gta g where g.id = ae.gta_id) as str_gta_code
            from animal_stay s left join animals_egress ae on ae.id = s.animals_egress_id
           where s.animal_id = any(?) and ${visible.sql}
           order by s.animal_id, s.ts_from, s.id`,
    params: [animalIds, ...visible.params],
  });
}
