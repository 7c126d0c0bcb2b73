/**
 * The national herd for bench:trace, generated set-based (a handful of statements, no row from
 * Node). The shape follows how beef cattle move: an animal is born at a breeding farm (cow-calf),
 * is weaned after 6–10 months and goes, directly or through an auction, to a rearing farm, then to
 * slaughter directly or after a feedlot; a few females stay to breed. Trade is regional (each
 * region has its own auctions, feedlots and slaughterhouses; 8% of moves cross regions), farm sizes
 * are skewed (a few big holdings take many animals), a farm has 1–4 units (pastures; the biggest tenth 4–8) an animal may
 * rotate between, a feedlot 4 pens, an auction and a slaughterhouse one each. Times are fractional
 * days, so co-location is a real overlap of two stays, never a shared midnight.
 */
import crypto from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface TraceDataSpec {
  animals: number;
  establishments: number;
  epoch: number;
  /** Days from the epoch the history covers; stays still running then stay open. */
  horizon: number;
  organizationId: string;
  countyId: string;
  /** The travels' transporter (a user of the organization). */
  transporterId: string;
  /** Trucks: the moves between two establishments loaded 20–40 head to a vehicle (default true). */
  trucks?: boolean;
}

/** Per region: 2 auctions, 5 feedlots, 3 slaughterhouses; the farms 11:9 breeding to rearing. */
const AUCTIONS = 2;
const FEEDLOTS = 5;
const SLAUGHTERHOUSES = 3;
/** The paths of a life (B breeding farm, R rearing farm, A auction, F feedlot, S slaughterhouse) and their shares. */
const PATHS: [string, number][] = [
  ['BRS', 0.2],
  ['BRFS', 0.25],
  ['BARS', 0.15],
  ['BARFS', 0.15],
  ['BRAFS', 0.1],
  ['BRRS', 0.1],
  ['BB', 0.05],
];

/** Everything in one transaction (one connection: the seed and the settings hold for every statement). */
export async function generateTraceData(db: EntityManager, spec: TraceDataSpec): Promise<{ regions: number }> {
  return db.transactional((tx) => generate(timed(tx), spec));
}

async function generate(em: Execute, spec: TraceDataSpec): Promise<{ regions: number }> {
  const regions = Math.max(1, Math.round(spec.establishments / 1000));
  const perRegion = Math.floor(spec.establishments / regions);
  const hubs = AUCTIONS + FEEDLOTS + SLAUGHTERHOUSES;
  const epoch = new Date(spec.epoch).toISOString();
  let cumulative = 0;
  const pathCase = PATHS.map(([p, share]) => `when x < ${(cumulative += share).toFixed(3)} then '${p}'`).join(' ');
  await em.execute('set local jit = off');
  await em.execute('set local max_parallel_workers_per_gather = 0'); // random() in a worker ignores the seed
  // The rows are consistent by construction: foreign keys are not checked row by row (5,000,000 stays),
  // and no trigger runs, so the inserts below name each row's holder (Migration0036) themselves.
  await em.execute('set local session_replication_role = replica');
  await em.execute('select setseed(0.42)');
  await em.execute(
    `create unlogged table bench_est as
       select g, id, region, kind, (row_number() over (partition by region, kind order by g) - 1)::int as kx,
              case kind when 'F' then 4 when 'A' then 1 when 'S' then 1
                        else case when row_number() over (partition by region, kind order by g) <= count(*) over (partition by region, kind) / 10 then 4 + floor(random() * 5)::int
                                  else 1 + floor(random() * 4)::int end end as nunits
         from (select g, gen_random_uuid() as id, (g - 1) % ${regions} as region,
                      case when (g - 1) / ${regions} < ${AUCTIONS} then 'A' when (g - 1) / ${regions} < ${AUCTIONS + FEEDLOTS} then 'F'
                           when (g - 1) / ${regions} < ${hubs} then 'S' when ((g - 1) / ${regions}) % 20 < 11 then 'B' else 'R' end as kind
                 from generate_series(1, ${regions * perRegion}) g) e`,
  );
  await em.execute('create unlogged table bench_kind as select region, kind, count(*)::int as n from bench_est group by region, kind');
  await em.execute(
    `insert into establishment (id, organization_id, county_id, holder_federative_unit, str_name, str_type, str_socioenvironmental_status)
     select bench_est.id, ?, c.id, c.str_federative_unit, 'Est ' || lpad(g::text, 6, '0'),
            case kind when 'A' then 'AUCTION' when 'F' then 'FEEDLOT' when 'S' then 'SLAUGHTERHOUSE' else 'FARM' end,
            case when g % 97 = 0 then 'NON_COMPLIANT' else 'COMPLIANT' end
       from bench_est, county c where c.id = ?`,
    [spec.organizationId, spec.countyId],
  );
  await em.execute(
    `create unlogged table bench_unit as
       select e.id as establishment_id, e.g, e.region, e.kind, e.kx, u, gen_random_uuid() as id
         from bench_est e cross join lateral generate_series(0, e.nunits - 1) u`,
  );
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type, str_predominant_phase)
     select id, establishment_id, 'TR-' || lpad(g::text, 6, '0') || '-' || u, case kind when 'F' then 'Baia ' when 'B' then 'Pasto ' when 'R' then 'Pasto ' else 'Curral ' end || (u + 1),
            case kind when 'S' then 'SLAUGHTER' when 'A' then 'EVENT' else 'PRODUCTION' end,
            case kind when 'B' then 'BREEDING' when 'R' then 'REARING' when 'F' then 'FATTENING' end
       from bench_unit`,
  );
  // Each animal: its region, its path, its birth (spread so the herd is steady over the horizon).
  await em.execute(
    `create unlogged table bench_animal as
       select n, gen_random_uuid() as id, floor(random() * ${regions})::int as region, -700 + random() * ${spec.horizon + 700} as born,
              (select case ${pathCase} else 'BRS' end from (select random() as x offset 0) r where n > 0) as path
         from generate_series(1, ${spec.animals}) n`,
  );
  // Each stage of the path at an establishment of its kind (in the animal's region but for 8% of
  // moves), farms picked with a skew (random()²: big holdings), a breeding or rearing stage split
  // into 1–4 stays at consecutive units when the farm has more than one (pasture rotation). The
  // random choices are stored before they are joined (a join would evaluate random() again).
  await em.execute(
    `create unlogged table bench_pick as
       select a.n, a.id as animal_id, k, substr(a.path, k, 1) as kind, a.born, k = length(a.path) as last,
              case when k > 1 and random() < 0.08 then floor(random() * ${regions})::int else a.region end as region,
              power(random(), case when substr(a.path, k, 1) in ('B', 'R') then 2 else 1 end) as pick,
              case substr(a.path, k, 1)
                when 'B' then case when k = 1 then 180 + random() * 120 else 100000 end
                when 'R' then 200 + random() * 300
                when 'A' then 0.5 + random() * 1.5
                when 'F' then 90 + random() * 40
                else 0.3 + random() * 0.4 end as days,
              1 + floor(random() * 4)::int as parts_r, random() as u0_r, 0.5 + random() * 0.5 as transit
         from bench_animal a cross join lateral generate_series(1, length(a.path)) k`,
  );
  await em.execute('analyze bench_kind');
  await em.execute('analyze bench_est');
  // The plan of each life: the establishment each stage would go to, its arrival (the first
  // stage's at birth; the others' set move by move below) and its departure.
  await em.execute(
    `create unlogged table bench_plan as
       select p.*, e.id as establishment_id, e.nunits, e.g, e.kx, case when p.k = 1 then p.born end as t_arr, null::float8 as dep, null::int as load_n
         from bench_pick p join bench_kind c on c.region = p.region and c.kind = p.kind
         join bench_est e on e.region = p.region and e.kind = p.kind and e.kx = floor(c.n * p.pick)::int`,
  );
  await em.execute('create index on bench_plan (n, k)');
  // Trucks, move by move (the k-th move's departures follow from the earlier moves' waits): the
  // animals ready to leave for the same kind of establishment in the same region within one period
  // are loaded in the order they are ready, 20–40 to a truck (the size fixed per origin): from an
  // auction or a feedlot, its own animals of one week; from farms, which sell a calf or two a month
  // each here, the animals of one month of ten neighbouring farms of a kind (the truck collects
  // them). A truck leaves when its last animal is ready (the others wait at their farm), for the
  // establishment its first animal was bound to, and unloads there, at one unit, after one transit
  // of half a day to a day: its riders share it from loading to unloading. Without trucks each
  // animal travels alone.
  const maxMoves = PATHS.reduce((m, [p]) => Math.max(m, p.length - 1), 0);
  const trucks = spec.trucks !== false;
  for (let k = 1; k <= maxMoves; k++) {
    await em.execute(
      `create unlogged table bench_go as
         select x.*, max(x.dep) over c as depart, first_value(x.n) over c as load_n, first_value(x.to_g) over c as dest_g, first_value(x.to_est) over c as dest_est,
                first_value(x.to_nunits) over c as dest_nunits, first_value(x.to_u0) over c as dest_u0, first_value(x.transit) over c as dest_transit
           from (select y.*, ${trucks ? '(row_number() over (partition by y.region, y.kind, y.og, y.to_kind, y.period order by y.dep, y.n) - 1) / (20 + (y.og * 7 + y.region * 3) % 21)' : 'y.n'} as chunk
                   from (select p.n, p.g, p.region, p.kind, case when p.kind in ('B', 'R') then p.kx / 25 else p.kx end as og, p.t_arr + p.days as dep, p.transit, q.kind as to_kind, q.region as to_region, q.g as to_g, q.establishment_id as to_est, q.nunits as to_nunits, q.u0_r as to_u0,
                                floor((p.t_arr + p.days) / case when p.kind in ('B', 'R') then 30 else 14 end)::int as period
                           from bench_plan p join bench_plan q on q.n = p.n and q.k = p.k + 1 where p.k = ${k}) y) x
         window c as (partition by x.region, x.kind, x.og, x.to_kind, x.period, x.chunk order by x.dep, x.n rows between unbounded preceding and unbounded following)`,
    );
    await em.execute(`update bench_plan p set dep = b.depart, load_n = ${trucks ? 'b.load_n' : 'null'} from bench_go b where p.n = b.n and p.k = ${k}`);
    await em.execute(
      `update bench_plan q set t_arr = b.depart + b.dest_transit, g = b.dest_g, establishment_id = b.dest_est, nunits = b.dest_nunits, u0_r = b.dest_u0
         from bench_go b where q.n = b.n and q.k = ${k + 1}`,
    );
    await em.execute('drop table bench_go');
  }
  await em.execute('update bench_plan set dep = t_arr + days where last');
  await em.execute(
    `create unlogged table bench_stage as
       select p.n, p.animal_id, p.k, p.kind, p.born, p.establishment_id, p.nunits, p.g, p.t_arr, p.dep - p.t_arr as dur, p.load_n,
              case when p.kind in ('B', 'R') then least(p.nunits, p.parts_r) else 1 end as parts, floor(p.u0_r * p.nunits)::int as u0
         from bench_plan p`,
  );
  // The stays: a stage's parts in turn; between establishments the truck's transit.
  await em.execute(
    `create unlogged table bench_leg as
       select s.n, s.animal_id, s.k, s.kind, s.born, s.establishment_id, s.g, part, s.parts, (s.u0 + part) % s.nunits as u,
              s.dur / s.parts as days, s.t_arr + part * s.dur / s.parts as t_from, case when part = s.parts - 1 then s.load_n end as load_n
         from bench_stage s cross join lateral generate_series(0, s.parts - 1) part`,
  );
  await em.execute(`delete from bench_leg where t_from >= ${spec.horizon}`);
  await em.execute('create index on bench_leg (n, k desc, part desc)');
  await em.execute(
    `create unlogged table bench_last as
       select distinct on (l.n) l.n, l.animal_id, l.kind, l.born, u.id as unit_id, l.t_from + l.days as t_end, l.t_from + l.days < ${spec.horizon} as ended
         from bench_leg l join bench_unit u on u.g = l.g and u.u = l.u order by l.n, l.k desc, l.part desc`,
  );
  // Bulk loading: the indexes of the two big tables are built after their rows, not row by row.
  const indexes = (await em.execute(
    `select indexname as name, indexdef as def from pg_indexes where schemaname = current_schema() and tablename in ('animal', 'animal_stay') and indexname not like '%_pkey'`,
  )) as { name: string; def: string }[];
  for (const index of indexes) await em.execute(`drop index ${index.name}`);
  await em.execute(
    `insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at, str_status, ts_ended_at, holder_organization_id, holder_federative_unit, current_tag_id)
     select l.animal_id, 'BOVINE', case when l.n % 2 = 0 then 'MALE' else 'FEMALE' end, l.unit_id, ?::timestamptz + l.born * interval '1 day',
            case when l.kind = 'S' then 'SLAUGHTERED' when l.ended then 'IN_TRANSIT' else 'ACTIVE' end,
            case when l.kind = 'S' then ?::timestamptz + l.t_end * interval '1 day' end, h.holder_organization_id, h.holder_federative_unit, ${TAG_OF('l.animal_id')}
       from bench_last l left join unit_holder h on h.control_unit_id = l.unit_id`,
    [epoch, epoch],
  );
  // Every animal wears its eartag (a SISBOV code: 076 and 12 digits, handed out in an order unrelated to the animal's id).
  await em.execute(
    `insert into tag (id, str_code, str_status, animal_id, holder_organization_id, holder_federative_unit)
     select ${TAG_OF('a.id')}, '076' || lpad((row_number() over (order by random()))::text, 12, '0'), 'APPLIED', a.id, a.holder_organization_id, a.holder_federative_unit
       from animal a join bench_last l on l.animal_id = a.id`,
  );
  // The loads: each truck that left before the horizon with an animal that arrived before it, under one
  // finished egress (from its first rider's unit to the unit it unloads at) and a travel.
  await em.execute(
    `create unlogged table bench_truck as
       select l.n, l.k, l.part, l.load_n, l.t_from + l.days as t_end, u.id as from_unit, nu.id as to_unit
         from bench_leg l join bench_unit u on u.g = l.g and u.u = l.u
         join bench_leg nl on nl.n = l.n and nl.k = l.k + 1 and nl.part = 0 join bench_unit nu on nu.g = nl.g and nu.u = nl.u
        where l.load_n is not null and l.part = l.parts - 1`,
  );
  await em.execute(
    `create unlogged table bench_load as
       select t.k, t.load_n, gen_random_uuid() as egress_id, gen_random_uuid() as travel_id, gen_random_uuid() as gta_id, min(t.t_end) as t0, max(t.t_end) as t1,
              (array_agg(t.from_unit order by t.n))[1] as from_unit, (array_agg(t.to_unit order by t.n))[1] as to_unit, count(*)::int as riders
         from bench_truck t group by t.k, t.load_n`,
  );
  await em.execute('create index on bench_load (k, load_n)');
  // Each load travels under its GTA (the transit document every move between holdings needs), its purpose the destination's kind.
  await em.execute(
    `insert into gta (id, organization_id, str_code, int_animal_quantity, str_federative_unit, str_status, str_purpose, str_species,
                      from_control_unit_id, to_control_unit_id, from_establishment_id, to_establishment_id, ts_issued_at)
     select b.gta_id, ?, lpad((row_number() over (order by b.t0, b.egress_id))::text, 9, '0'), b.riders, f.holder_federative_unit, 'RECEIVED',
            case e.kind when 'S' then 'SLAUGHTER' when 'A' then 'AUCTION' when 'B' then 'BREEDING' else 'FATTENING' end, 'BOVINE',
            b.from_unit, b.to_unit, fu.establishment_id, tu.establishment_id, ?::timestamptz + b.t0 * interval '1 day'
       from bench_load b join control_unit fu on fu.id = b.from_unit join control_unit tu on tu.id = b.to_unit join bench_est e on e.id = tu.establishment_id
       join unit_holder f on f.control_unit_id = b.from_unit`,
    [spec.organizationId, epoch],
  );
  await em.execute(
    `insert into animals_egress (id, from_control_unit_id, to_control_unit_id, str_status, bl_move_with_tag_reading, int_tag_count, ts_finished_at,
                                 from_holder_organization_id, from_holder_federative_unit, to_holder_organization_id, to_holder_federative_unit, gta_id)
     select b.egress_id, b.from_unit, b.to_unit, 'RECEIVED', true, 0, ?::timestamptz + b.t1 * interval '1 day',
            f.holder_organization_id, f.holder_federative_unit, t.holder_organization_id, t.holder_federative_unit, b.gta_id
       from bench_load b join unit_holder f on f.control_unit_id = b.from_unit join unit_holder t on t.control_unit_id = b.to_unit`,
    [epoch],
  );
  const vehicleId = crypto.randomUUID();
  await em.execute(`insert into vehicle (id, organization_id, str_license_plate) values (?, ?, 'BEN1C23')`, [vehicleId, spec.organizationId]);
  await em.execute(
    `insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time)
     select b.travel_id, ?, ?, b.from_unit, b.to_unit, 'IN_PROGRESS', ?::timestamptz + b.t0 * interval '1 day' from bench_load b where b.from_unit <> b.to_unit`,
    [vehicleId, spec.transporterId, epoch],
  );
  await em.execute(
    `insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at)
     select gen_random_uuid(), b.travel_id, b.egress_id, ?::timestamptz + b.t0 * interval '1 day' from bench_load b where b.from_unit <> b.to_unit`,
    [epoch],
  );
  await em.execute('create index on bench_truck (n, k, part)');
  // A stay is open when the animal is still there at the horizon (or it is a breeding female's last).
  await em.execute(
    `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_egress_id, holder_organization_id, holder_federative_unit)
     select l.animal_id, u.id, u.establishment_id, ?::timestamptz + l.t_from * interval '1 day',
            case when l.t_from + l.days >= ${spec.horizon} and l.kind <> 'S' then null else ?::timestamptz + (l.t_from + l.days) * interval '1 day' end, b.egress_id,
            h.holder_organization_id, h.holder_federative_unit
       from bench_leg l join bench_unit u on u.g = l.g and u.u = l.u join unit_holder h on h.control_unit_id = u.id
       left join bench_truck t on t.n = l.n and t.k = l.k and t.part = l.part
       left join bench_load b on b.k = t.k and b.load_n = t.load_n`,
    [epoch, epoch],
  );
  await em.execute('set local maintenance_work_mem = \'256MB\'');
  // A partitioned table's index reads back as `ON ONLY` (the parent alone, left invalid): built again on every partition.
  for (const index of indexes) await em.execute(index.def.replace(' ON ONLY ', ' ON '));
  // No trigger logged these stays in trace_change: the stale mark makes a trace graph that did not see
  // this transaction read every stay again (Migration0075TraceGraphStale; docs/operations.md).
  await em.execute('select trace_graph_stale()');
  return { regions };
}

/** An animal's eartag's id, derived from the animal's: the animal names its tag before the tag's row exists. */
const TAG_OF = (animalId: string) => `md5('tag' || ${animalId}::text)::uuid`;

/** The scratch tables the generation leaves, for the bench to pick its questions from and then drop. */
export const TRACE_SCRATCH = ['bench_est', 'bench_kind', 'bench_unit', 'bench_animal', 'bench_pick', 'bench_plan', 'bench_stage', 'bench_leg', 'bench_last', 'bench_truck', 'bench_load'];

interface Execute {
  execute: (sql: string, params?: unknown[]) => Promise<unknown>;
}

/** The entity manager's execute, each statement's time printed with BENCH_TRACE_VERBOSE=1. */
function timed(em: EntityManager): Execute {
  return {
    execute: async (sql, params) => {
      const t = performance.now();
      const out = await em.execute(sql, params);
      if (process.env.BENCH_TRACE_VERBOSE === '1') console.log(`    ${((performance.now() - t) / 1000).toFixed(1)} s  ${sql.replace(/\s+/g, ' ').slice(0, 90)}`);
      return out;
    },
  };
}
