import { Migration } from '@mikro-orm/migrations';

/**
 * One round of one direction over the stays taken this round (`round = r`): their animals' paths
 * (every later stay forward, every earlier one backward, in one step, one hop per move, only from a
 * stay whose path was not yet taken with as few hops) and their contacts (the exposed intervals at
 * each unit merged into islands; every stay overlapping one). What changes is left to do.
 */
function round(forward: boolean): string {
  // Forward: exposure starts at t; a later stay is exposed from its arrival; an island starts at its earliest exposure.
  // Backward: exposure ends at t; an earlier stay is exposed until its departure; an island ends at its latest exposure.
  const better = forward ? 'excluded.t < w.t' : 'excluded.t > w.t';
  const keep = (column: string) => `${column} = case when ${better} then excluded.${column} else w.${column} end`;
  const upsert = (pathHops: string, round: string) =>
    `on conflict on constraint trace_walked_pkey do update
        set t = ${forward ? 'least' : 'greatest'}(w.t, excluded.t), hops = least(w.hops, excluded.hops), ${keep('via_animal')}, ${keep('via_unit')}, ${keep('via_at')},
            path_hops = ${pathHops}, round = ${round}
      where ${better} or excluded.hops < w.hops`;
  const t = forward ? 's.ts_from' : 'coalesce(s.ts_to, s.ts_from)';
  return `
      insert into trace_walked as w
        select distinct on (p.id) p.id, p.animal_id, p.control_unit_id, p.establishment_id, p.ts_from, p.ts_to, p.t, p.hops, p.animal_id, p.via_unit, p.t, p.hops, r - 1
          from (select s.id, s.animal_id, s.control_unit_id, s.establishment_id, s.ts_from, s.ts_to, ${t} as t, f.control_unit_id as via_unit,
                       f.hops + row_number() over (partition by f.stay_id order by s.ts_from ${forward ? '' : 'desc'}, s.id ${forward ? '' : 'desc'})::integer as hops
                  from trace_walked f
                  join animal_stay s on s.animal_id = f.animal_id and (s.ts_from, s.id) ${forward ? '>' : '<'} (f.s_from, f.stay_id)
                 where f.round = r - 1 and (f.path_hops is null or f.hops < f.path_hops)) p
         where p_max_hops is null or p.hops <= p_max_hops
         order by p.id, p.hops
      ${upsert('least(w.path_hops, excluded.path_hops)', 'r - 1')};
      with spans as (
        select f.control_unit_id as u, ${forward ? 'greatest(f.t, p_from)' : 'greatest(f.s_from, p_from)'} as a, ${forward ? 'least(coalesce(f.s_to, t_now), p_to)' : 'least(f.t, p_to)'} as b, f.hops, f.animal_id
          from trace_walked f where f.round = r - 1),
      marked as (
        select sp.*, case when sp.a <= max(sp.b) over (partition by sp.u order by sp.a, sp.b rows between unbounded preceding and 1 preceding) then 0 else 1 end as brk
          from spans sp where sp.a <= sp.b),
      grouped as (select m.*, sum(m.brk) over (partition by m.u order by m.a, m.b) as g from marked m),
      islands as (
        select gr.u, min(gr.a) as a, max(gr.b) as b, min(gr.hops) as hops, (array_agg(gr.animal_id order by ${forward ? 'gr.a' : 'gr.b desc'}))[1] as via
          from grouped gr group by gr.u, gr.g),
      contacts as (
        select distinct on (o.id) o.id, o.animal_id, o.control_unit_id, o.establishment_id, o.ts_from, o.ts_to, c.t, i.hops, i.via, i.u, c.t
          from islands i
          join animal_stay o on o.control_unit_id = i.u and tstzrange(o.ts_from, o.ts_to, '[]') && tstzrange(i.a, i.b, '[]')
                            and o.ts_from <= i.b and coalesce(o.ts_to, t_now) >= i.a
          cross join lateral (select ${forward ? 'greatest(o.ts_from, i.a)' : 'least(coalesce(o.ts_to, t_now), i.b)'} as t) c
         order by o.id, c.t ${forward ? '' : 'desc'}, i.hops)
      insert into trace_walked as w select c.*, null, r from contacts c
      ${upsert('w.path_hops', 'r')};`;
}

/**
 * The outbreak trace's walk (DOMAIN.md, "Tracing"), faster than Migration0019Trace's `trace_reach`
 * on the same definitions:
 * - a reached animal's whole onward (backward: earlier) path is taken in one step from the index on
 *   (animal, from), one hop per move, instead of one round per move: the rounds count contacts;
 * - the contacts at a unit are found through a GiST index on the unit and the stay's span
 *   (`tstzrange`, btree_gist for the uuid): an island reads the stays overlapping it, not every
 *   earlier stay of the unit (an auction's or a slaughterhouse's history is tens of thousands);
 * - both indexes include the columns the walk reads (index-only scans: no heap page per stay).
 * Answers are a walk's result stored per request (`trace_run`, `trace_answer`: unlogged, a cache
 * dropped after ten minutes) so that the pages of one request, the CSV's, read it instead of
 * walking again.
 */
export class Migration0024TraceWalk extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists btree_gist');
    // Both carry the columns the walk reads, so a vacuumed table answers from the index alone.
    this.addSql(`create index animal_stay_unit_during on animal_stay using gist (control_unit_id, tstzrange(ts_from, ts_to, '[]')) include (id, animal_id, establishment_id, ts_from, ts_to)`);
    this.addSql('create index animal_stay_path on animal_stay (animal_id, ts_from) include (id, control_unit_id, establishment_id, ts_to)');
    this.addSql('drop index if exists animal_stay_animal');
    this.addSql('drop index if exists animal_stay_unit_span');
    this.addSql('drop function if exists trace_reach(bigint[], timestamptz, timestamptz, boolean, integer)');
    this.addSql(`create unlogged table trace_run (
        id uuid primary key,
        int_total integer not null,
        establishments jsonb not null,
        ts_created_at timestamptz not null default now()
      )`);
    this.addSql('create index trace_run_created on trace_run (ts_created_at)');
    this.addSql(`create unlogged table trace_answer (
        run_id uuid not null references trace_run (id) on delete cascade,
        ord integer not null,
        animal_id uuid not null,
        int_hops integer not null,
        via_animal_id uuid null,
        via_control_unit_id uuid null,
        ts_via timestamptz null,
        primary key (run_id, ord)
      )`);
    this.addSql(`create or replace function trace_walk(p_seed bigint[], p_from timestamptz, p_to timestamptz, p_forward boolean, p_max_hops integer)
returns table (stay_id bigint, animal_id uuid, control_unit_id uuid, establishment_id uuid, ts_exposure timestamptz, int_hops integer, via_animal_id uuid, via_control_unit_id uuid, ts_via timestamptz)
language plpgsql set work_mem = '64MB' as $fn$
declare
  r integer := 0;
  changed integer;
  t_now timestamptz := now();
begin
  create temp table if not exists trace_walked (
    stay_id bigint primary key, animal_id uuid not null, control_unit_id uuid not null, establishment_id uuid not null, s_from timestamptz not null, s_to timestamptz,
    t timestamptz not null, hops integer not null, via_animal uuid, via_unit uuid, via_at timestamptz, path_hops integer, round integer not null
  ) on commit drop;
  create index if not exists trace_walked_round on trace_walked (round);
  truncate trace_walked;
  insert into trace_walked
    select s.id, s.animal_id, s.control_unit_id, s.establishment_id, s.ts_from, s.ts_to,
           case when p_forward then greatest(p_from, s.ts_from) else least(p_to, coalesce(s.ts_to, t_now)) end, 0, null, null, null, null, 0
      from animal_stay s where s.id = any(p_seed);
  loop
    r := r + 1;
    if p_forward then${round(true).replace(/\n/g, '\n  ')}
    else${round(false).replace(/\n/g, '\n  ')}
    end if;
    get diagnostics changed = row_count;
    exit when changed = 0;
  end loop;
  return query select x.stay_id, x.animal_id, x.control_unit_id, x.establishment_id, x.t, x.hops, x.via_animal, x.via_unit, x.via_at from trace_walked x;
end
$fn$`);
  }
}
