import { Migration } from '@mikro-orm/migrations';

/**
 * The walk of Migration0025TraceRuns, the same answer, faster (docs/decisions/trace.md, "Speed").
 * - A place's presences are read through a covering btree, `animal_stay_unit (control_unit_id,
 *   ts_from) include (ts_to, id, animal_id, establishment_id, animals_egress_id)`, an index-only
 *   scan of the unit's stays that began by the window's end: about 10x cheaper per unit than the
 *   GiST on (unit, span), whose probes read ~35 pages each. The GiST goes (it cost every stay's
 *   write too); Migration0024's `trace_walk`, kept only for an old A/B, loses its index.
 * - An animal's next or previous stay is one index-only descent: `animal_stay_path (animal_id,
 *   ts_from, id) include (control_unit_id, establishment_id, ts_to, animals_egress_id)`.
 * - The vehicle a presence left on is looked up only when the presence is exposed and moves on
 *   (forward), not for every presence loaded.
 * - The presences exposed in a round go to a frontier table (the update's returning), which the
 *   next moves read: no index on the hops, and no primary key (a place is loaded once).
 * - Past the window, a hop-limited walk follows only the animals whose next stay is within the limit.
 */

/** The vehicle an egress's animals rode: its travel (the embark not released), or the finished egress itself (no row: none). `offset 0` keeps it a lookup per stay (pulled up, it became a hash join over every egress). */
const VEHICLE = (egress: string) =>
  `select coalesce(te.travel_id, e.id) as vehicle from animals_egress e left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
    where e.id = ${egress} and e.str_status in ('FINISHED', 'RECEIVED') offset 0`;

/** The columns of a presence the moves out of it read (the frontier of a round). */
const FRONTIER = ['is_vehicle', 'animal_id', 'stay_id', 'f', 'f_to', 'loaded_from', 'egress_id'];

/** One direction's walk. Forward: labels are earliest exposures; backward, latest. */
function walk(forward: boolean): string {
  const better = forward ? '<' : '>';
  const order = forward ? '' : ' desc';
  // A run's label reaches the presences still there at it (forward) / already there by it (backward).
  const reaches = forward ? 'p.t >= r.x' : 'p.f <= r.x';
  const exposure = forward ? 'greatest(p.f, r.x)' : 'least(p.t, r.x)';
  // The candidates to the vehicles (then those to the units) improve the labels of the runs they fall in.
  const apply = (vehicle: boolean, k: string) => `
    perform trace_runs_load(p_from, p_to, t_now, ${vehicle}, ${forward}, p_max_hops is not null and ${k} >= p_max_hops);
    with best as (
      select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
        from trace_cand c join trace_run_label r on r.place = c.place and c.x between r.r_from and r.r_to
       where c.is_vehicle = ${vehicle}
       order by r.place, r.run, c.x${order}, c.src)
    update trace_run_label r set x = b.x, hops = ${k}, src = b.src, changed = ${k}
      from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x ${better} r.x);
    delete from trace_cand c where c.is_vehicle = ${vehicle};`;
  const expose = (vehicle: boolean, k: string) => `
    with exposed as (
      update trace_presence p set hops = ${k}
        from trace_run_label r where r.changed = ${k} and r.is_vehicle = ${vehicle} and p.place = r.place and p.run = r.run and p.hops is null and ${reaches}
      returning ${FRONTIER.map((c) => `p.${c}`).join(', ')})
    insert into trace_frontier select * from exposed;`;
  // A unit's presence exposed this round: the animal's next stay (backward: previous), or the vehicle it rode between them.
  const unitMoves = forward
    ? `insert into trace_cand
         select coalesce(v.vehicle, n.control_unit_id), v.vehicle is not null, case when v.vehicle is not null then p.f_to else n.ts_from end, p.animal_id
           from trace_frontier p
           left join lateral (${VEHICLE('p.egress_id')}) v on true
           left join lateral (select n.control_unit_id, n.ts_from from animal_stay n where v.vehicle is null and n.animal_id = p.animal_id and (n.ts_from, n.id) > (p.f, p.stay_id) order by n.ts_from, n.id limit 1) n on true
          where not p.is_vehicle and case when v.vehicle is not null then p.f_to <= p_to else n.ts_from <= p_to end;`
    : `insert into trace_cand
         select coalesce(v.vehicle, b.control_unit_id), v.vehicle is not null, case when v.vehicle is not null then p.f else b.ts_to end, p.animal_id
           from trace_frontier p
           join lateral (select b.control_unit_id, b.ts_to, b.animals_egress_id from animal_stay b where b.animal_id = p.animal_id and (b.ts_from, b.id) < (p.f, p.stay_id) order by b.ts_from desc, b.id desc limit 1) b on true
           left join lateral (${VEHICLE('b.animals_egress_id')}) v on true
          where not p.is_vehicle and case when v.vehicle is not null then p.f >= p_from else b.ts_to >= p_from end;`;
  // A ride exposed this round: the unit it unloads at (backward: the unit it was loaded at), no move more.
  const rideEnds = forward
    ? `insert into trace_cand
         select n.control_unit_id, false, n.ts_from, p.animal_id
           from trace_frontier p
           join lateral (select n.control_unit_id, n.ts_from from animal_stay n where n.animal_id = p.animal_id and (n.ts_from, n.id) > (p.loaded_from, p.stay_id) order by n.ts_from, n.id limit 1) n on true
          where p.is_vehicle and n.ts_from <= p_to;`
    : `insert into trace_cand
         select s.control_unit_id, false, s.ts_to, p.animal_id
           from trace_frontier p join animal_stay s on s.id = p.stay_id
          where p.is_vehicle and s.ts_to >= p_from;`;
  const seedX = forward ? 'greatest(p_from, s.ts_from)' : 'least(p_to, coalesce(s.ts_to, t_now))';
  // Past the window (paths are whole): each traced animal's stays after (backward: before) the last
  // (first) presence the walk reached it at, one move each; a ride's far end is part of its move.
  const anchorOrder = forward ? 'x.sf desc, x.stay_id desc, x.is_vehicle desc' : 'x.sf, x.stay_id, x.is_vehicle';
  const onward = forward ? '(s.ts_from, s.id) > (a.sf, a.stay_id)' : '((s.ts_from, s.id) < (a.sf, a.stay_id) or (a.is_vehicle and s.id = a.stay_id))';
  const pathExposure = forward ? 'b.ts_from' : 'coalesce(b.ts_to, t_now)';
  return `
    truncate trace_cand;
    insert into trace_cand select s.control_unit_id, false, ${seedX}, s.animal_id from animal_stay s where s.id = any(p_seed);
    ${apply(false, '0')}
    with seeds as (update trace_presence p set hops = 0, seed = true where p.stay_id = any(p_seed) and not p.is_vehicle returning ${FRONTIER.map((c) => `p.${c}`).join(', ')})
    insert into trace_frontier select * from seeds;
    ${expose(false, '0')}
    loop
      exit when p_max_hops is not null and k >= p_max_hops;
      ${unitMoves}
      moved := found;
      truncate trace_frontier;
      exit when not moved;
      k := k + 1;
      ${apply(true, 'k')}
      ${expose(true, 'k')}
      ${rideEnds}
      ${apply(false, 'k')}
      ${expose(false, 'k')}
    end loop;
    return query
      with reached as (
        select p.pid, p.animal_id, p.unit_id, p.establishment_id, p.stay_id, p.is_vehicle, ${exposure} as ex, p.hops, p.seed, r.src, coalesce(p.loaded_from, p.f) as sf
          from trace_presence p join trace_run_label r on r.place = p.place and r.run = p.run where p.hops is not null),
      anchor as (select distinct on (x.animal_id) x.animal_id, x.hops, x.is_vehicle, x.sf, x.stay_id from reached x order by x.animal_id, ${anchorOrder}),
      -- With a hop limit, only the animals whose next stay past the window is within it.
      onward as (select a.* from anchor a where p_max_hops is null or a.hops + case when a.is_vehicle then 0 else 1 end <= p_max_hops),
      beyond as (
        select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to,
               a.hops + (row_number() over (partition by a.animal_id order by s.ts_from${order}, s.id${order}))::integer - case when a.is_vehicle then 1 else 0 end as hops
          from onward a join lateral (select s.* from animal_stay s where s.animal_id = a.animal_id and ${onward} offset 0) s on true)
      select x.animal_id, x.unit_id, x.establishment_id, x.stay_id, x.ex, x.hops,
             case when x.seed then null else x.src end, case when x.seed or x.is_vehicle then null else x.unit_id end, case when x.seed then null else x.ex end, x.seed
        from reached x
      union all
      select b.animal_id, b.control_unit_id, b.establishment_id, b.id, ${pathExposure}, b.hops, b.animal_id, null::uuid, ${pathExposure}, false
        from beyond b where p_max_hops is null or b.hops <= p_max_hops;`;
}

export class Migration0030TraceFast extends Migration {
  override async up(): Promise<void> {
    // A unit's stays by start, carrying what the walk reads: an index-only scan per place.
    this.addSql('drop index if exists animal_stay_unit');
    this.addSql('create index animal_stay_unit on animal_stay (control_unit_id, ts_from) include (ts_to, id, animal_id, establishment_id, animals_egress_id)');
    this.addSql('drop index if exists animal_stay_unit_during');
    // An animal's stays in their order (ts_from, id): the next or previous stay is one descent of an
    // index-only scan (the row comparison is its bound), with the egress it left by.
    this.addSql('drop index if exists animal_stay_path');
    this.addSql('create index animal_stay_path on animal_stay (animal_id, ts_from, id) include (control_unit_id, establishment_id, ts_to, animals_egress_id)');
    // A vehicle's riders, index-only.
    this.addSql('drop index if exists animal_stay_egress');
    this.addSql('create index animal_stay_egress on animal_stay (animals_egress_id) include (animal_id, ts_from, id, ts_to) where animals_egress_id is not null');
    // Loads the places (vehicles, or units) the candidates name that are not loaded yet: their
    // presences overlapping the window, each with its run (gaps and islands: a run starts where a
    // presence begins after every earlier one there has ended), and the runs. In the last round a
    // label can only be a candidate of this round: a place is read from its earliest candidate on
    // (backward: up to its latest), which cuts no run short where a label can fall. Each place is
    // read through its index (lateral, `offset 0`): the temporary tables have no statistics.
    this.addSql(`create or replace function trace_runs_load(p_from timestamptz, p_to timestamptz, t_now timestamptz, p_vehicles boolean, p_forward boolean, p_last boolean)
returns void language plpgsql as $fn$
begin
  insert into trace_place (place, is_vehicle, loaded, lo, hi)
    select c.place, c.is_vehicle, false, case when p_last and p_forward then min(c.x) else p_from end, case when p_last and not p_forward then max(c.x) else p_to end
      from trace_cand c where c.is_vehicle = p_vehicles and not exists (select 1 from trace_place l where l.place = c.place) group by c.place, c.is_vehicle;
  if not found then return; end if;
  with fresh as (
    select s.id as pid, s.control_unit_id as place, false as is_vehicle, s.animal_id, s.id as stay_id, s.control_unit_id as unit_id, s.establishment_id,
           s.ts_from as f, coalesce(s.ts_to, t_now) as t, s.ts_to as f_to, null::timestamptz as loaded_from, s.animals_egress_id as egress_id
      from trace_place l
      join lateral (select s.id, s.control_unit_id, s.animal_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_egress_id from animal_stay s
                     where s.control_unit_id = l.place and s.ts_from <= l.hi and coalesce(s.ts_to, t_now) >= l.lo offset 0) s on true
     where not l.loaded and not l.is_vehicle
    union all
    -- A ride: from the egress that closed a stay to the animal's next stay (still riding: now).
    select -s.id, l.place, true, s.animal_id, s.id, null, null, s.ts_to, coalesce(n.ts_from, t_now), n.ts_from, s.ts_from, null::uuid
      from trace_place l
      join lateral (select e.id from animals_egress e where e.id = l.place and e.str_status in ('FINISHED', 'RECEIVED')
                       and not exists (select 1 from travel_embark te where te.animals_egress_id = e.id and te.ts_released_at is null)
                    union all select te.animals_egress_id from travel_embark te join animals_egress e on e.id = te.animals_egress_id
                     where te.travel_id = l.place and te.ts_released_at is null and e.str_status in ('FINISHED', 'RECEIVED')) e on true
      join lateral (select s.id, s.animal_id, s.ts_from, s.ts_to from animal_stay s where s.animals_egress_id = e.id) s on true
      left join lateral (select n.ts_from from animal_stay n where n.animal_id = s.animal_id and (n.ts_from, n.id) > (s.ts_from, s.id) order by n.ts_from, n.id limit 1) n on true
     where not l.loaded and l.is_vehicle and s.ts_to <= l.hi and coalesce(n.ts_from, t_now) >= l.lo),
  marked as (
    select x.*, case when x.f <= max(x.t) over (partition by x.place order by x.f, x.t, x.pid rows between unbounded preceding and 1 preceding) then 0 else 1 end as brk from fresh x),
  loaded as (
    insert into trace_presence (pid, place, is_vehicle, animal_id, stay_id, unit_id, establishment_id, f, t, f_to, loaded_from, egress_id, run)
      select m.pid, m.place, m.is_vehicle, m.animal_id, m.stay_id, m.unit_id, m.establishment_id, m.f, m.t, m.f_to, m.loaded_from, m.egress_id,
             sum(m.brk) over (partition by m.place order by m.f, m.t, m.pid)::integer
        from marked m
    returning place, run, is_vehicle, f, t)
  insert into trace_run_label (place, run, is_vehicle, r_from, r_to)
    select x.place, x.run, x.is_vehicle, min(x.f), max(x.t) from loaded x group by x.place, x.run, x.is_vehicle;
  update trace_place set loaded = true where not loaded;
end
$fn$`);
    this.addSql(`create or replace function trace_runs(p_seed bigint[], p_from timestamptz, p_to timestamptz, p_forward boolean, p_max_hops integer)
returns table (animal_id uuid, control_unit_id uuid, establishment_id uuid, stay_id bigint, ts_exposure timestamptz, int_hops integer, via_animal_id uuid, via_control_unit_id uuid, ts_via timestamptz, bl_seed boolean)
language plpgsql set work_mem = '64MB' as $fn$
declare
  k integer := 0;
  moved boolean;
  t_now timestamptz := now();
begin
  create temp table if not exists trace_place (place uuid primary key, is_vehicle boolean not null, loaded boolean not null, lo timestamptz not null, hi timestamptz not null) on commit drop;
  create temp table if not exists trace_presence (
    pid bigint not null, place uuid not null, is_vehicle boolean not null, animal_id uuid not null, stay_id bigint not null,
    unit_id uuid, establishment_id uuid, f timestamptz not null, t timestamptz not null, f_to timestamptz, loaded_from timestamptz, egress_id uuid,
    run integer, hops integer, seed boolean not null default false
  ) with (fillfactor = 50) on commit drop;
  create index if not exists trace_presence_run on trace_presence (place, run);
  -- The presences exposed this round, which the next moves read (FRONTIER's columns).
  create temp table if not exists trace_frontier (is_vehicle boolean not null, animal_id uuid not null, stay_id bigint not null, f timestamptz not null, f_to timestamptz, loaded_from timestamptz, egress_id uuid) on commit drop;
  create temp table if not exists trace_run_label (
    place uuid not null, run integer not null, is_vehicle boolean not null, r_from timestamptz not null, r_to timestamptz not null,
    x timestamptz, hops integer, src uuid, changed integer, primary key (place, run)
  ) on commit drop;
  create index if not exists trace_run_label_changed on trace_run_label (changed);
  create temp table if not exists trace_cand (place uuid not null, is_vehicle boolean not null, x timestamptz not null, src uuid not null) on commit drop;
  truncate trace_place, trace_presence, trace_run_label, trace_cand, trace_frontier;
  if p_forward then${walk(true).replace(/\n/g, '\n  ')}
  else${walk(false).replace(/\n/g, '\n  ')}
  end if;
end
$fn$`);
  }
}
