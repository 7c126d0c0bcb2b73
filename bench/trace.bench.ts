/**
 * The outbreak trace at national scale, on PostgreSQL (DATABASE_URL; a scratch database
 * `bench_trace` is created and dropped). Generates set-based BENCH_TRACE_ANIMALS animals (default
 * 1,000,000; 100000 and 300000 for the growth) over BENCH_TRACE_ESTABLISHMENTS establishments
 * (default 20,000; bench/trace-data.ts: regional trade, trucks of 20–40 head, BENCH_TRACE_TRUCKS=0
 * for none). Then, as an AUTHORITY of the UF, over HTTP: a forward trace from an auction over a
 * 90-day window with 1 hop and with unlimited hops, and a backward trace of one slaughtered animal,
 * each BENCH_TRACE_RUNS times (default 5): the first page (the establishments and 50 animals) and
 * the whole answer (Accept: text/csv, streamed), p50 and p95 with the load average, the answer's
 * size, and the service's resident memory while the CSV streams. Measured after a warm-up: the three
 * kinds of question once each from the next auction and the next slaughtered animal, and the first
 * one's CSV (BENCH_TRACE_WARM_UP=0: none).
 * BENCH_TRACE_AB=1 first compares, on the same herd, the walk of Migration0024 (`trace_walk`) with
 * today's (`trace_runs`): the animals, exposures and establishments reached, and the hops (run it
 * with BENCH_TRACE_TRUCKS=0: the old walk knows no vehicles). BENCH_TRACE_DATABASE names the scratch
 * database (default bench_trace). Run: DATABASE_URL=postgres://... npm run bench:trace
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Service } from '../src/server.js';
import { benchCounties, benchOwner, exitWhenDone, onPostgres, postJson, serve } from './support.js';
import { traceClient, type Posted } from './trace-client.js';
import { generateTraceData, TRACE_SCRATCH } from './trace-data.js';

const ANIMALS = Number(process.env.BENCH_TRACE_ANIMALS ?? 1_000_000);
const ESTABLISHMENTS = Number(process.env.BENCH_TRACE_ESTABLISHMENTS ?? 20_000);
const PASSWORD = 'bench-password-1';
const RUNS = Number(process.env.BENCH_TRACE_RUNS ?? 5);
const DAY = 86_400_000;
export const EPOCH = Date.UTC(2024, 0, 1);
/** The history covers 1,000 days from the epoch (to late 2026); the forward trace's 90 days end 200 days before that. */
const HORIZON = 1000;
export const WINDOW: [number, number] = [710, 800];

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** The machine's load average (1, 5, 15 minutes), printed beside each figure: the machine is shared. */
const load = () => `[load ${loadavg().map((l) => l.toFixed(2)).join(' ')}]`;

type Seeds = Awaited<ReturnType<typeof benchSeeds>>;

export async function generate(service: Service): Promise<{ measured: Seeds; warmUp: Seeds }> {
  const em = service.orm.em.fork();
  // BENCH_REUSE_DATABASE=1: the herd a BENCH_KEEP_DATABASE=1 run generated (its scratch tables kept), measured again.
  const reuse = process.env.BENCH_REUSE_DATABASE === '1';
  const [county] = reuse ? [''] : await benchCounties(service, 1);
  const { org, user } = await benchOwner(service, PASSWORD);
  let started = performance.now();
  const trucks = process.env.BENCH_TRACE_TRUCKS !== '0';
  const regions = reuse
    ? Number(((await em.execute<{ n: number }[]>('select count(distinct region)::int as n from bench_est'))[0]!).n)
    : (await generateTraceData(em, { animals: ANIMALS, establishments: ESTABLISHMENTS, epoch: EPOCH, horizon: HORIZON, organizationId: org.id, countyId: county!, transporterId: user.id, trucks })).regions;
  const generated = performance.now() - started;
  started = performance.now();
  // Vacuumed as autovacuum would have by then: the visibility map lets the walk read its indexes alone.
  await em.execute('vacuum analyze animal_stay');
  await em.execute('vacuum analyze animal');
  // every other table too: the generator's inserts leave the establishments unanalyzed, and an
  // authority's CSV then planned 20,000 establishments per traced animal (24 estimated: 90 s for 1 hop)
  await em.execute('analyze');
  const [counts] = await em.execute<{ stays: number; animals: number; establishments: number; units: number; trucks: number; riders: number; full: number; full_riders: number }[]>(
    `with loads as (select animals_egress_id, count(*)::int as n from animal_stay where animals_egress_id is not null group by animals_egress_id)
     select (select count(*)::int from animal_stay) as stays, (select count(*)::int from animal) as animals, (select count(*)::int from establishment) as establishments, (select count(*)::int from control_unit) as units,
            (select count(*)::int from loads) as trucks, (select coalesce(sum(n), 0)::int from loads) as riders,
            (select count(*)::int from loads where n >= 20) as full, (select coalesce(sum(n), 0)::int from loads where n >= 20) as full_riders`,
  );
  // The walk's and the CSV's index-only scans need the visibility map: a herd whose pages are not all-visible
  // (a vacuum held back by another session's old snapshot) fetches the heap on every descent (docs/decisions/trace.md).
  const [map] = await em.execute<{ pages: number; visible: number }[]>(`select relpages as pages, relallvisible as visible from pg_class where oid = 'animal_stay'::regclass`);
  const allVisible = `animal_stay ${Math.round((100 * map!.visible) / Math.max(1, map!.pages))}% all-visible (${map!.visible.toLocaleString('en')} of ${map!.pages.toLocaleString('en')} pages)`;
  console.log(
    `  generated ${counts!.animals.toLocaleString('en')} animals, ${counts!.stays.toLocaleString('en')} stays, ${counts!.establishments.toLocaleString('en')} establishments` +
      ` (${counts!.units.toLocaleString('en')} units, ${regions} regions), ${counts!.trucks.toLocaleString('en')} truck loads (${counts!.riders.toLocaleString('en')} rides,` +
      ` ${(counts!.riders / Math.max(1, counts!.trucks)).toFixed(1)} riders per load; ${counts!.full.toLocaleString('en')} loads of 20 or more carry ${Math.round((100 * counts!.full_riders) / Math.max(1, counts!.riders))}% of the rides)` +
      ` in ${seconds(generated)} (+ ${seconds(performance.now() - started)} vacuum and analyze); ${allVisible} ${load()}`,
  );
  const questions = { measured: await benchSeeds((sql) => em.execute(sql)), warmUp: await benchSeeds((sql) => em.execute(sql), 1) };
  // Kept with the database (BENCH_KEEP_DATABASE=1) for looking at the shape.
  if (process.env.BENCH_KEEP_DATABASE !== '1') for (const table of TRACE_SCRATCH) await em.execute(`drop table ${table}`);
  return questions;
}

/**
 * The bench's seeds, from its scratch tables (kept by BENCH_KEEP_DATABASE=1): the hub, the first
 * auction of region 0; the victim, an animal slaughtered after a full life (5 stays) within the
 * window's last days; the windows (bench/trace-graph.bench.ts asks the same questions).
 */
export async function benchSeeds(query: (sql: string) => Promise<unknown[]>, nth = 0): Promise<{ hubEstablishment: string; slaughtered: string; window: [string, string]; victimWindow: [string, string] }> {
  const [hub] = (await query(`select id from bench_est where kind = 'A' order by g limit 1 offset ${nth}`)) as { id: string }[];
  const [victim] = (await query(
    `select l.animal_id, l.t_end from bench_last l where l.kind = 'S' and l.ended and l.t_end between ${WINDOW[1] - 10} and ${WINDOW[1]}
        and (select count(*) from animal_stay s where s.animal_id = l.animal_id) = 5 order by l.n limit 1 offset ${nth}`,
  )) as { animal_id: string; t_end: number }[];
  const at = (days: number) => new Date(EPOCH + days * DAY).toISOString();
  return { hubEstablishment: hub!.id, slaughtered: victim!.animal_id, window: [at(WINDOW[0]), at(WINDOW[1])], victimWindow: [at(victim!.t_end - 90), at(victim!.t_end)] };
}

/**
 * The A/B of the two walks on one question, in SQL: the animals and establishments each reaches,
 * each stay's exposure, each animal's fewest hops (today's may only be smaller, where the old
 * walk's were wider than exact), and each walk's time.
 */
async function compareWalks(service: Service, label: string, q: Record<string, unknown>): Promise<void> {
  const em = service.orm.em.fork();
  const forward = q.str_direction === 'FORWARD';
  const seedColumn = q.establishment_id ? 's.establishment_id' : 's.animal_id';
  const seedId = (q.establishment_id ?? q.animal_id) as string;
  const seed = `array(select s.id from animal_stay s where ${seedColumn} = '${seedId}' and s.ts_from <= '${q.ts_to as string}' and coalesce(s.ts_to, now()) >= '${q.ts_from as string}')`;
  const args = `${seed}, '${q.ts_from as string}'::timestamptz, '${q.ts_to as string}'::timestamptz, ${forward}, ${q.int_max_hops ?? 'null'}::integer`;
  const times: Record<string, number> = {};
  for (const walk of ['trace_walk', 'trace_runs']) {
    const t = performance.now();
    await em.execute(`create unlogged table ab_${walk} as select stay_id, animal_id, establishment_id, ts_exposure, int_hops from ${walk}(${args})`);
    times[walk] = performance.now() - t;
  }
  const [r] = await em.execute<Record<string, number>[]>(
    `with o as (select animal_id, min(int_hops) as hops from ab_trace_walk group by animal_id), n as (select animal_id, min(int_hops) as hops from ab_trace_runs where establishment_id is not null group by animal_id),
          os as (select stay_id, ${forward ? 'min' : 'max'}(ts_exposure) as t from ab_trace_walk group by stay_id), ns as (select stay_id, ts_exposure as t from ab_trace_runs where establishment_id is not null)
     select (select count(*) from o)::int as old_animals, (select count(*) from n)::int as new_animals,
            (select count(*) from o full join n using (animal_id) where o.animal_id is null or n.animal_id is null)::int as animals_differing,
            (select count(*) from o join n using (animal_id) where n.hops < o.hops)::int as hops_smaller, (select count(*) from o join n using (animal_id) where n.hops > o.hops)::int as hops_larger,
            (select count(*) from os full join ns using (stay_id) where os.t is distinct from ns.t)::int as stay_exposures_differing, (select count(*) from ns)::int as stays,
            (select count(distinct establishment_id) from ab_trace_walk)::int as old_establishments, (select count(distinct establishment_id) from ab_trace_runs where establishment_id is not null)::int as new_establishments,
            (select count(*) from (select establishment_id from ab_trace_walk except select establishment_id from ab_trace_runs) x)::int + (select count(*) from (select establishment_id from ab_trace_runs where establishment_id is not null except select establishment_id from ab_trace_walk) x)::int as establishments_differing`,
  );
  await em.execute('drop table ab_trace_walk');
  await em.execute('drop table ab_trace_runs');
  console.log(`  A/B ${label}: trace_walk ${seconds(times.trace_walk!)}, trace_runs ${seconds(times.trace_runs!)} ${load()}\n    ${JSON.stringify(r)}`);
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

/** An AUTHORITY of the data's county, signed in (the bench owner made into one). */
export async function authority(service: Service, url: string): Promise<string> {
  const { user } = await benchOwner(service, PASSWORD);
  const em = service.orm.em.fork();
  await em.execute(`update "user" set str_type = 'AUTHORITY', county_id = (select county_id from establishment where str_name = 'Est 000001' limit 1) where id = ?`, [user.id]);
  const login = await postJson<{ data: { str_access_token: string } }>(url, '/api/login', { str_email: user.str_email, str_password: PASSWORD });
  return login.json.data.str_access_token;
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

type Post = (url: string, token: string, body: unknown, csv: boolean) => Promise<Posted>;

async function measure(post: Post, url: string, token: string, label: string, body: Record<string, unknown>, settled: () => Promise<void>): Promise<void> {
  const firstPage: number[] = [];
  // The process's CPU per first page (the service's thread and the client's share it): the service's own time besides the database's.
  const firstPageCpu: number[] = [];
  const whole: number[] = [];
  // How long the answer's write (done after the first page, in this process) went on once the page was answered.
  const writes: number[] = [];
  let animals = 0;
  let establishments = 0;
  let rows = 0;
  let bytes = 0;
  let peak = 0;
  const hashes = new Set<string>();
  const before = process.memoryUsage().rss;
  for (let i = 0; i < RUNS; i++) {
    // Each run a question of its own (the window starts i ms earlier: the same answer on this herd),
    // so that its first page walks: the service reuses a caller's stored answer of the same question
    // for a minute. The CSV then asks the run's question again, as a client after its first page does.
    const question = i ? { ...body, ts_from: new Date(Date.parse(body.ts_from as string) - i).toISOString() } : body;
    const cpu = process.cpuUsage();
    const page = await post(url, token, question, false);
    firstPage.push(page.ms);
    const used = process.cpuUsage(cpu);
    firstPageCpu.push((used.user + used.system) / 1000);
    if (page.status !== 200) throw new Error(`${label}: ${page.status} ${JSON.stringify(page.json)}`);
    animals = (page.json as { meta: { int_total_results: number } }).meta.int_total_results;
    establishments = (page.json as { int_total_establishments: number }).int_total_establishments;
    // BENCH_TRACE_CSV=0: the first pages alone (a profile of the first page need not stream a million rows after each).
    if (process.env.BENCH_TRACE_CSV === '0') {
      hashes.add(page.sha);
      // The next question waits for this one's write (a CSV would): a first page is not measured against the last one's write.
      const t = performance.now();
      await settled();
      writes.push(performance.now() - t);
      continue;
    }
    const csv = await peakRss(() => post(url, token, question, true));
    whole.push(csv.value.ms);
    if (csv.value.status !== 200) throw new Error(`${label} (CSV): ${csv.value.status}`);
    rows = csv.value.lines - 1;
    hashes.add(`${page.sha}/${csv.value.sha}`);
    bytes = csv.value.bytes;
    peak = Math.max(peak, csv.peak);
  }
  console.log(
    `  ${label}: ${establishments.toLocaleString('en')} establishments, ${animals.toLocaleString('en')} animals, ${rows.toLocaleString('en')} CSV rows (${(bytes / 1e6).toFixed(1)} MB), ${RUNS} runs` +
      // The first run reads the herd's pages from disk when the cache is cold: shown apart from the percentiles.
      ` | first page run 1 ${Math.round(firstPage[0]!)} ms, p50 ${Math.round(percentile(firstPage, 50))} ms, p95 ${Math.round(percentile(firstPage, 95))} ms` +
      ` (process CPU p50 ${Math.round(percentile(firstPageCpu, 50))} ms)` +
      (whole.length
        ? ` | whole answer run 1 ${seconds(whole[0]!)}, p50 ${seconds(percentile(whole, 50))}, p95 ${seconds(percentile(whole, 95))}`
        : ` | CSV not asked (BENCH_TRACE_CSV=0); the answer written ${seconds(percentile(writes, 50))} after its page (p50)`) +
      ` | process RSS ${(before / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB while streaming ${load()}` +
      // The answers' fingerprints (first page JSON / CSV, sha256): the same herd and code give the same ones, run after run.
      ` | answers ${[...hashes].join(' ')}`,
  );
}

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) {
    console.log('bench:trace needs PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
    return;
  }
  await onPostgres(pgUrl, process.env.BENCH_TRACE_DATABASE ?? 'bench_trace', (where) => `trace on ${where}`, async (service) => {
    const seeds = await generate(service);
    const asked = (data: Seeds): [string, Record<string, unknown>][] => [
      ['forward from an auction, 90 days, 1 hop', { establishment_id: data.hubEstablishment, ts_from: data.window[0], ts_to: data.window[1], str_direction: 'FORWARD', int_max_hops: 1 }],
      ['forward from an auction, 90 days, unlimited hops', { establishment_id: data.hubEstablishment, ts_from: data.window[0], ts_to: data.window[1], str_direction: 'FORWARD' }],
      ['backward from one slaughtered animal, its last 90 days', { animal_id: data.slaughtered, ts_from: data.victimWindow[0], ts_to: data.victimWindow[1], str_direction: 'BACKWARD' }],
    ];
    const questions = asked(seeds.measured);
    // BENCH_TRACE_QUESTIONS=1,3: only those questions (1 hop, unlimited, backward).
    const only = process.env.BENCH_TRACE_QUESTIONS?.split(',').map(Number);
    if (only) questions.splice(0, questions.length, ...questions.filter((_, i) => only.includes(i + 1)));
    if (process.env.BENCH_TRACE_AB === '1') for (const [label, q] of questions) await compareWalks(service, label, q);
    if (!RUNS) return;
    // The walk runs in memory once the graph of every stay is loaded (TRACE_GRAPH, the default): measured from there.
    const loading = performance.now();
    await service.core.trace.ready();
    console.log(`  the trace's graph: ready ${seconds(performance.now() - loading)} after the herd was, process RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB ${load()}`);
    const url = await serve(service);
    const token = await authority(service, url);
    const { post, close } = traceClient();
    // A service that has been answering: the same kinds of question, from the next auction and the next
    // slaughtered animal (not the measured ones' data), asked once each first and not measured (BENCH_TRACE_WARM_UP=0: none).
    if (process.env.BENCH_TRACE_WARM_UP !== '0') {
      const started = performance.now();
      for (const [i, [, q]] of asked(seeds.warmUp).entries()) {
        const page = await post(url, token, q, false);
        if (page.status !== 200) throw new Error(`warm-up: ${page.status} ${JSON.stringify(page.json)}`);
        // The CSV's path too, once (the 1-hop one, the smallest).
        if (i === 0 && process.env.BENCH_TRACE_CSV !== '0') {
          const csv = await post(url, token, q, true);
          if (csv.status !== 200) throw new Error(`warm-up (CSV): ${csv.status}`);
        }
        await service.core.trace.settled();
      }
      console.log(`  warmed up: the three kinds of question once each from another auction and another animal (and the first one's CSV), not measured, in ${seconds(performance.now() - started)} ${load()}`);
    }
    for (const [label, q] of questions) await measure(post, url, token, label, q, () => service.core.trace.settled());
    await close();
  });
}

// Run as a script (bench/trace-graph.bench.ts imports its seeds).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) exitWhenDone(main);
