/**
 * EPCIS out (issue 20) at scale, over HTTP on PostgreSQL: a scratch database `bench_epcis` on
 * DATABASE_URL. One organization with a farm and a feedlot; BENCH_IDENTIFICATIONS (default 200)
 * identifications of BENCH_BATCH (default 500) animals each at the farm, and the first BENCH_MOVES
 * (default 40) batches moved to the feedlot (an egress and an ingress each, under a GTA), all written
 * set-based. Then times BENCH_REPS (default 5) requests of each: the first page of
 * GET /api/epcis/events (50 events), the page after it, MATCH_epc of one animal, EQ_bizStep=shipping,
 * and GET /api/animals/{id}/epcis of a moved animal. Prints median, min–max and SQL statements, with
 * the load average before each figure.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:epcis
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import type { Service } from '../src/server.js';
import { benchCounties, benchOwner, exitWhenDone, onPostgres, serve, signIn } from './support.js';
import { SET_HOLDER_OF_UNIT } from '../src/places/unit-holder.js';

const IDENTIFICATIONS = Number(process.env.BENCH_IDENTIFICATIONS ?? 200);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const MOVES = Math.min(IDENTIFICATIONS, Number(process.env.BENCH_MOVES ?? 40));
const REPS = Number(process.env.BENCH_REPS ?? 5);
const PASSWORD = 'bench-password-1';

interface Got {
  status: number;
  body: { epcisBody?: { queryResults?: { resultsBody: { eventList: unknown[] } }; eventList?: unknown[] } };
  link: string | null;
  sql: string | null;
  ms: number;
}

async function get(url: string, path: string, token: string): Promise<Got> {
  const started = performance.now();
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Got['body'];
  return { status: res.status, body, link: res.headers.get('link'), sql: res.headers.get('x-sql-statements'), ms: performance.now() - started };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The farm's identifications with their animals, tags and stays, and the first MOVES batches moved to the feedlot: set-based. */
async function generate(service: Service, farm: { unit: string; establishment: string }, feedlot: { unit: string; establishment: string }, organizationId: string): Promise<void> {
  // One transaction: one connection, which the temporary table lives on.
  await service.orm.em.fork().transactional(async (em) => {
    await em.execute('create temp table bench_ident (ord int primary key, id uuid, egress_id uuid, ingress_id uuid, gta_id uuid, at timestamptz)');
    await em.execute(
      `insert into bench_ident select g, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), now() - interval '400 days' + g * interval '1 hour' from generate_series(1, ?) g`,
      [IDENTIFICATIONS],
    );
    await em.execute(`insert into tags_identification (id, control_unit_id, int_animal_count, ts_created_at, ts_updated_at) select id, ?, ?, at, at from bench_ident`, [farm.unit, BATCH]);
    await em.execute(
      `insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id)
       values (gen_random_uuid(), 'BENCH-EPCIS', '076800000000001', lpad((76800000000000 + ?)::text, 15, '0'), ?, 'DEPLETED', ?)`,
      [IDENTIFICATIONS * BATCH, IDENTIFICATIONS * BATCH, farm.unit],
    );
    await em.execute(
      `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id)
       select gen_random_uuid(), lpad((76800000000000 + g)::text, 15, '0'), 'AVAILABLE', (select id from tags_box where str_code = 'BENCH-EPCIS'), ? from generate_series(1, ?) g`,
      [farm.unit, IDENTIFICATIONS * BATCH],
    );
    await em.execute(
      `insert into animal (id, str_species, str_gender, current_tag_id, last_control_unit_id, tags_identification_id, ts_identified_at, ts_created_at, ts_updated_at)
       select gen_random_uuid(), 'BOVINE', 'FEMALE', t.id, ?, b.id, b.at, b.at, b.at
         from (select id, row_number() over (order by str_code) as n from tag where tags_box_id = (select id from tags_box where str_code = 'BENCH-EPCIS')) t
         join bench_ident b on b.ord = (t.n - 1) / ? + 1`,
      [farm.unit, BATCH],
    );
    await em.execute(`update tag set str_status = 'APPLIED', animal_id = a.id, last_control_unit_id = null from animal a where a.current_tag_id = tag.id`);
    await em.execute(`insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) select a.id, a.last_control_unit_id, ?, a.ts_identified_at from animal a where a.last_control_unit_id = ?`, [farm.establishment, farm.unit]);
    // The first MOVES batches: a GTA, an egress finished and received, an ingress received, the stays moved.
    await em.execute(
      `insert into gta (id, organization_id, str_code, int_animal_quantity, str_federative_unit, str_status, str_purpose, from_control_unit_id, to_control_unit_id, from_establishment_id, to_establishment_id, ts_issued_at, ts_valid_until)
       select gta_id, ?, 'B' || ord, ?, 'ZB', 'RECEIVED', 'FATTENING', ?, ?, ?, ?, at, at + interval '5 days' from bench_ident where ord <= ?`,
      [organizationId, BATCH, farm.unit, feedlot.unit, farm.establishment, feedlot.establishment, MOVES],
    );
    await em.execute(
      `insert into animals_egress (id, from_control_unit_id, to_control_unit_id, gta_id, str_status, bl_move_with_tag_reading, int_tag_count, ts_finished_at, ts_created_at, ts_updated_at)
       select egress_id, ?, ?, gta_id, 'RECEIVED', true, ?, at + interval '1 day', at + interval '1 day', at + interval '1 day' from bench_ident where ord <= ?`,
      [farm.unit, feedlot.unit, BATCH, MOVES],
    );
    await em.execute(
      `insert into animals_egress_tag (id, animals_egress_id, animal_id, tag_id, str_tag_code, ts_egress_at)
       select gen_random_uuid(), b.egress_id, a.id, a.current_tag_id, null, b.at + interval '1 day' from animal a join bench_ident b on b.id = a.tags_identification_id where b.ord <= ?`,
      [MOVES],
    );
    await em.execute(
      `insert into animals_ingress (id, to_control_unit_id, str_status, bl_move_with_tag_reading, int_received_count, ts_finished_at, ts_created_at, ts_updated_at)
       select ingress_id, ?, 'RECEIVED', true, ?, at + interval '2 days', at + interval '2 days', at + interval '2 days' from bench_ident where ord <= ?`,
      [feedlot.unit, BATCH, MOVES],
    );
    await em.execute(`insert into animals_ingress_gta (id, animals_ingress_id, gta_id) select gen_random_uuid(), ingress_id, gta_id from bench_ident where ord <= ?`, [MOVES]);
    await em.execute(
      `update animal_stay s set ts_to = b.at + interval '1 day', animals_egress_id = b.egress_id from animal a join bench_ident b on b.id = a.tags_identification_id where s.animal_id = a.id and b.ord <= ?`,
      [MOVES],
    );
    await em.execute(
      `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, animals_ingress_id)
       select a.id, ?, ?, b.at + interval '2 days', b.ingress_id from animal a join bench_ident b on b.id = a.tags_identification_id where b.ord <= ?`,
      [feedlot.unit, feedlot.establishment, MOVES],
    );
    await em.execute(`update animal a set last_control_unit_id = ?, ${SET_HOLDER_OF_UNIT} from bench_ident b where b.id = a.tags_identification_id and b.ord <= ?`, [feedlot.unit, feedlot.unit, MOVES]);
  });
  await service.orm.em.fork().execute('analyze');
}

async function run(service: Service): Promise<void> {
  const { org, user } = await benchOwner(service, PASSWORD);
  const [county] = await benchCounties(service, 1);
  const em = service.orm.em.fork();
  const places: { unit: string; establishment: string }[] = [];
  for (const [type, name] of [['FARM', 'Fazenda Bench'], ['FEEDLOT', 'Confinamento Bench']] as const) {
    const [row] = await em.execute<{ establishment: string; unit: string }[]>(
      `with e as (insert into establishment (id, organization_id, county_id, str_name, str_type) values (gen_random_uuid(), ?, ?, ?, ?) returning id)
       insert into control_unit (id, establishment_id, str_code, str_name, str_type) select gen_random_uuid(), e.id, 'BENCH-' || left(e.id::text, 8), 'Curral', 'PRODUCTION' from e returning id as unit, establishment_id as establishment`,
      [org.id, county, name, type],
    );
    places.push(row!);
  }
  const [farm, feedlot] = places as [{ unit: string; establishment: string }, { unit: string; establishment: string }];
  const started = performance.now();
  await generate(service, farm, feedlot, org.id);
  console.log(`  generated ${IDENTIFICATIONS} identifications of ${BATCH} animals (${IDENTIFICATIONS * BATCH}), ${MOVES} batches moved (egress + ingress) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const url = await serve(service);
  const token = await signIn(url, user.str_email, PASSWORD, org.id);
  const [moved] = await em.execute<{ id: string; str_code: string }[]>(
    `select a.id, t.str_code from animal a join tag t on t.id = a.current_tag_id where a.last_control_unit_id = ? order by t.str_code limit 1`,
    [feedlot.unit],
  );
  const first = await get(url, '/api/epcis/events?perPage=50', token);
  const second = /^<([^>]+)>/.exec(first.link ?? '')?.[1];
  if (first.status !== 200 || !second) throw new Error(`first page: ${first.status} ${JSON.stringify(first.body).slice(0, 500)}`);
  const cases: [string, string][] = [
    ['GET /api/epcis/events?perPage=50 (first page)', '/api/epcis/events?perPage=50'],
    ['the page after it (nextPageToken)', second],
    ['MATCH_epc of one animal', `/api/epcis/events?MATCH_epc=urn:pnib:animal:${moved!.str_code}`],
    ['EQ_bizStep=shipping, perPage=50', '/api/epcis/events?EQ_bizStep=shipping&perPage=50'],
    ['GET /api/animals/{id}/epcis (a moved animal)', `/api/animals/${moved!.id}/epcis`],
  ];
  console.log(`  ${'request'.padEnd(48)} ${'median'.padStart(8)} ${'min-max'.padStart(12)}  events  SQL  load average (1 min) before`);
  for (const [label, path] of cases) {
    const ms: number[] = [];
    const loads: number[] = [];
    let last: Got | null = null;
    for (let i = 0; i < REPS; i++) {
      loads.push(loadavg()[0]!);
      last = await get(url, path, token);
      if (last.status !== 200) throw new Error(`${label}: ${last.status} ${JSON.stringify(last.body).slice(0, 500)}`);
      ms.push(last.ms);
    }
    const events = (last!.body.epcisBody?.queryResults?.resultsBody.eventList ?? last!.body.epcisBody?.eventList ?? []).length;
    console.log(
      `  ${label.padEnd(48)} ${`${median(ms).toFixed(0)} ms`.padStart(8)} ${`${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)}`.padStart(12)}  ${String(events).padStart(6)}  ${String(last!.sql).padStart(3)}  ${loads.map((l) => l.toFixed(1)).join(' ')}`,
    );
  }
}

exitWhenDone(async () => {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) throw new Error('DATABASE_URL (an admin connection to PostgreSQL) is required: the bench makes a scratch database bench_epcis');
  await onPostgres(pgUrl, 'bench_epcis', (where) => `EPCIS out on ${where}`, async (service) => run(service));
});
