/**
 * EUDR due diligence at national scale, on PostgreSQL (DATABASE_URL; a scratch database, `bench_eudr` or
 * BENCH_EUDR_DATABASE, is created and dropped). The herd is bench:trace's (bench/trace-data.ts, imported:
 * BENCH_EUDR_ANIMALS, default 1,000,000, and BENCH_EUDR_ESTABLISHMENTS, default 20,000), every
 * establishment then given a point with six decimals and a CAR. As the organization holding the
 * lots, over HTTP, BENCH_EUDR_RUNS times each (default 10): POST /api/eudr/geolocation for
 * (1) a slaughterhouse unit and the window holding about BENCH_EUDR_DAY_LOT animals it slaughtered
 * (default 500: one day's slaughter of a large plant; the generated plants slaughter fewer a day, so
 * the window is as many days as that takes, at most 31), (2) 5,000 slaughtered animals by id, and
 * (3) the verdict of (2). p50 and p95 with the load average, the SQL statements of each (flat in the
 * lot's size), the establishments and the answer's bytes; then the reader's statement alone, in
 * process, for the share of PostgreSQL in each answer.
 * Run: DATABASE_URL=postgres://... npm run bench:eudr
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import type { Service } from '../src/server.js';
import { lotHoldingsQuery, readLotHoldings, type EudrLot } from '../src/eudr/eudr.reader.js';
import { benchCounties, benchOwner, exitWhenDone, onPostgres, serve, signIn } from './support.js';
import { generateTraceData, TRACE_SCRATCH } from './trace-data.js';

const ANIMALS = Number(process.env.BENCH_EUDR_ANIMALS ?? 1_000_000);
const ESTABLISHMENTS = Number(process.env.BENCH_EUDR_ESTABLISHMENTS ?? 20_000);
const RUNS = Number(process.env.BENCH_EUDR_RUNS ?? 10);
const DAY_LOT = Number(process.env.BENCH_EUDR_DAY_LOT ?? 500);
const BIG_LOT = 5000;
const PASSWORD = 'bench-password-1';
/** The scratch database (a shared server: give each run its own name). */
const SCRATCH = process.env.BENCH_EUDR_DATABASE ?? 'bench_eudr';
const DAY = 86_400_000;
const EPOCH = Date.UTC(2024, 0, 1);
const HORIZON = 1000;

const load = () => `[load ${loadavg().map((l) => l.toFixed(2)).join(' ')}]`;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

interface Lots {
  token: string;
  dayLot: { control_unit_id: string; ts_from: string; ts_to: string };
  dayLotAnimals: number;
  bigLot: { lst_animal_ids: string[] };
}

async function generate(service: Service, url: string): Promise<Lots> {
  const em = service.orm.em.fork();
  const [county] = await benchCounties(service, 1);
  const { org, user } = await benchOwner(service, PASSWORD);
  const started = performance.now();
  await generateTraceData(em, { animals: ANIMALS, establishments: ESTABLISHMENTS, epoch: EPOCH, horizon: HORIZON, organizationId: org.id, countyId: county!, transporterId: user.id });
  for (const table of TRACE_SCRATCH) await em.execute(`drop table ${table}`);
  // Every holding located in Brazil's interior with six decimals, and registered in the CAR.
  await em.execute(
    `update establishment set num_longitude = round((-60 + random() * 15)::numeric, 6)::float8, num_latitude = round((-20 + random() * 12)::numeric, 6)::float8,
            str_car = 'ZB-0090000-' || upper(replace(id::text, '-', '')), dec_area = round((50 + random() * 2000)::numeric, 1)`,
  );
  await em.execute('vacuum analyze animal_stay');
  await em.execute('vacuum analyze animal');
  await em.execute('analyze establishment');
  const [counts] = await em.execute<{ animals: number; stays: number }[]>('select (select count(*)::int from animal) as animals, (select count(*)::int from animal_stay) as stays');
  console.log(`  generated ${counts!.animals.toLocaleString('en')} animals, ${counts!.stays.toLocaleString('en')} stays, ${ESTABLISHMENTS.toLocaleString('en')} establishments in ${((performance.now() - started) / 1000).toFixed(1)} s ${load()}`);

  // The busiest slaughterhouse unit, and the window of its last slaughter days that holds about DAY_LOT animals.
  const ended = `from animal_stay s join animal a on a.id = s.animal_id where a.str_status = 'SLAUGHTERED' and s.animals_egress_id is null and s.ts_to is not null`;
  const [plant] = await em.execute<{ unit: string; last: Date }[]>(`select s.control_unit_id as unit, max(s.ts_to) as last ${ended} group by s.control_unit_id order by count(*) desc limit 1`);
  const [window] = await em.execute<{ from: Date; n: number }[]>(
    `select min(x.ts_to) as from, count(*)::int as n from (select s.ts_to ${ended} and s.control_unit_id = ? and s.ts_to > ?::timestamptz - interval '31 days' order by s.ts_to desc limit ?) x`,
    [plant!.unit, plant!.last, DAY_LOT],
  );
  const dayLot = { control_unit_id: plant!.unit, ts_from: new Date(window!.from).toISOString(), ts_to: new Date(new Date(plant!.last).getTime() + 1).toISOString() };
  const big = await em.execute<{ id: string }[]>(`select a.id from animal a where a.str_status = 'SLAUGHTERED' order by a.ts_ended_at desc, a.id limit ${BIG_LOT}`);
  const token = await signIn(url, user.str_email, PASSWORD, org.id);
  const days = (new Date(dayLot.ts_to).getTime() - new Date(dayLot.ts_from).getTime()) / DAY;
  console.log(`  lots: ${window!.n} animals slaughtered at one unit in ${days.toFixed(1)} days; ${big.length} slaughtered animals by id`);
  return { token, dayLot, dayLotAnimals: window!.n, bigLot: { lst_animal_ids: big.map((r) => r.id) } };
}

async function measure(url: string, token: string, label: string, path: string, body: unknown): Promise<void> {
  const times: number[] = [];
  let sql = '';
  let bytes = 0;
  let establishments = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    const text = await res.text();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${text.slice(0, 500)}`);
    sql = res.headers.get('x-sql-statements') ?? '?';
    bytes = Buffer.byteLength(text);
    const json = JSON.parse(text) as { features?: unknown[]; data?: { int_establishments: number } };
    establishments = json.features?.length ?? json.data?.int_establishments ?? 0;
  }
  console.log(
    `  ${label}: ${establishments.toLocaleString('en')} establishments, ${(bytes / 1000).toFixed(1)} kB, ${sql} SQL statements, ${RUNS} runs | p50 ${Math.round(percentile(times, 50))} ms, p95 ${Math.round(percentile(times, 95))} ms ${load()}`,
  );
}

/** The reader's one statement alone, in process (no HTTP, GraphQL or JSON): how much of an answer's time is PostgreSQL's, under the same load. */
async function measureStatement(service: Service, label: string, lot: EudrLot, expected: number | null): Promise<void> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    rows = (await readLotHoldings(service.db, lot, { sql: 'true', params: [] }, expected, new Date())).length;
    times.push(performance.now() - started);
  }
  if (process.env.BENCH_EUDR_EXPLAIN === '1') {
    const q = lotHoldingsQuery(lot, { sql: 'true', params: [] }, expected, new Date());
    const plan = await service.db.rows<Record<string, string>>({ sql: `explain (analyze, buffers) ${q.sql}`, params: q.params });
    console.log(plan.map((r) => Object.values(r)[0]).join('\n'));
  }
  console.log(`  ${label}, the statement alone: ${rows.toLocaleString('en')} establishments, ${RUNS} runs | p50 ${Math.round(percentile(times, 50))} ms, p95 ${Math.round(percentile(times, 95))} ms ${load()}`);
}

exitWhenDone(async () => {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) {
    console.log('bench:eudr needs PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
    return;
  }
  await onPostgres(pgUrl, SCRATCH, (where) => `EUDR geolocation on ${where}, ${ANIMALS.toLocaleString('en')} animals`, async (service) => {
    const url = await serve(service);
    const lots = await generate(service, url);
    await measure(url, lots.token, `GeoJSON, slaughterhouse unit and window (${lots.dayLotAnimals} animals)`, '/api/eudr/geolocation', lots.dayLot);
    await measure(url, lots.token, `GeoJSON, ${lots.bigLot.lst_animal_ids.length} animals by id`, '/api/eudr/geolocation', lots.bigLot);
    await measure(url, lots.token, `verdict, ${lots.bigLot.lst_animal_ids.length} animals by id`, '/api/eudr/verdict', lots.bigLot);
    const d = lots.dayLot;
    await measureStatement(service, 'slaughterhouse unit and window', { kind: 'slaughter', controlUnitId: d.control_unit_id, from: new Date(d.ts_from), to: new Date(d.ts_to) }, null);
    await measureStatement(service, `${lots.bigLot.lst_animal_ids.length} animals by id`, { kind: 'animals', animalIds: lots.bigLot.lst_animal_ids }, lots.bigLot.lst_animal_ids.length);
  });
});
