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
import { request } from 'node:http';
import type { Service } from '../src/server.js';
import { benchCounties, benchOwner, exitWhenDone, onPostgres, postJson, serve } from './support.js';
import { generateTraceData, TRACE_SCRATCH } from './trace-data.js';

const ANIMALS = Number(process.env.BENCH_TRACE_ANIMALS ?? 1_000_000);
const ESTABLISHMENTS = Number(process.env.BENCH_TRACE_ESTABLISHMENTS ?? 20_000);
const PASSWORD = 'bench-password-1';
const RUNS = Number(process.env.BENCH_TRACE_RUNS ?? 5);
const DAY = 86_400_000;
const EPOCH = Date.UTC(2024, 0, 1);
/** The history covers 1,000 days from the epoch (to late 2026); the forward trace's 90 days end 200 days before that. */
const HORIZON = 1000;
const WINDOW: [number, number] = [710, 800];

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function generate(service: Service): Promise<{ hubEstablishment: string; slaughtered: string; window: [string, string]; victimWindow: [string, string] }> {
  const em = service.orm.em.fork();
  const [county] = await benchCounties(service, 1);
  const { org } = await benchOwner(service, PASSWORD);
  let started = performance.now();
  const { regions } = await generateTraceData(em, { animals: ANIMALS, establishments: ESTABLISHMENTS, epoch: EPOCH, horizon: HORIZON, organizationId: org.id, countyId: county! });
  const generated = performance.now() - started;
  started = performance.now();
  // Vacuumed as autovacuum would have by then: the visibility map lets the walk read its indexes alone.
  await em.execute('vacuum analyze animal_stay');
  await em.execute('vacuum analyze animal');
  await em.execute('analyze control_unit');
  const [counts] = await em.execute<{ stays: number; animals: number; units: number }[]>(
    'select (select count(*)::int from animal_stay) as stays, (select count(*)::int from animal) as animals, (select count(*)::int from control_unit) as units',
  );
  console.log(
    `  generated ${counts!.animals.toLocaleString('en')} animals, ${counts!.stays.toLocaleString('en')} stays, ${ESTABLISHMENTS.toLocaleString('en')} establishments` +
      ` (${counts!.units.toLocaleString('en')} units, ${regions} regions) in ${seconds(generated)} (+ ${seconds(performance.now() - started)} vacuum and analyze)`,
  );
  // The hub: the first auction of region 0. The victim: an animal slaughtered after a full life (5 stays) within the window's last days.
  const [hub] = await em.execute<{ id: string }[]>(`select id from bench_est where kind = 'A' order by g limit 1`);
  const [victim] = await em.execute<{ animal_id: string; t_end: number }[]>(
    `select l.animal_id, l.t_end from bench_last l where l.kind = 'S' and l.ended and l.t_end between ${WINDOW[1] - 10} and ${WINDOW[1]}
        and (select count(*) from animal_stay s where s.animal_id = l.animal_id) = 5 order by l.n limit 1`,
  );
  // Kept with the database (BENCH_KEEP_DATABASE=1) for looking at the shape.
  if (process.env.BENCH_KEEP_DATABASE !== '1') for (const table of TRACE_SCRATCH) await em.execute(`drop table ${table}`);
  const at = (days: number) => new Date(EPOCH + days * DAY).toISOString();
  return { hubEstablishment: hub!.id, slaughtered: victim!.animal_id, window: [at(WINDOW[0]), at(WINDOW[1])], victimWindow: [at(victim!.t_end - 90), at(victim!.t_end)] };
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

/**
 * POSTs over node:http (no client timeout: a national trace takes minutes here) and reads the answer
 * as it streams, counting bytes and lines without keeping a CSV (the service shares this process,
 * so a client holding 300 MB would hide what the service holds); a JSON answer is kept and parsed.
 */
function post(url: string, token: string, body: unknown, csv: boolean): Promise<{ status: number; json: unknown; bytes: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/trace${csv ? '' : '?int_max_results=50'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: csv ? 'text/csv' : 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      let lines = 0;
      const kept: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        if (!csv) kept.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: csv ? null : JSON.parse(Buffer.concat(kept).toString('utf8')), bytes, lines }));
    });
    req.end(JSON.stringify(body));
  });
}

/** The process's resident memory, sampled every 50 ms while `work` runs: the peak. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const value = await work();
    return { value, peak: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(timer);
  }
}

async function measure(url: string, token: string, label: string, body: Record<string, unknown>): Promise<void> {
  const firstPage: number[] = [];
  const whole: number[] = [];
  let animals = 0;
  let rows = 0;
  let bytes = 0;
  let peak = 0;
  const before = process.memoryUsage().rss;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const page = await post(url, token, body, false);
    firstPage.push(performance.now() - t);
    if (page.status !== 200) throw new Error(`${label}: ${page.status} ${JSON.stringify(page.json)}`);
    animals = (page.json as { meta: { int_total_results: number } }).meta.int_total_results;
    t = performance.now();
    const csv = await peakRss(() => post(url, token, body, true));
    whole.push(performance.now() - t);
    if (csv.value.status !== 200) throw new Error(`${label} (CSV): ${csv.value.status}`);
    rows = csv.value.lines - 1;
    bytes = csv.value.bytes;
    peak = Math.max(peak, csv.peak);
  }
  console.log(
    `  ${label}: ${animals.toLocaleString('en')} animals, ${rows.toLocaleString('en')} CSV rows (${(bytes / 1e6).toFixed(1)} MB)` +
      ` | first page p50 ${Math.round(percentile(firstPage, 50))} ms, p95 ${Math.round(percentile(firstPage, 95))} ms` +
      ` | whole answer p50 ${seconds(percentile(whole, 50))}, p95 ${seconds(percentile(whole, 95))}` +
      ` | process RSS ${(before / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB while streaming`,
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
    if (!RUNS) return;
    const url = await serve(service);
    const token = await authority(service, url);
    const hub = { establishment_id: data.hubEstablishment, ts_from: data.window[0], ts_to: data.window[1], str_direction: 'FORWARD' };
    // A bounded question first (the hub's animals, where they went, whom they met there), for scale.
    await measure(url, token, 'forward from a hub, 90 days, 1 hop', { ...hub, int_max_hops: 1 });
    await measure(url, token, 'forward from a hub, 90 days, unlimited hops', { establishment_id: data.hubEstablishment, ts_from: data.window[0], ts_to: data.window[1], str_direction: 'FORWARD' });
    await measure(url, token, 'backward from one slaughtered animal, its last 90 days', { animal_id: data.slaughtered, ts_from: data.victimWindow[0], ts_to: data.victimWindow[1], str_direction: 'BACKWARD' });
  });
});
