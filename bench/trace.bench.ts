/**
 * The outbreak trace at national scale, on PostgreSQL (DATABASE_URL; a scratch database
 * `bench_trace` is created and dropped). Generates set-based BENCH_TRACE_ANIMALS animals (default
 * 1,000,000) over BENCH_TRACE_ESTABLISHMENTS establishments (default 20,000, one unit each; the
 * first 40 are hubs: auctions and feedlots), each animal with 3–5 stays over ~two years (2–4 moves;
 * a stay at a hub lasts 1–3 days, elsewhere 30–150), the last one at a slaughterhouse for a fifth of
 * them. Then, as an AUTHORITY of the UF, over HTTP: a forward trace from a hub over a 90-day window
 * with unlimited hops and a backward trace of one slaughtered animal, each BENCH_TRACE_RUNS times
 * (default 5): the first page (50) and the whole answer (Accept: text/csv, streamed), p50 and p95,
 * the answer's size, and the service's resident memory. Run: DATABASE_URL=postgres://... npm run bench:trace
 */
import 'reflect-metadata';
import type { Service } from '../src/server.js';
import { benchCounties, benchOwner, exitWhenDone, onPostgres, postJson, serve } from './support.js';

const ANIMALS = Number(process.env.BENCH_TRACE_ANIMALS ?? 1_000_000);
const ESTABLISHMENTS = Number(process.env.BENCH_TRACE_ESTABLISHMENTS ?? 20_000);
const HUBS = 40;
const PASSWORD = 'bench-password-1';
const RUNS = Number(process.env.BENCH_TRACE_RUNS ?? 5);
const DAY = 86_400_000;
const EPOCH = Date.UTC(2024, 0, 1);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function generate(service: Service): Promise<{ hubEstablishment: string; slaughtered: string; window: [string, string] }> {
  const em = service.orm.em.fork();
  const [county] = await benchCounties(service, 1);
  const { org: organization } = await benchOwner(service, PASSWORD);
  const org = organization.id;
  const started = performance.now();
  await em.execute('select setseed(0.42)');
  await em.execute(
    `insert into establishment (id, organization_id, county_id, str_name, str_type, str_socioenvironmental_status)
     select gen_random_uuid(), ?, ?, 'Est ' || lpad(g::text, 6, '0'),
            case when g <= ${HUBS / 2} then 'AUCTION' when g <= ${HUBS} then 'FEEDLOT' when g % 50 = 0 then 'SLAUGHTERHOUSE' else 'FARM' end,
            case when g % 97 = 0 then 'NON_COMPLIANT' else 'COMPLIANT' end
       from generate_series(1, ${ESTABLISHMENTS}) g`,
    [org, county],
  );
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) select gen_random_uuid(), e.id, 'TR-' || e.str_name, 'Curral', 'PRODUCTION' from establishment e where e.organization_id = ?`, [org]);
  await em.execute(
    `create unlogged table bench_unit as
       select row_number() over (order by e.str_name)::int as ix, cu.id, cu.establishment_id, e.str_type
         from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?`,
    [org],
  );
  await em.execute('create index on bench_unit (ix)');
  const slaughterhouses = `(select array_agg(ix) from bench_unit where str_type = 'SLAUGHTERHOUSE')`;
  // Each animal: 3–5 stays; a hub stay 1–3 days, any other 30–150; one day in transit between stays.
  await em.execute(
    `create unlogged table bench_leg as
       with a as (select g as n, gen_random_uuid() as id, (random() * 300)::int as born, 3 + (random() * 2.99)::int as legs from generate_series(1, ${ANIMALS}) g),
       l as (
         select a.id, a.n, k, a.legs, a.born,
                case when k = a.legs and a.n % 5 = 0 then (${slaughterhouses})[1 + (a.n % 400) % array_length(${slaughterhouses}, 1)]
                     when k > 1 and random() < 0.3 then 1 + (random() * ${HUBS - 1})::int
                     else ${HUBS + 1} + (random() * ${ESTABLISHMENTS - HUBS - 1})::int end as ix
           from a cross join lateral generate_series(1, a.legs) k)
       select l.*, case when l.ix <= ${HUBS} then 1 + (random() * 2)::int else 30 + (random() * 120)::int end as days from l`,
  );
  await em.execute(
    `insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at, str_status)
     select l.id, 'BOVINE', case when l.n % 2 = 0 then 'MALE' else 'FEMALE' end, u.id, ?::timestamptz + l.born * interval '1 day',
            case when l.n % 5 = 0 then 'SLAUGHTERED' else 'ACTIVE' end
       from bench_leg l join bench_unit u on u.ix = l.ix where l.k = l.legs`,
    [new Date(EPOCH).toISOString()],
  );
  await em.execute(
    `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to)
     select s.id, u.id, u.establishment_id, s.t_from, case when s.k = s.legs and s.n % 5 <> 0 then null else s.t_from + s.days * interval '1 day' end
       from (select l.*, ?::timestamptz + (l.born + coalesce(sum(l.days + 1) over (partition by l.id order by l.k rows between unbounded preceding and 1 preceding), 0)) * interval '1 day' as t_from
               from bench_leg l) s
       join bench_unit u on u.ix = s.ix`,
    [new Date(EPOCH).toISOString()],
  );
  await em.execute('analyze animal_stay');
  await em.execute('analyze animal');
  const [counts] = await em.execute<{ stays: number; animals: number }[]>('select (select count(*)::int from animal_stay) as stays, (select count(*)::int from animal) as animals');
  console.log(`  generated ${counts!.animals.toLocaleString('en')} animals, ${counts!.stays.toLocaleString('en')} stays, ${ESTABLISHMENTS.toLocaleString('en')} establishments in ${seconds(performance.now() - started)}`);
  const [hub] = await em.execute<{ establishment_id: string }[]>('select establishment_id from bench_unit where ix = 1');
  const [victim] = await em.execute<{ id: string }[]>(
    `select a.id from animal a where a.str_status = 'SLAUGHTERED' and (select count(*) from animal_stay s where s.animal_id = a.id) = 5 limit 1`,
  );
  await em.execute('drop table bench_leg');
  await em.execute('drop table bench_unit');
  const from = new Date(EPOCH + 300 * DAY).toISOString();
  const to = new Date(EPOCH + 390 * DAY).toISOString();
  return { hubEstablishment: hub!.establishment_id, slaughtered: victim!.id, window: [from, to] };
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

/** An AUTHORITY of the data's county, signed in (the bench owner made into one). */
async function authority(service: Service, url: string): Promise<string> {
  const { user } = await benchOwner(service, PASSWORD);
  const em = service.orm.em.fork();
  await em.execute(`update "user" set str_type = 'AUTHORITY', county_id = (select county_id from establishment where str_name = 'Est 000001' limit 1) where id = ?`, [user.id]);
  const login = await postJson<{ data: { str_access_token: string } }>(url, '/api/login', { str_email: user.str_email, str_password: PASSWORD });
  return login.json.data.str_access_token;
}

async function measure(url: string, token: string, label: string, body: Record<string, unknown>, pid: () => number): Promise<void> {
  const firstPage: number[] = [];
  const whole: number[] = [];
  let animals = 0;
  let rows = 0;
  let bytes = 0;
  let rss = 0;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const page = await fetch(`${url}/api/trace?int_max_results=50`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await page.json()) as { meta: { int_total_results: number } };
    firstPage.push(performance.now() - t);
    animals = json.meta.int_total_results;
    t = performance.now();
    const csv = await fetch(`${url}/api/trace`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify(body) });
    const text = await csv.text();
    whole.push(performance.now() - t);
    rows = text.split('\r\n').length - 2;
    bytes = text.length;
    rss = Math.max(rss, pid());
  }
  console.log(
    `  ${label}: ${animals.toLocaleString('en')} animals, ${rows.toLocaleString('en')} CSV rows (${(bytes / 1e6).toFixed(1)} MB)` +
      ` | first page p50 ${Math.round(percentile(firstPage, 50))} ms, p95 ${Math.round(percentile(firstPage, 95))} ms` +
      ` | whole answer p50 ${seconds(percentile(whole, 50))}, p95 ${seconds(percentile(whole, 95))} | service RSS ≤ ${(rss / 1e6).toFixed(0)} MB`,
  );
}

exitWhenDone(async () => {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) {
    console.log('bench:trace needs PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
    return;
  }
  await onPostgres(pgUrl, 'bench_trace', (where) => `trace on ${where}`, async (service) => {
    const data = await generate(service);
    const url = await serve(service);
    const token = await authority(service, url);
    const rssNow = () => process.memoryUsage().rss;
    await measure(url, token, 'forward from a hub, 90 days, unlimited hops', { establishment_id: data.hubEstablishment, ts_from: data.window[0], ts_to: data.window[1], str_direction: 'FORWARD' }, rssNow);
    await measure(url, token, 'backward from one slaughtered animal, its whole life', { animal_id: data.slaughtered, ts_from: new Date(EPOCH).toISOString(), ts_to: new Date(EPOCH + 1000 * DAY).toISOString(), str_direction: 'BACKWARD' }, rssNow);
  });
});
