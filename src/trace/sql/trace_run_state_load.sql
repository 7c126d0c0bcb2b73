-- trace_run_state_load: loads the places trace_runs' candidates name that are not loaded yet (see
-- trace_runs.sql): a unit's occupancy runs over its stays overlapping the window (gaps and islands), or a
-- vehicle's rides and their runs. In the last round of a hop-limited walk a place is read from its
-- earliest candidate on (backward: up to its latest). Each place is read through its index (lateral,
-- `offset 0`): the temporary tables have no statistics.
-- This file is the function's current definition (its body as Migration0067TraceStayKey applied it); a
-- change to it comes with a migration that applies it again (src/trace/sql/trace-sql.ts).
create or replace function trace_run_state_load(p_from timestamptz, p_to timestamptz, t_now timestamptz, p_vehicles boolean, p_forward boolean, p_last boolean)
returns void language plpgsql as $fn$
begin
  insert into trace_wplace (place, is_vehicle, loaded, lo, hi)
    select c.place, c.is_vehicle, false, case when p_last and p_forward then min(c.x) else p_from end, case when p_last and not p_forward then max(c.x) else p_to end
      from trace_wcand c where c.is_vehicle = p_vehicles and not exists (select 1 from trace_wplace l where l.place = c.place) group by c.place, c.is_vehicle;
  if not found then return; end if;
  if p_vehicles then
    -- The riders of the vehicles not loaded yet, in the order of the animals (so that the descents to
    -- their next stays walk `animal_stay_path` in order).
    with riders as (
      select l.place, l.lo, s.id, s.animal_id, s.control_unit_id, s.ts_from, s.ts_to
        from trace_wplace l
        join lateral (select e.id from animals_egress e where e.id = l.place and e.str_status in ('FINISHED', 'RECEIVED')
                         and not exists (select 1 from travel_embark te where te.animals_egress_id = e.id and te.ts_released_at is null)
                      union all select te.animals_egress_id from travel_embark te join animals_egress e on e.id = te.animals_egress_id
                       where te.travel_id = l.place and te.ts_released_at is null and e.str_status in ('FINISHED', 'RECEIVED')) e on true
        -- (closed by the egress by the place's hi: so is their key)
        join lateral (select s.id, s.animal_id, s.control_unit_id, s.ts_from, s.ts_to from animal_stay s where s.animals_egress_id = e.id and coalesce(s.ts_to, 'infinity'::timestamptz) <= l.hi) s on true
       where not l.loaded and l.is_vehicle and s.ts_to <= l.hi
       order by s.animal_id offset 0),
    fresh as (
      -- A ride: from the egress that closed a stay to the animal's next stay (still riding: now).
      select -s.id as pid, s.place, s.animal_id, s.id as stay_id, s.ts_to as f, coalesce(n.ts_from, t_now) as t, s.ts_from as loaded_from,
             case when p_forward then n.control_unit_id else s.control_unit_id end as end_unit, case when p_forward then n.ts_from else s.ts_to end as end_x
        from riders s
        left join lateral (select n.control_unit_id, n.ts_from from animal_stay n where n.animal_id = s.animal_id and (coalesce(n.ts_to, 'infinity'::timestamptz), n.ts_from, n.id) > (coalesce(s.ts_to, 'infinity'::timestamptz), s.ts_from, s.id) and coalesce(n.ts_to, 'infinity'::timestamptz) >= coalesce(s.ts_to, 'infinity'::timestamptz) order by coalesce(n.ts_to, 'infinity'::timestamptz), n.ts_from, n.id limit 1) n on true
       where coalesce(n.ts_from, t_now) >= s.lo),
    marked as (
      select x.*, case when x.f <= max(x.t) over (partition by x.place order by x.f, x.t, x.pid rows between unbounded preceding and 1 preceding) then 0 else 1 end as brk from fresh x),
    loaded as (
      insert into trace_wride (place, animal_id, stay_id, f, t, loaded_from, end_unit, end_x, run)
        select m.place, m.animal_id, m.stay_id, m.f, m.t, m.loaded_from, m.end_unit, m.end_x, sum(m.brk) over (partition by m.place order by m.f, m.t, m.pid)::integer
          from marked m
      returning place, run, f, t)
    insert into trace_wrun (place, run, is_vehicle, r_from, r_to, xs, ks)
      select x.place, x.run, true, min(x.f), max(x.t), '{}', '{}' from loaded x group by x.place, x.run;
  else
    with fresh as (
      select l.place, s.id as pid, s.ts_from as f, coalesce(s.ts_to, t_now) as t
        from trace_wplace l
        join lateral (select s.id, s.ts_from, s.ts_to from animal_stay s
                       where s.control_unit_id = l.place and s.ts_from <= l.hi and coalesce(s.ts_to, t_now) >= l.lo and coalesce(s.ts_to, 'infinity'::timestamptz) >= l.lo offset 0) s on true
       where not l.loaded and not l.is_vehicle),
    marked as (
      select x.*, case when x.f <= max(x.t) over (partition by x.place order by x.f, x.t, x.pid rows between unbounded preceding and 1 preceding) then 0 else 1 end as brk from fresh x),
    numbered as (select m.place, m.f, m.t, sum(m.brk) over (partition by m.place order by m.f, m.t, m.pid) as run from marked m)
    insert into trace_wrun (place, run, is_vehicle, r_from, r_to, xs, ks)
      select x.place, x.run::integer, false, min(x.f), max(x.t), '{}', '{}' from numbered x group by x.place, x.run;
  end if;
  update trace_wplace set loaded = true where not loaded;
end
$fn$;
