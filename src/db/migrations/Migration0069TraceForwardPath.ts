import { Migration } from '@mikro-orm/migrations';

/**
 * The forward walk reads one next stay per exposed presence (issue 25; docs/decisions/partitioning.md,
 * "The forward walk's next stay"; docs/decisions/trace.md). `trace_runs` restated whole: the same
 * names, arguments, columns and rows as Migration0067TraceStayKey's (whose helpers below are copied
 * unchanged), and the same `trace_run_state_load` (not restated). Only the forward round's moves change:
 * Migration0067 read, for every newly exposed unit presence, the animal's whole path after it (to decide
 * whether it was the animal's last reached presence, and to return the path past the window from there);
 * on stays partitioned by `coalesce(ts_to, 'infinity')` that read is an Append over every later partition.
 * One animal's stays never nest, so their starts follow the path order and "no later stay begins by the
 * window's end" is decided by the next stay alone: one `limit 1` descent (an ordered Append that stops at
 * the first partition holding it). Only for the presences it clears is the rest read, from that next
 * stay's own key on (pruned to its partition and the later ones).
 */

/** The vehicle an egress's animals rode: its travel (the embark not released), or the finished egress itself (no row: none). `offset 0` keeps it a lookup per stay. */
const VEHICLE = (egress: string) =>
  `select coalesce(te.travel_id, e.id) as vehicle from animals_egress e left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
    where e.id = ${egress} and e.str_status in ('FINISHED', 'RECEIVED') offset 0`;

/**
 * The stays' future partition key (docs/decisions/partitioning.md), named beside the conditions that
 * imply it (a stay ends at or after it begins: Migration0012's check), so that closed years before
 * the window can be pruned once the stays are partitioned; it changes no answer.
 */
const KEY = (stay: string) => `coalesce(${stay}.ts_to, 'infinity'::timestamptz)`;

/**
 * An animal's path order, `animal_stay_path`'s: the key, then the start, then the id (`dir` ' desc' for
 * backward). One animal's stays never nest, so this is the order of their starts (and ids).
 */
const PATH = (stay: string, dir = '') => `${KEY(stay)}${dir}, ${stay}.ts_from${dir}, ${stay}.id${dir}`;

/**
 * The stays of `o` (the same animal) after (`>`) or before (`<`) the stay whose key, start and id are
 * given, in path order; the key's own bound (implied by the row comparison) is what prunes partitions.
 */
const beside = (o: string, op: '>' | '<' | '<=', key: string, from: string, id: string) =>
  `(${KEY(o)}, ${o}.ts_from, ${o}.id) ${op} (${key}, ${from}, ${id}) and ${KEY(o)} ${op === '>' ? '>=' : '<='} ${key}`;

/**
 * The stays of unit run `r` (from RUNS) that its label reaches, read from the unit's index: those
 * loaded with the run (begun by its place's `hi`, not ended before its `lo`, begun inside the run's bounds).
 * `fresh`: only those its previous label (`x_prev`) did not reach (the presences exposed this round).
 */
function runStays(forward: boolean, fresh: boolean): string {
  // Backward, the label bounds the index range itself (a stay it reaches began by it).
  const reach = forward
    ? `s.ts_from <= least(r.r_to, r.hi) and coalesce(s.ts_to, t_now) >= r.x${fresh ? ' and (r.x_prev is null or coalesce(s.ts_to, t_now) < r.x_prev)' : ''}`
    : `s.ts_from <= least(r.r_to, r.hi, r.x)${fresh ? " and s.ts_from > coalesce(r.x_prev, '-infinity')" : ''}`;
  return `select s.id, s.animal_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_egress_id from animal_stay s
           where s.control_unit_id = r.place and s.ts_from >= r.r_from and ${reach} and coalesce(s.ts_to, t_now) >= r.lo and ${KEY('s')} >= r.lo offset 0`;
}

/**
 * The unit runs matching `where` with their place's bounds, in the order of the places (so that the
 * range scans of `animal_stay_unit` that follow walk its pages in order, not at random).
 */
const RUNS = (where: string) =>
  `(select r.place, r.run, r.r_from, r.r_to, r.x, r.x_prev, r.src, r.xs, r.ks, l.lo, l.hi from trace_wrun r join trace_wplace l on l.place = r.place
     where ${where} and not r.is_vehicle order by r.place offset 0) r`;

/** One direction's walk. Forward: labels are earliest exposures; backward, latest. */
function walk(forward: boolean): string {
  const better = forward ? '<' : '>';
  const order = forward ? '' : ' desc';
  const reachesRide = forward ? 'p.t >= r.x' : 'p.f <= r.x';
  // The candidates to the vehicles (then those to the units) improve the labels of the runs they fall in; each label is logged with its round.
  const apply = (vehicle: boolean, k: string) => `
    perform trace_run_state_load(p_from, p_to, t_now, ${vehicle}, ${forward}, p_max_hops is not null and ${k} >= p_max_hops);
    with best as (
      select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
        from trace_wcand c
        join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
       where c.is_vehicle = ${vehicle}
       order by r.place, r.run, c.x${order}, c.src)
    update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = ${k}, xs = r.xs || b.x, ks = r.ks || ${k}
      from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x ${better} r.x);
    delete from trace_wcand c where c.is_vehicle = ${vehicle};`;
  // The unit presences newly exposed this round (hops k), each sent on: to the vehicle it left on, or
  // to its next stay (backward: the previous stay, or the vehicle that brought it).
  // Forward, one descent finds the next stay (limit 1). When it begins after the window (or there is
  // none) and the presence did not ride on within the window, nothing later of this animal can be reached
  // (its stays never nest: every later one begins no earlier), so this presence is its last reached one:
  // its path past the window is returned here, one move each (the next stay, then the rest read from the
  // next stay's own key on), and the animal is noted in trace_wdone: the final pass does not descend for
  // it again. Migration0067 read every exposed presence's whole rest of path to decide the same: on the
  // partitioned stays, one descent into every later partition per presence. (Backward the same shortcut
  // was measured no cheaper: the vehicle of the previous stay, looked up from a materialized path, is no
  // longer memoized, and costs what the saved descents did.)
  const unitMoves = forward
    ? `return query
         with exposed as materialized (
           select s.id, s.animal_id, s.ts_from, s.ts_to, v.vehicle, v.vehicle is not null and s.ts_to <= p_to as rides
             from ${RUNS('r.changed = k')}
             join lateral (${runStays(true, true)}) s on true
             left join lateral (${VEHICLE('s.animals_egress_id')}) v on true
            order by s.animal_id),
         nxt as materialized (
           select e.*, o.control_unit_id, o.establishment_id, o.id as o_id, o.ts_from as o_from, o.o_key, o.id is null or o.ts_from > p_to as clear
             from exposed e
             left join lateral (select o.control_unit_id, o.establishment_id, o.id, o.ts_from, ${KEY('o')} as o_key from animal_stay o
                                 where not e.rides and o.animal_id = e.animal_id and ${beside('o', '>', KEY('e'), 'e.ts_from', 'e.id')} order by ${PATH('o')} limit 1) o on true),
         moves as (
           insert into trace_wcand
             select case when p.rides then p.vehicle else p.control_unit_id end, p.rides, case when p.rides then p.ts_to else p.o_from end, p.animal_id
               from nxt p where p.rides or (p.vehicle is null and p.o_from <= p_to)),
         done as (insert into trace_wdone select p.animal_id from nxt p where p.clear and not p.rides),
         tail as (select p.animal_id, p.control_unit_id, p.establishment_id, p.o_id, p.o_from, p.o_key from nxt p
                   where p.clear and not p.rides and p.o_id is not null and (p_max_hops is null or k + 1 <= p_max_hops))
       select p.animal_id, p.control_unit_id, p.establishment_id, p.o_id, p.o_from, k + 1, p.animal_id, null::uuid, p.o_from, false
         from tail p
       union all
       select p.animal_id, o.control_unit_id, o.establishment_id, o.id, o.ts_from, k + 1 + o.rn::integer, p.animal_id, null::uuid, o.ts_from, false
         from tail p
         join lateral (select o.control_unit_id, o.establishment_id, o.id, o.ts_from, row_number() over (order by ${PATH('o')}) as rn from animal_stay o
                        where o.animal_id = p.animal_id and ${beside('o', '>', 'p.o_key', 'p.o_from', 'p.o_id')} order by ${PATH('o')} offset 0) o on true
        where p_max_hops is null or k + 1 + o.rn <= p_max_hops;`
    : `return query
         with exposed as materialized (
           select s.id, s.animal_id, s.ts_from, s.ts_to from ${RUNS('r.changed = k')} join lateral (${runStays(false, true)}) s on true order by s.animal_id),
         -- Begun before the window: no vehicle brought it within the window, so the descent reads the animal's whole
         -- earlier path (the same index pages) and, when none of it reaches into the window, returns it from here.
         path as materialized (
           select e.animal_id, o.control_unit_id, o.establishment_id, o.id as o_id, o.ts_to as o_to, o.animals_egress_id, coalesce(o.rn, 1) as rn, coalesce(o.clear, true) as clear
             from exposed e
             left join lateral (select o.control_unit_id, o.establishment_id, o.id, o.ts_to, o.animals_egress_id, row_number() over w as rn, bool_and(${KEY('o')} < p_from) over w as clear
                                  from animal_stay o where o.animal_id = e.animal_id and ${beside('o', '<', KEY('e'), 'e.ts_from', 'e.id')}
                                window w as (order by ${PATH('o', ' desc')} rows between unbounded preceding and unbounded following) order by ${PATH('o', ' desc')} offset 0) o on true
            where e.ts_from < p_from),
         moves as (
           insert into trace_wcand
             select coalesce(v.vehicle, b.control_unit_id), v.vehicle is not null, case when v.vehicle is not null then s.ts_from else b.ts_to end, s.animal_id
               from exposed s
               join lateral (select b.control_unit_id, b.ts_to, b.animals_egress_id from animal_stay b where b.animal_id = s.animal_id and ${beside('b', '<', KEY('s'), 's.ts_from', 's.id')} order by ${PATH('b', ' desc')} limit 1) b on true
               left join lateral (${VEHICLE('b.animals_egress_id')}) v on true
              where s.ts_from >= p_from and (v.vehicle is not null or b.ts_to >= p_from)
             union all
             -- (Its previous stay left on a vehicle: the ride ended before the window, no move.)
             select p.control_unit_id, false, p.o_to, p.animal_id from path p
              where p.rn = 1 and p.o_to >= p_from and not exists (select 1 from animals_egress e where e.id = p.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED'))),
         done as (insert into trace_wdone select p.animal_id from path p where p.rn = 1 and p.clear)
       select p.animal_id, p.control_unit_id, p.establishment_id, p.o_id, coalesce(p.o_to, t_now), k + p.rn::integer, p.animal_id, null::uuid, coalesce(p.o_to, t_now), false
         from path p where p.clear and p.o_id is not null and (p_max_hops is null or k + p.rn <= p_max_hops);`;
  // The rides newly exposed this round: the unit the move ends at (forward: where it unloads; backward: where it was loaded), no move more.
  const rideEnds = `
    with exposed as (
      update trace_wride p set hops = k
        from trace_wrun r where r.changed = k and r.is_vehicle and p.place = r.place and p.run = r.run and p.hops is null and ${reachesRide}
      returning p.end_unit, p.end_x, p.animal_id)
    insert into trace_wcand select e.end_unit, false, e.end_x, e.animal_id from exposed e where e.end_x ${forward ? '<= p_to' : '>= p_from'};`;
  const seedX = forward ? 'greatest(p_from, s.ts_from)' : 'least(p_to, coalesce(s.ts_to, t_now))';
  const exposure = forward ? 'greatest(s.ts_from, r.x)' : 'least(coalesce(s.ts_to, t_now), r.x)';
  const rideExposure = forward ? 'greatest(p.f, r.x)' : 'least(p.t, r.x)';
  // A presence's fewest moves: the first round whose label reached it (labels only improve, round by round).
  const firstRound = forward
    ? 'case when cardinality(r.ks) = 1 then r.ks[1] else (select min(g.k) from unnest(r.xs, r.ks) g(x, k) where g.x <= coalesce(s.ts_to, t_now)) end'
    : 'case when cardinality(r.ks) = 1 then r.ks[1] else (select min(g.k) from unnest(r.xs, r.ks) g(x, k) where g.x >= s.ts_from) end';
  // Past the window (paths are whole): each traced animal's stays after (backward: before) the last
  // (first) presence the walk reached it at, one move each; a ride's far end is part of its move.
  const anchorOrder = forward ? 'x.sf desc, x.stay_id desc, x.is_vehicle desc' : 'x.sf, x.stay_id, x.is_vehicle';
  // Read in the path index's order, numbered inside each animal's descent (no sort of the whole): backward, a
  // vehicle's anchor is the stay it left (the ride's far end is part of its move), so it is the first row.
  const onward = forward
    ? beside('s', '>', 'a.sk', 'a.sf', 'a.stay_id')
    : `${beside('s', '<=', 'a.sk', 'a.sf', 'a.stay_id')} and (a.is_vehicle or s.id <> a.stay_id)`;
  const pathExposure = forward ? 'b.ts_from' : 'coalesce(b.ts_to, t_now)';
  return `
    truncate trace_wcand;
    insert into trace_wseed select distinct unnest(p_seed);
    -- A seed overlaps the window, so its key is at or after the window's start.
    insert into trace_wcand select s.control_unit_id, false, ${seedX}, s.animal_id from animal_stay s where s.id = any(p_seed) and ${KEY('s')} >= p_from;
    ${apply(false, '0')}
    loop
      exit when p_max_hops is not null and k >= p_max_hops;
      ${unitMoves}
      moved := exists (select 1 from trace_wcand);
      exit when not moved;
      k := k + 1;
      ${apply(true, 'k')}
      ${rideEnds}
      ${apply(false, 'k')}
    end loop;
    return query
      with reached as materialized (
        select s.animal_id, r.place as unit_id, s.establishment_id, s.id as stay_id, false as is_vehicle, ${exposure} as ex, ${firstRound} as hops,
               exists (select 1 from trace_wseed sd where sd.stay_id = s.id) as seed, r.src, s.ts_from as sf, ${KEY('s')} as sk
          from ${RUNS('r.x is not null')}
          join lateral (${runStays(forward, false)}) s on true
        union all
        select p.animal_id, null::uuid, null::uuid, p.stay_id, true, ${rideExposure}, p.hops, false, r.src, p.loaded_from, p.f
          from trace_wride p join trace_wrun r on r.place = p.place and r.run = p.run where p.hops is not null),
      anchor as (select distinct on (x.animal_id) x.animal_id, x.hops, x.is_vehicle, x.sf, x.sk, x.stay_id from reached x
                  where not exists (select 1 from trace_wdone d where d.animal_id = x.animal_id) order by x.animal_id, ${anchorOrder}),
      -- With a hop limit, only the animals whose next stay past the window is within it.
      onward as (select a.* from anchor a where p_max_hops is null or a.hops + case when a.is_vehicle then 0 else 1 end <= p_max_hops),
      beyond as (
        select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to,
               a.hops + s.rn::integer - case when a.is_vehicle then 1 else 0 end as hops
          from onward a
          join lateral (select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to, row_number() over (order by ${PATH('s', order)}) as rn
                          from animal_stay s where s.animal_id = a.animal_id and ${onward} order by ${PATH('s', order)} offset 0) s on true)
      select x.animal_id, x.unit_id, x.establishment_id, x.stay_id, x.ex, x.hops,
             case when x.seed then null else x.src end, case when x.seed or x.is_vehicle then null else x.unit_id end, case when x.seed then null else x.ex end, x.seed
        from reached x
      union all
      select b.animal_id, b.control_unit_id, b.establishment_id, b.id, ${pathExposure}, b.hops, b.animal_id, null::uuid, ${pathExposure}, false
        from beyond b where p_max_hops is null or b.hops <= p_max_hops;`;
}

export class Migration0069TraceForwardPath extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function trace_runs(p_seed bigint[], p_from timestamptz, p_to timestamptz, p_forward boolean, p_max_hops integer)
returns table (animal_id uuid, control_unit_id uuid, establishment_id uuid, stay_id bigint, ts_exposure timestamptz, int_hops integer, via_animal_id uuid, via_control_unit_id uuid, ts_via timestamptz, bl_seed boolean)
language plpgsql set work_mem = '64MB' as $fn$
declare
  k integer := 0;
  moved boolean;
  t_now timestamptz := now();
begin
  create temp table if not exists trace_wplace (place uuid primary key, is_vehicle boolean not null, loaded boolean not null, lo timestamptz not null, hi timestamptz not null) on commit drop;
  -- A vehicle's presences (rides), with the unit and time their move ends at.
  create temp table if not exists trace_wride (
    place uuid not null, animal_id uuid not null, stay_id bigint not null, f timestamptz not null, t timestamptz not null, loaded_from timestamptz not null,
    end_unit uuid, end_x timestamptz, run integer not null, hops integer
  ) with (fillfactor = 50) on commit drop;
  create index if not exists trace_wride_run on trace_wride (place, run);
  -- A place's runs and their labels: the best (x, with the animal that brought it: src), the one before this round (x_prev), and every label with its round (xs, ks).
  create temp table if not exists trace_wrun (
    place uuid not null, run integer not null, is_vehicle boolean not null, r_from timestamptz not null, r_to timestamptz not null,
    x timestamptz, x_prev timestamptz, src uuid, changed integer, xs timestamptz[] not null, ks integer[] not null, primary key (place, run)
  ) on commit drop;
  create index if not exists trace_wrun_changed on trace_wrun (changed);
  -- The run a candidate falls in: a place's runs follow one another (each begins after every earlier one has ended),
  -- so it is the last one begun by the candidate's time. (A ride whose next stay began before it left runs backwards,
  -- from its end to the next stay's start: alone it makes a run that contains no time, which may begin where the next run does.)
  create index if not exists trace_wrun_from on trace_wrun (place, r_from, run);
  create temp table if not exists trace_wcand (place uuid not null, is_vehicle boolean not null, x timestamptz not null, src uuid not null) on commit drop;
  create temp table if not exists trace_wseed (stay_id bigint primary key) on commit drop;
  -- The animals whose path past the window a round already returned.
  create temp table if not exists trace_wdone (animal_id uuid not null) on commit drop;
  truncate trace_wplace, trace_wride, trace_wrun, trace_wcand, trace_wseed, trace_wdone;
  if p_forward then${walk(true).replace(/\n/g, '\n  ')}
  else${walk(false).replace(/\n/g, '\n  ')}
  end if;
end
$fn$`);
  }
}
