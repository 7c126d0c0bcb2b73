-- trace_runs: the outbreak trace's walk in SQL (DOMAIN.md, "Tracing"; docs/decisions/trace.md), the
-- reference and the fallback of the walk in memory (src/trace/walk/trace-walk.ts, which returns the same
-- rows, column for column). Called by src/trace/trace.reader.ts, one walk per direction.
-- This file is the function's current definition, applied by Migration0072TraceViaPresent; a change to it
-- comes with a migration that applies it again (src/trace/sql/trace-sql.ts; test/trace-sql.test.ts).
--
-- A place is a control unit or a vehicle (the travel an egress was loaded on, or the finished egress
-- itself); a presence is a stay at a unit or a ride (from the egress that closed a stay to the next stay).
-- Each place's occupancy runs carry a label: the earliest exposure (backward: the latest), `src` the
-- animal that brought it, and every label with its round (`xs`, `ks`: a presence's fewest moves is the
-- first round whose label reached it). Round k sends the presences newly reached on (to their next stay,
-- backward the previous, or onto the vehicle: one move), then settles the vehicles, the rides' far ends
-- (part of the same move), then the units; trace_run_state_load reads a place on its first mention.
-- Past the window each traced animal's path is returned, one move per stay.
-- A contact's via_animal_id: the run's source if it was at the place at ts_via; else another animal
-- there then, the one that arrived last by ts_via, ties to the smaller uuid; else the animal itself
-- (docs/decisions/trace.md, "Via: an animal that was there").
create or replace function trace_runs(p_seed bigint[], p_from timestamptz, p_to timestamptz, p_forward boolean, p_max_hops integer)
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
  -- The unit presences the walk reached (its final pass), by unit and start.
  create temp table if not exists trace_wreach (
    animal_id uuid not null, unit_id uuid not null, establishment_id uuid, stay_id bigint not null, ex timestamptz not null, hops integer,
    seed boolean not null, src uuid, sf timestamptz not null, sk timestamptz not null, st timestamptz not null
  ) on commit drop;
  create index if not exists trace_wreach_at on trace_wreach (unit_id, sf);
  truncate trace_wplace, trace_wride, trace_wrun, trace_wcand, trace_wseed, trace_wdone, trace_wreach;
  if p_forward then
      truncate trace_wcand;
      insert into trace_wseed select distinct unnest(p_seed);
      -- A seed overlaps the window, so its key is at or after the window's start.
      insert into trace_wcand select s.control_unit_id, false, greatest(p_from, s.ts_from), s.animal_id from animal_stay s where s.id = any(p_seed) and coalesce(s.ts_to, 'infinity'::timestamptz) >= p_from;
      
      perform trace_run_state_load(p_from, p_to, t_now, false, true, p_max_hops is not null and 0 >= p_max_hops);
      with best as (
        select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
          from trace_wcand c
          join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
         where c.is_vehicle = false
         order by r.place, r.run, c.x, c.src)
      update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = 0, xs = r.xs || b.x, ks = r.ks || 0
        from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x < r.x);
      delete from trace_wcand c where c.is_vehicle = false;
      loop
        exit when p_max_hops is not null and k >= p_max_hops;
        return query
           with exposed as materialized (
             select s.id, s.animal_id, s.ts_from, s.ts_to, v.vehicle, v.vehicle is not null and s.ts_to <= p_to as rides
               from (select r.place, r.run, r.r_from, r.r_to, r.x, r.x_prev, r.src, r.xs, r.ks, l.lo, l.hi from trace_wrun r join trace_wplace l on l.place = r.place
       where r.changed = k and not r.is_vehicle order by r.place offset 0) r
               join lateral (select s.id, s.animal_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_egress_id from animal_stay s
             where s.control_unit_id = r.place and s.ts_from >= r.r_from and s.ts_from <= least(r.r_to, r.hi) and coalesce(s.ts_to, t_now) >= r.x and (r.x_prev is null or coalesce(s.ts_to, t_now) < r.x_prev) and coalesce(s.ts_to, t_now) >= r.lo and coalesce(s.ts_to, 'infinity'::timestamptz) >= r.lo offset 0) s on true
               left join lateral (select coalesce(te.travel_id, e.id) as vehicle from animals_egress e left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
      where e.id = s.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED') offset 0) v on true
              order by s.animal_id),
           path as materialized (
             select e.*, o.control_unit_id, o.establishment_id, o.id as o_id, o.ts_from as o_from, o.ts_to as o_to,
                    row_number() over w as rn, bool_and(o.id is null or least(o.ts_from, coalesce(o.ts_to, 'infinity')) > p_to) over w as clear
               from exposed e
               left join lateral (select o.control_unit_id, o.establishment_id, o.id, o.ts_from, o.ts_to from animal_stay o
                                   where not e.rides and o.animal_id = e.animal_id and (coalesce(o.ts_to, 'infinity'::timestamptz), o.ts_from, o.id) > (coalesce(e.ts_to, 'infinity'::timestamptz), e.ts_from, e.id) and coalesce(o.ts_to, 'infinity'::timestamptz) >= coalesce(e.ts_to, 'infinity'::timestamptz) order by coalesce(o.ts_to, 'infinity'::timestamptz), o.ts_from, o.id offset 0) o on true
             window w as (partition by e.id order by coalesce(o.ts_to, 'infinity'::timestamptz), o.ts_from, o.id rows between unbounded preceding and unbounded following)),
           moves as (
             insert into trace_wcand
               select case when p.rides then p.vehicle else p.control_unit_id end, p.rides, case when p.rides then p.ts_to else p.o_from end, p.animal_id
                 from path p where p.rn = 1 and (p.rides or (p.vehicle is null and p.o_from <= p_to))),
           done as (insert into trace_wdone select p.animal_id from path p where p.rn = 1 and p.clear and not p.rides)
         select p.animal_id, p.control_unit_id, p.establishment_id, p.o_id, p.o_from, k + p.rn::integer, p.animal_id, null::uuid, p.o_from, false
           from path p where p.clear and not p.rides and p.o_id is not null and (p_max_hops is null or k + p.rn <= p_max_hops);
        moved := exists (select 1 from trace_wcand);
        exit when not moved;
        k := k + 1;
        
      perform trace_run_state_load(p_from, p_to, t_now, true, true, p_max_hops is not null and k >= p_max_hops);
      with best as (
        select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
          from trace_wcand c
          join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
         where c.is_vehicle = true
         order by r.place, r.run, c.x, c.src)
      update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = k, xs = r.xs || b.x, ks = r.ks || k
        from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x < r.x);
      delete from trace_wcand c where c.is_vehicle = true;
        
      with exposed as (
        update trace_wride p set hops = k
          from trace_wrun r where r.changed = k and r.is_vehicle and p.place = r.place and p.run = r.run and p.hops is null and p.t >= r.x
        returning p.end_unit, p.end_x, p.animal_id)
      insert into trace_wcand select e.end_unit, false, e.end_x, e.animal_id from exposed e where e.end_x <= p_to;
        
      perform trace_run_state_load(p_from, p_to, t_now, false, true, p_max_hops is not null and k >= p_max_hops);
      with best as (
        select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
          from trace_wcand c
          join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
         where c.is_vehicle = false
         order by r.place, r.run, c.x, c.src)
      update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = k, xs = r.xs || b.x, ks = r.ks || k
        from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x < r.x);
      delete from trace_wcand c where c.is_vehicle = false;
      end loop;
      -- The reached unit presences, kept with an index: a contact's animal is looked up among them (below).
      insert into trace_wreach
          select s.animal_id, r.place as unit_id, s.establishment_id, s.id as stay_id, greatest(s.ts_from, r.x) as ex, case when cardinality(r.ks) = 1 then r.ks[1] else (select min(g.k) from unnest(r.xs, r.ks) g(x, k) where g.x <= coalesce(s.ts_to, t_now)) end as hops,
                 exists (select 1 from trace_wseed sd where sd.stay_id = s.id) as seed, r.src, s.ts_from as sf, coalesce(s.ts_to, 'infinity'::timestamptz) as sk, coalesce(s.ts_to, t_now) as st
            from (select r.place, r.run, r.r_from, r.r_to, r.x, r.x_prev, r.src, r.xs, r.ks, l.lo, l.hi from trace_wrun r join trace_wplace l on l.place = r.place
       where r.x is not null and not r.is_vehicle order by r.place offset 0) r
            join lateral (select s.id, s.animal_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_egress_id from animal_stay s
             where s.control_unit_id = r.place and s.ts_from >= r.r_from and s.ts_from <= least(r.r_to, r.hi) and coalesce(s.ts_to, t_now) >= r.x and coalesce(s.ts_to, t_now) >= r.lo and coalesce(s.ts_to, 'infinity'::timestamptz) >= r.lo offset 0) s on true;
      return query
        with reached as materialized (
          select w.animal_id, w.unit_id, w.establishment_id, w.stay_id, false as is_vehicle, w.ex, w.hops, w.seed, w.src, w.sf, w.sk,
                 -- The contact it names: the run's source if it was there at the exposure, else another animal there, the last to arrive (see the header).
                 case when w.seed or w.animal_id = w.src then w.src
                      when exists (select 1 from animal_stay z where z.animal_id = w.src and z.control_unit_id = w.unit_id and z.ts_from <= w.ex
                                      and coalesce(z.ts_to, t_now) >= w.ex and coalesce(z.ts_to, 'infinity'::timestamptz) >= w.ex) then w.src
                      else coalesce((select q.animal_id from trace_wreach q where q.unit_id = w.unit_id and q.sf <= w.ex and q.st >= w.ex and q.animal_id <> w.animal_id
                                     order by q.sf desc, q.animal_id limit 1), w.animal_id) end as via
            from trace_wreach w
          union all
          select p.animal_id, null::uuid, null::uuid, p.stay_id, true, greatest(p.f, r.x), p.hops, false, r.src, p.loaded_from, p.f,
                 case when p.animal_id = r.src or exists (select 1 from trace_wride z where z.place = p.place and z.run = p.run and z.animal_id = r.src and z.f <= greatest(p.f, r.x) and z.t >= greatest(p.f, r.x)) then r.src
                      else coalesce((select q.animal_id from trace_wride q where q.place = p.place and q.run = p.run and q.f <= greatest(p.f, r.x) and q.t >= greatest(p.f, r.x) and q.animal_id <> p.animal_id
                             order by q.f desc, q.animal_id limit 1), p.animal_id) end
            from trace_wride p join trace_wrun r on r.place = p.place and r.run = p.run where p.hops is not null),
        anchor as (select distinct on (x.animal_id) x.animal_id, x.hops, x.is_vehicle, x.sf, x.sk, x.stay_id from reached x
                    where not exists (select 1 from trace_wdone d where d.animal_id = x.animal_id) order by x.animal_id, x.sf desc, x.stay_id desc, x.is_vehicle desc),
        -- With a hop limit, only the animals whose next stay past the window is within it.
        onward as (select a.* from anchor a where p_max_hops is null or a.hops + case when a.is_vehicle then 0 else 1 end <= p_max_hops),
        beyond as (
          select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to,
                 a.hops + s.rn::integer - case when a.is_vehicle then 1 else 0 end as hops
            from onward a
            join lateral (select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to, row_number() over (order by coalesce(s.ts_to, 'infinity'::timestamptz), s.ts_from, s.id) as rn
                            from animal_stay s where s.animal_id = a.animal_id and (coalesce(s.ts_to, 'infinity'::timestamptz), s.ts_from, s.id) > (a.sk, a.sf, a.stay_id) and coalesce(s.ts_to, 'infinity'::timestamptz) >= a.sk order by coalesce(s.ts_to, 'infinity'::timestamptz), s.ts_from, s.id offset 0) s on true)
        select x.animal_id, x.unit_id, x.establishment_id, x.stay_id, x.ex, x.hops,
               case when x.seed then null else x.via end, case when x.seed or x.is_vehicle then null else x.unit_id end, case when x.seed then null else x.ex end, x.seed
          from reached x
        union all
        select b.animal_id, b.control_unit_id, b.establishment_id, b.id, b.ts_from, b.hops, b.animal_id, null::uuid, b.ts_from, false
          from beyond b where p_max_hops is null or b.hops <= p_max_hops;
  else
      truncate trace_wcand;
      insert into trace_wseed select distinct unnest(p_seed);
      -- A seed overlaps the window, so its key is at or after the window's start.
      insert into trace_wcand select s.control_unit_id, false, least(p_to, coalesce(s.ts_to, t_now)), s.animal_id from animal_stay s where s.id = any(p_seed) and coalesce(s.ts_to, 'infinity'::timestamptz) >= p_from;
      
      perform trace_run_state_load(p_from, p_to, t_now, false, false, p_max_hops is not null and 0 >= p_max_hops);
      with best as (
        select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
          from trace_wcand c
          join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
         where c.is_vehicle = false
         order by r.place, r.run, c.x desc, c.src)
      update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = 0, xs = r.xs || b.x, ks = r.ks || 0
        from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x > r.x);
      delete from trace_wcand c where c.is_vehicle = false;
      loop
        exit when p_max_hops is not null and k >= p_max_hops;
        return query
           with exposed as materialized (
             select s.id, s.animal_id, s.ts_from, s.ts_to from (select r.place, r.run, r.r_from, r.r_to, r.x, r.x_prev, r.src, r.xs, r.ks, l.lo, l.hi from trace_wrun r join trace_wplace l on l.place = r.place
       where r.changed = k and not r.is_vehicle order by r.place offset 0) r join lateral (select s.id, s.animal_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_egress_id from animal_stay s
             where s.control_unit_id = r.place and s.ts_from >= r.r_from and s.ts_from <= least(r.r_to, r.hi, r.x) and s.ts_from > coalesce(r.x_prev, '-infinity') and coalesce(s.ts_to, t_now) >= r.lo and coalesce(s.ts_to, 'infinity'::timestamptz) >= r.lo offset 0) s on true order by s.animal_id),
           -- Begun before the window: no vehicle brought it within the window, so the descent reads the animal's whole
           -- earlier path (the same index pages) and, when none of it reaches into the window, returns it from here.
           path as materialized (
             select e.animal_id, o.control_unit_id, o.establishment_id, o.id as o_id, o.ts_to as o_to, o.animals_egress_id, coalesce(o.rn, 1) as rn, coalesce(o.clear, true) as clear
               from exposed e
               left join lateral (select o.control_unit_id, o.establishment_id, o.id, o.ts_to, o.animals_egress_id, row_number() over w as rn, bool_and(coalesce(o.ts_to, 'infinity'::timestamptz) < p_from) over w as clear
                                    from animal_stay o where o.animal_id = e.animal_id and (coalesce(o.ts_to, 'infinity'::timestamptz), o.ts_from, o.id) < (coalesce(e.ts_to, 'infinity'::timestamptz), e.ts_from, e.id) and coalesce(o.ts_to, 'infinity'::timestamptz) <= coalesce(e.ts_to, 'infinity'::timestamptz)
                                  window w as (order by coalesce(o.ts_to, 'infinity'::timestamptz) desc, o.ts_from desc, o.id desc rows between unbounded preceding and unbounded following) order by coalesce(o.ts_to, 'infinity'::timestamptz) desc, o.ts_from desc, o.id desc offset 0) o on true
              where e.ts_from < p_from),
           moves as (
             insert into trace_wcand
               select coalesce(v.vehicle, b.control_unit_id), v.vehicle is not null, case when v.vehicle is not null then s.ts_from else b.ts_to end, s.animal_id
                 from exposed s
                 join lateral (select b.control_unit_id, b.ts_to, b.animals_egress_id from animal_stay b where b.animal_id = s.animal_id and (coalesce(b.ts_to, 'infinity'::timestamptz), b.ts_from, b.id) < (coalesce(s.ts_to, 'infinity'::timestamptz), s.ts_from, s.id) and coalesce(b.ts_to, 'infinity'::timestamptz) <= coalesce(s.ts_to, 'infinity'::timestamptz) order by coalesce(b.ts_to, 'infinity'::timestamptz) desc, b.ts_from desc, b.id desc limit 1) b on true
                 left join lateral (select coalesce(te.travel_id, e.id) as vehicle from animals_egress e left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
      where e.id = b.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED') offset 0) v on true
                where s.ts_from >= p_from and (v.vehicle is not null or b.ts_to >= p_from)
               union all
               -- (Its previous stay left on a vehicle: the ride ended before the window, no move.)
               select p.control_unit_id, false, p.o_to, p.animal_id from path p
                where p.rn = 1 and p.o_to >= p_from and not exists (select 1 from animals_egress e where e.id = p.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED'))),
           done as (insert into trace_wdone select p.animal_id from path p where p.rn = 1 and p.clear)
         select p.animal_id, p.control_unit_id, p.establishment_id, p.o_id, coalesce(p.o_to, t_now), k + p.rn::integer, p.animal_id, null::uuid, coalesce(p.o_to, t_now), false
           from path p where p.clear and p.o_id is not null and (p_max_hops is null or k + p.rn <= p_max_hops);
        moved := exists (select 1 from trace_wcand);
        exit when not moved;
        k := k + 1;
        
      perform trace_run_state_load(p_from, p_to, t_now, true, false, p_max_hops is not null and k >= p_max_hops);
      with best as (
        select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
          from trace_wcand c
          join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
         where c.is_vehicle = true
         order by r.place, r.run, c.x desc, c.src)
      update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = k, xs = r.xs || b.x, ks = r.ks || k
        from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x > r.x);
      delete from trace_wcand c where c.is_vehicle = true;
        
      with exposed as (
        update trace_wride p set hops = k
          from trace_wrun r where r.changed = k and r.is_vehicle and p.place = r.place and p.run = r.run and p.hops is null and p.f <= r.x
        returning p.end_unit, p.end_x, p.animal_id)
      insert into trace_wcand select e.end_unit, false, e.end_x, e.animal_id from exposed e where e.end_x >= p_from;
        
      perform trace_run_state_load(p_from, p_to, t_now, false, false, p_max_hops is not null and k >= p_max_hops);
      with best as (
        select distinct on (r.place, r.run) r.place, r.run, c.x, c.src
          from trace_wcand c
          join lateral (select r.place, r.run, r.r_to from trace_wrun r where r.place = c.place and r.r_from <= c.x order by r.r_from desc, r.run desc limit 1) r on c.x <= r.r_to
         where c.is_vehicle = false
         order by r.place, r.run, c.x desc, c.src)
      update trace_wrun r set x_prev = r.x, x = b.x, src = b.src, changed = k, xs = r.xs || b.x, ks = r.ks || k
        from best b where r.place = b.place and r.run = b.run and (r.x is null or b.x > r.x);
      delete from trace_wcand c where c.is_vehicle = false;
      end loop;
      -- The reached unit presences, kept with an index: a contact's animal is looked up among them (below).
      insert into trace_wreach
          select s.animal_id, r.place as unit_id, s.establishment_id, s.id as stay_id, least(coalesce(s.ts_to, t_now), r.x) as ex, case when cardinality(r.ks) = 1 then r.ks[1] else (select min(g.k) from unnest(r.xs, r.ks) g(x, k) where g.x >= s.ts_from) end as hops,
                 exists (select 1 from trace_wseed sd where sd.stay_id = s.id) as seed, r.src, s.ts_from as sf, coalesce(s.ts_to, 'infinity'::timestamptz) as sk, coalesce(s.ts_to, t_now) as st
            from (select r.place, r.run, r.r_from, r.r_to, r.x, r.x_prev, r.src, r.xs, r.ks, l.lo, l.hi from trace_wrun r join trace_wplace l on l.place = r.place
       where r.x is not null and not r.is_vehicle order by r.place offset 0) r
            join lateral (select s.id, s.animal_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_egress_id from animal_stay s
             where s.control_unit_id = r.place and s.ts_from >= r.r_from and s.ts_from <= least(r.r_to, r.hi, r.x) and coalesce(s.ts_to, t_now) >= r.lo and coalesce(s.ts_to, 'infinity'::timestamptz) >= r.lo offset 0) s on true;
      return query
        with reached as materialized (
          select w.animal_id, w.unit_id, w.establishment_id, w.stay_id, false as is_vehicle, w.ex, w.hops, w.seed, w.src, w.sf, w.sk,
                 -- The contact it names: the run's source if it was there at the exposure, else another animal there, the last to arrive (see the header).
                 case when w.seed or w.animal_id = w.src then w.src
                      when exists (select 1 from animal_stay z where z.animal_id = w.src and z.control_unit_id = w.unit_id and z.ts_from <= w.ex
                                      and coalesce(z.ts_to, t_now) >= w.ex and coalesce(z.ts_to, 'infinity'::timestamptz) >= w.ex) then w.src
                      else coalesce((select q.animal_id from trace_wreach q where q.unit_id = w.unit_id and q.sf <= w.ex and q.st >= w.ex and q.animal_id <> w.animal_id
                                     order by q.sf desc, q.animal_id limit 1), w.animal_id) end as via
            from trace_wreach w
          union all
          select p.animal_id, null::uuid, null::uuid, p.stay_id, true, least(p.t, r.x), p.hops, false, r.src, p.loaded_from, p.f,
                 case when p.animal_id = r.src or exists (select 1 from trace_wride z where z.place = p.place and z.run = p.run and z.animal_id = r.src and z.f <= least(p.t, r.x) and z.t >= least(p.t, r.x)) then r.src
                      else coalesce((select q.animal_id from trace_wride q where q.place = p.place and q.run = p.run and q.f <= least(p.t, r.x) and q.t >= least(p.t, r.x) and q.animal_id <> p.animal_id
                             order by q.f desc, q.animal_id limit 1), p.animal_id) end
            from trace_wride p join trace_wrun r on r.place = p.place and r.run = p.run where p.hops is not null),
        anchor as (select distinct on (x.animal_id) x.animal_id, x.hops, x.is_vehicle, x.sf, x.sk, x.stay_id from reached x
                    where not exists (select 1 from trace_wdone d where d.animal_id = x.animal_id) order by x.animal_id, x.sf, x.stay_id, x.is_vehicle),
        -- With a hop limit, only the animals whose next stay past the window is within it.
        onward as (select a.* from anchor a where p_max_hops is null or a.hops + case when a.is_vehicle then 0 else 1 end <= p_max_hops),
        beyond as (
          select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to,
                 a.hops + s.rn::integer - case when a.is_vehicle then 1 else 0 end as hops
            from onward a
            join lateral (select s.animal_id, s.control_unit_id, s.establishment_id, s.id, s.ts_from, s.ts_to, row_number() over (order by coalesce(s.ts_to, 'infinity'::timestamptz) desc, s.ts_from desc, s.id desc) as rn
                            from animal_stay s where s.animal_id = a.animal_id and (coalesce(s.ts_to, 'infinity'::timestamptz), s.ts_from, s.id) <= (a.sk, a.sf, a.stay_id) and coalesce(s.ts_to, 'infinity'::timestamptz) <= a.sk and (a.is_vehicle or s.id <> a.stay_id) order by coalesce(s.ts_to, 'infinity'::timestamptz) desc, s.ts_from desc, s.id desc offset 0) s on true)
        select x.animal_id, x.unit_id, x.establishment_id, x.stay_id, x.ex, x.hops,
               case when x.seed then null else x.via end, case when x.seed or x.is_vehicle then null else x.unit_id end, case when x.seed then null else x.ex end, x.seed
          from reached x
        union all
        select b.animal_id, b.control_unit_id, b.establishment_id, b.id, coalesce(b.ts_to, t_now), b.hops, b.animal_id, null::uuid, coalesce(b.ts_to, t_now), false
          from beyond b where p_max_hops is null or b.hops <= p_max_hops;
  end if;
end
$fn$;
