import { Migration } from '@mikro-orm/migrations';

/**
 * The outbreak trace (DOMAIN.md, "Tracing") as one set-based iteration inside PostgreSQL:
 * `trace_reach` walks the stays from the seed stays, one round per step of the walk (never one
 * query per animal), and returns every stay reached with its exposure time, its hops from the seed
 * and how it was reached.
 *
 * Forward, a reached stay's exposure starts at t; the animal's next stay is reached at its arrival
 * (one hop more); at each unit the exposed intervals [t, left] cut to the window are merged into
 * islands, and every stay there overlapping an island is reached at the later of its arrival and
 * the island's start (a contact: no hop). Backward mirrors it: exposure ends at t, the previous
 * stay is reached at its departure, islands end at their latest exposure. A stay reached again is
 * kept when the new exposure is earlier (forward; later backward) or its hops fewer; the walk ends
 * when a round changes nothing.
 */
export class Migration0019Trace extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index animal_stay_unit_span on animal_stay (control_unit_id, ts_from, ts_to)');
    this.addSql(`create or replace function trace_reach(p_seed bigint[], p_from timestamptz, p_to timestamptz, p_forward boolean, p_max_hops integer)
returns table (stay_id bigint, animal_id uuid, control_unit_id uuid, establishment_id uuid, ts_exposure timestamptz, int_hops integer, via_animal_id uuid, via_control_unit_id uuid, ts_via timestamptz)
language plpgsql as $fn$
declare
  r integer := 0;
  changed integer;
  t_now timestamptz := now();
begin
  create temp table if not exists trace_reached (
    stay_id bigint primary key, animal_id uuid, control_unit_id uuid, establishment_id uuid, s_from timestamptz, s_to timestamptz,
    t timestamptz, hops integer, via_animal uuid, via_unit uuid, via_at timestamptz, round integer
  ) on commit drop;
  truncate trace_reached;
  insert into trace_reached
    select s.id, s.animal_id, s.control_unit_id, s.establishment_id, s.ts_from, s.ts_to,
           case when p_forward then greatest(p_from, s.ts_from) else least(p_to, coalesce(s.ts_to, t_now)) end, 0, null, null, null, 0
      from animal_stay s where s.id = any(p_seed);
  loop
    r := r + 1;
    if p_forward then
      with frontier as (select * from trace_reached f where f.round = r - 1),
      paths as (
        select s.*, lag(s.id) over (partition by s.animal_id order by s.ts_from, s.id) as before_id
          from animal_stay s where s.animal_id in (select fa.animal_id from frontier fa)),
      moves as (
        select n.id, n.animal_id, n.control_unit_id, n.establishment_id, n.ts_from, n.ts_to, n.ts_from as t, f.hops + 1 as hops, f.animal_id as via_animal, f.control_unit_id as via_unit, n.ts_from as via_at
          from frontier f join paths n on n.before_id = f.stay_id
         where p_max_hops is null or f.hops + 1 <= p_max_hops),
      spans as (
        select f.control_unit_id as u, greatest(f.t, p_from) as a, least(coalesce(f.s_to, t_now), p_to) as b, f.hops, f.animal_id
          from frontier f where greatest(f.t, p_from) <= least(coalesce(f.s_to, t_now), p_to)),
      marked as (
        select sp.*, case when sp.a <= max(sp.b) over (partition by sp.u order by sp.a, sp.b rows between unbounded preceding and 1 preceding) then 0 else 1 end as brk from spans sp),
      grouped as (select m.*, sum(m.brk) over (partition by m.u order by m.a, m.b) as g from marked m),
      islands as (select gr.u, min(gr.a) as a, max(gr.b) as b, min(gr.hops) as hops, (array_agg(gr.animal_id order by gr.a))[1] as via from grouped gr group by gr.u, gr.g),
      contacts as (
        select o.id, o.animal_id, o.control_unit_id, o.establishment_id, o.ts_from, o.ts_to, greatest(o.ts_from, i.a) as t, i.hops, i.via as via_animal, i.u as via_unit, greatest(o.ts_from, i.a) as via_at
          from islands i join animal_stay o on o.control_unit_id = i.u and o.ts_from <= i.b and coalesce(o.ts_to, t_now) >= i.a),
      candidates as (
        select distinct on (c.id) c.* from (select * from moves union all select * from contacts) c order by c.id, c.t, c.hops)
      insert into trace_reached
        select c.id, c.animal_id, c.control_unit_id, c.establishment_id, c.ts_from, c.ts_to, c.t, c.hops, c.via_animal, c.via_unit, c.via_at, r from candidates c
      on conflict on constraint trace_reached_pkey do update
        set t = least(trace_reached.t, excluded.t), hops = least(trace_reached.hops, excluded.hops),
            via_animal = case when excluded.t < trace_reached.t then excluded.via_animal else trace_reached.via_animal end,
            via_unit = case when excluded.t < trace_reached.t then excluded.via_unit else trace_reached.via_unit end,
            via_at = case when excluded.t < trace_reached.t then excluded.via_at else trace_reached.via_at end,
            round = r
        where excluded.t < trace_reached.t or excluded.hops < trace_reached.hops;
    else
      with frontier as (select * from trace_reached f where f.round = r - 1),
      paths as (
        select s.*, lead(s.id) over (partition by s.animal_id order by s.ts_from, s.id) as after_id
          from animal_stay s where s.animal_id in (select fa.animal_id from frontier fa)),
      moves as (
        select p.id, p.animal_id, p.control_unit_id, p.establishment_id, p.ts_from, p.ts_to, coalesce(p.ts_to, p.ts_from) as t, f.hops + 1 as hops, f.animal_id as via_animal, f.control_unit_id as via_unit, coalesce(p.ts_to, p.ts_from) as via_at
          from frontier f join paths p on p.after_id = f.stay_id
         where p_max_hops is null or f.hops + 1 <= p_max_hops),
      spans as (
        select f.control_unit_id as u, greatest(f.s_from, p_from) as a, least(f.t, p_to) as b, f.hops, f.animal_id
          from frontier f where greatest(f.s_from, p_from) <= least(f.t, p_to)),
      marked as (
        select sp.*, case when sp.a <= max(sp.b) over (partition by sp.u order by sp.a, sp.b rows between unbounded preceding and 1 preceding) then 0 else 1 end as brk from spans sp),
      grouped as (select m.*, sum(m.brk) over (partition by m.u order by m.a, m.b) as g from marked m),
      islands as (select gr.u, min(gr.a) as a, max(gr.b) as b, min(gr.hops) as hops, (array_agg(gr.animal_id order by gr.b desc))[1] as via from grouped gr group by gr.u, gr.g),
      contacts as (
        select o.id, o.animal_id, o.control_unit_id, o.establishment_id, o.ts_from, o.ts_to, least(coalesce(o.ts_to, t_now), i.b) as t, i.hops, i.via as via_animal, i.u as via_unit, least(coalesce(o.ts_to, t_now), i.b) as via_at
          from islands i join animal_stay o on o.control_unit_id = i.u and o.ts_from <= i.b and coalesce(o.ts_to, t_now) >= i.a),
      candidates as (
        select distinct on (c.id) c.* from (select * from moves union all select * from contacts) c order by c.id, c.t desc, c.hops)
      insert into trace_reached
        select c.id, c.animal_id, c.control_unit_id, c.establishment_id, c.ts_from, c.ts_to, c.t, c.hops, c.via_animal, c.via_unit, c.via_at, r from candidates c
      on conflict on constraint trace_reached_pkey do update
        set t = greatest(trace_reached.t, excluded.t), hops = least(trace_reached.hops, excluded.hops),
            via_animal = case when excluded.t > trace_reached.t then excluded.via_animal else trace_reached.via_animal end,
            via_unit = case when excluded.t > trace_reached.t then excluded.via_unit else trace_reached.via_unit end,
            via_at = case when excluded.t > trace_reached.t then excluded.via_at else trace_reached.via_at end,
            round = r
        where excluded.t > trace_reached.t or excluded.hops < trace_reached.hops;
    end if;
    get diagnostics changed = row_count;
    exit when changed = 0;
  end loop;
  return query select x.stay_id, x.animal_id, x.control_unit_id, x.establishment_id, x.t, x.hops, x.via_animal, x.via_unit, x.via_at from trace_reached x;
end
$fn$`);
  }
}
