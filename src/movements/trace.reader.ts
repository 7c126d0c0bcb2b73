import type { Db } from '../db/sql.js';
import type { Scope } from '../shared/scoped-query.js';

export type TraceDirection = 'FORWARD' | 'BACKWARD' | 'BOTH';

/** A checked trace question: the seed (SQL on alias "s", the stays at the place), the window, the direction, the hop limit. */
export interface TraceQuestion {
  seed: Scope;
  from: Date;
  to: Date;
  direction: TraceDirection;
  maxHops: number | null;
  /** The units whose stays the caller may see: SQL on a unit id column (and, when the row has one, the column naming that unit's establishment). */
  visibleUnit: (column: string, establishmentColumn?: string) => Scope;
}

/** A traced animal: how it was reached (the seed, or a contact with an animal at a unit at a time) and its hops from the seed. */
export interface TracedAnimalRow {
  animal_id: string;
  int_hops: number;
  via_animal_id: string | null;
  via_control_unit_id: string | null;
  ts_via: Date | null;
  str_status: string;
  last_control_unit_id: string;
  str_tag_code: string | null;
}

export interface TracedEstablishmentRow {
  id: string;
  str_name: string;
  str_type: string;
  str_socioenvironmental_status: string;
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

/** The reach of the question as SQL: one `trace_walk` per direction (Migration0024TraceWalk). */
function reachedSql(q: TraceQuestion): { sql: string; params: unknown[] } {
  const seed = `array(select s.id from animal_stay s where ${q.seed.sql} and s.ts_from <= ? and coalesce(s.ts_to, now()) >= ?)`;
  const walks = q.direction === 'BOTH' ? [true, false] : [q.direction === 'FORWARD'];
  const params: unknown[] = [];
  const parts = walks.map((forward) => {
    params.push(...q.seed.params, q.to, q.from, q.from, q.to, forward, q.maxHops);
    return `select * from trace_runs(${seed}, ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer)`;
  });
  return { sql: parts.join(' union all '), params };
}

/** A stored answer (`trace_run`): its id, how many traced animals the caller sees, the establishments reached. */
export interface TraceRun {
  id: string;
  total: number;
  establishments: TracedEstablishmentRow[];
}

/** How long a stored answer is kept: the pages of one request read it (a CSV export of a big trace takes seconds). */
const RUN_KEPT = '10 minutes';

/**
 * Walks once and stores the answer the caller may see (an animal with at least one stay at a unit
 * it sees), ranked nearest to the seed first, so that its pages are read from the store instead of
 * walking again: one statement, which also drops the answers older than RUN_KEPT.
 * The visibility checks end in `offset 0`, which keeps each `exists` a lookup per traced animal (or
 * establishment) through its index: the planner, which cannot know how many animals the walk
 * returns, otherwise turned them into a hash join over every stay of the table (2.2 s of a 1-hop
 * trace's 3.2 s under EXPLAIN ANALYZE at 5 million stays).
 */
export async function traceRun(db: Db, q: TraceQuestion, id: string): Promise<TraceRun> {
  const reached = reachedSql(q);
  const stayVisible = q.visibleUnit('vs.control_unit_id', 'vs.establishment_id');
  const establishmentVisible = q.visibleUnit('vu.id', 'vu.establishment_id');
  const [run] = await db.rows<{ int_total: number; establishments: TracedEstablishmentRow[] }>({
    sql: `with old as (delete from trace_run where ts_created_at < now() - interval '${RUN_KEPT}' returning id),
      old_answers as (delete from trace_answer where run_id in (select id from old)),
      reached as materialized (${reached.sql}),
      entry as (select distinct on (r.animal_id) r.animal_id, r.int_hops, r.via_animal_id, r.via_control_unit_id, r.ts_via
                  from reached r where r.via_animal_id is null or r.via_animal_id <> r.animal_id order by r.animal_id, r.int_hops, r.ts_exposure),
      visible as materialized (select e.* from entry e where exists (select 1 from animal_stay vs where vs.animal_id = e.animal_id and ${stayVisible.sql} offset 0)),
      places as (select e.id, e.str_name, e.str_type, e.str_socioenvironmental_status from establishment e
                  where e.id in (select distinct establishment_id from reached)
                    and exists (select 1 from control_unit vu where vu.establishment_id = e.id and ${establishmentVisible.sql} offset 0)),
      answer as (insert into trace_answer (run_id, ord, animal_id, int_hops, via_animal_id, via_control_unit_id, ts_via)
                  select ?, row_number() over (order by v.int_hops, v.ts_via nulls first, t.str_code, v.animal_id), v.animal_id, v.int_hops, v.via_animal_id, v.via_control_unit_id, v.ts_via
                    from visible v join animal a on a.id = v.animal_id left join tag t on t.id = a.current_tag_id)
      insert into trace_run (id, int_total, establishments)
        select ?, (select count(*)::int from visible), coalesce((select jsonb_agg(p order by p.str_name, p.id) from places p), '[]'::jsonb)
      returning int_total, establishments`,
    params: [...reached.params, ...stayVisible.params, ...establishmentVisible.params, id, id],
  });
  return { id, total: run!.int_total, establishments: run!.establishments };
}

/** A page of a stored answer, in rank order, with each animal's status, last unit and tag. */
export async function traceRunPage(db: Db, runId: string, limit: number, offset: number): Promise<TracedAnimalRow[]> {
  return db.rows<TracedAnimalRow>({
    sql: `select x.animal_id, x.int_hops, x.via_animal_id, x.via_control_unit_id, x.ts_via, a.str_status, a.last_control_unit_id, t.str_code as str_tag_code
            from trace_answer x join animal a on a.id = x.animal_id left join tag t on t.id = a.current_tag_id
           where x.run_id = ? and x.ord > ? and x.ord <= ?
           order by x.ord`,
    params: [runId, offset, offset + limit],
  });
}

/** The whole path of each traced animal, oldest stay first, only at units the caller sees: one statement. */
export async function tracedStays(db: Db, animalIds: readonly string[], visibleUnit: TraceQuestion['visibleUnit']): Promise<TracedStayRow[]> {
  if (!animalIds.length) return [];
  const visible = visibleUnit('s.control_unit_id', 's.establishment_id');
  return db.rows<TracedStayRow>({
    sql: `select s.animal_id, s.control_unit_id, cu.str_code as str_control_unit_code, s.establishment_id, e.str_name as str_establishment_name, s.ts_from, s.ts_to,
                 s.animals_ingress_id, s.animals_egress_id, ae.gta_id, g.str_code as str_gta_code
            from animal_stay s join control_unit cu on cu.id = s.control_unit_id join establishment e on e.id = s.establishment_id
            left join animals_egress ae on ae.id = s.animals_egress_id left join gta g on g.id = ae.gta_id
           where s.animal_id = any(?) and ${visible.sql}
           order by s.animal_id, s.ts_from, s.id`,
    params: [animalIds, ...visible.params],
  });
}
