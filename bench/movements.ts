/**
 * Animal movements at scale (issue 10, "Scale and speed"), over HTTP on PostgreSQL: a scratch
 * database `bench_movements` on DATABASE_URL (created through the admin connection, dropped
 * afterwards; BENCH_KEEP_DATABASE=1 keeps it for EXPLAIN ANALYZE). Generates set-based one farm of
 * BENCH_FARM_ANIMALS (default 60,000) ACTIVE animals with applied tags and open stays, next to
 * BENCH_OTHER_ANIMALS (default 40,000) at 20 other farms, and a feedlot. Then times, BENCH_REPS
 * times each (default 5 and 3):
 *   - POST /api/animals-egress/:id/finish of an egress of 500 read animals;
 *   - POST /api/animals-ingress/:id/finish of an ingress of 5,000 animals under 10 GTAs (10 egresses
 *     of 500 finished first), every one read, reconciled in one finish;
 *   - POST /api/tags-identifications of 500 animals (BENCH_REPS times);
 *   - GET /api/animals/:id/history of an animal moved 20 times (10 round trips farm ⇄ feedlot);
 * and on the way the batches of reads (500 on an egress, 1,000 on an ingress) and the create.
 * Prints a table: median, min–max, SQL statements per request, the load average; and the event
 * log's growth (rows and bytes of event and event_subject, per 1,000 animals moved) over the finishes.
 * BENCH_DATABASE names the scratch database (default bench_movements); BENCH_INGRESS_REPS the
 * ingress finishes (default 60% of BENCH_REPS).
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:movements
 * (BENCH_STAYS_PARTITIONED=1 partitions the stays by year after the herd, bench/stays-partitioned-yearly.sql;
 * BENCH_WITHOUT_FKS=1 drops the foreign keys a finish checks row by row, an experiment;
 * BENCH_TRACE=1 prints each statement of the ingress finishes with its time; BENCH_PROFILE=<dir> writes a CPU
 * profile of each ingress finish there; BENCH_KEEP_DATABASE=1.)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Session } from 'node:inspector/promises';
import type { Service } from '../src/server.js';
import { benchCounties, benchOwner, exitWhenDone, onPostgres, postJson, serve, signIn, type Reply } from './support.js';

const FARM_ANIMALS = Number(process.env.BENCH_FARM_ANIMALS ?? 60_000);
const OTHER_ANIMALS = Number(process.env.BENCH_OTHER_ANIMALS ?? 40_000);
const EGRESS_REPS = Number(process.env.BENCH_REPS ?? 5);
const INGRESS_REPS = Number(process.env.BENCH_INGRESS_REPS ?? Math.max(1, Math.ceil(EGRESS_REPS * 0.6)));
const DATABASE = process.env.BENCH_DATABASE ?? 'bench_movements';
const IDENTIFY_SIZE = 500;
const HISTORY_MOVES = 20;
const EGRESS_SIZE = 500;
const INGRESS_GTAS = 10;
const PASSWORD = 'bench-password-1';
const GEO = { type: 'Point', coordinates: [-47.9, -15.8] };

interface Place {
  establishmentId: string;
  unitId: string;
}

interface Timing {
  label: string;
  ms: number[];
  /** CPU time of this process (the service and the client) during the request: far steadier than wall time on a loaded machine. */
  cpu: number[];
  /** CPU time of the database's server processes during the request. */
  db: number[];
  sql: Set<string>;
}

const timings = new Map<string, Timing>();
/** The load average (1 min) when each request of a label was sent. */
const loads = new Map<string, number[]>();

/** The event log's size: rows and bytes (heap, indexes and TOAST) of event and, where it exists, event_subject. */
interface LogSize {
  eventRows: number;
  eventBytes: number;
  subjectRows: number;
  subjectBytes: number;
}

async function logSize(service: Service): Promise<LogSize> {
  const em = service.orm.em.fork();
  const [e] = await em.execute<{ n: string; b: string; subjects: string | null }[]>("select (select count(*) from event) as n, (select sum(pg_total_relation_size(relid)) from pg_partition_tree('event')) as b, to_regclass('event_subject')::text as subjects");
  const [s] = e!.subjects ? await em.execute<{ n: string; b: string }[]>("select (select count(*) from event_subject) as n, (select sum(pg_total_relation_size(relid)) from pg_partition_tree('event_subject')) as b") : [{ n: '0', b: '0' }];
  return { eventRows: Number(e!.n), eventBytes: Number(e!.b), subjectRows: Number(s!.n), subjectBytes: Number(s!.b) };
}

/** The log's growth over the finishes, and the animals they moved. */
const growth = { animals: 0, eventRows: 0, eventBytes: 0, subjectRows: 0, subjectBytes: 0 };

async function grown<T>(service: Service, animals: number, work: () => Promise<T>): Promise<T> {
  const before = await logSize(service);
  const result = await work();
  const after = await logSize(service);
  growth.animals += animals;
  growth.eventRows += after.eventRows - before.eventRows;
  growth.eventBytes += after.eventBytes - before.eventBytes;
  growth.subjectRows += after.subjectRows - before.subjectRows;
  growth.subjectBytes += after.subjectBytes - before.subjectBytes;
  return result;
}
let dbCpu: () => Promise<Map<number, number> | null> = async () => null;

/**
 * CPU time (ms) each server process of the scratch database has used so far, read from /proc (the
 * server on this machine, as here); null when they cannot be read.
 */
function dbCpuOf(service: Service, database: string): () => Promise<Map<number, number> | null> {
  const tick = 1000 / 100; // USER_HZ
  return async () => {
    const pids = await service.orm.em.fork().execute<{ pid: number }[]>('select pid from pg_stat_activity where datname = ?', [database]);
    const used = new Map<number, number>();
    for (const { pid } of pids) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        used.set(pid, (Number(fields[11]) + Number(fields[12])) * tick);
      } catch {
        return null;
      }
    }
    return used;
  };
}

/** The request `send` makes, with the CPU time this process and the database's spent meanwhile. */
async function measured<T>(send: () => Promise<Reply<T>>): Promise<Reply<T> & { cpu: number; db: number | null }> {
  const db0 = await dbCpu();
  const before = process.cpuUsage();
  const reply = await send();
  const used = process.cpuUsage(before);
  const db1 = await dbCpu();
  // A process that started during the request counts from 0; one that ended is lost (rare: the pool keeps its connections).
  const db = db0 && db1 ? [...db1].reduce((sum, [pid, t]) => sum + t - (db0.get(pid) ?? 0), 0) : null;
  return { ...reply, cpu: (used.user + used.system) / 1000, db };
}

function record(label: string, reply: Reply<unknown> & { cpu: number; db: number | null }, status = 200): Reply<{ data: { id: string } & Record<string, unknown> }> {
  if (reply.status !== status) throw new Error(`${label}: ${reply.status} ${JSON.stringify(reply.json).slice(0, 800)}`);
  const t = timings.get(label) ?? { label, ms: [], cpu: [], db: [], sql: new Set<string>() };
  t.ms.push(reply.ms);
  t.cpu.push(reply.cpu);
  if (reply.db !== null) t.db.push(reply.db);
  t.sql.add(reply.sql ?? '?');
  timings.set(label, t);
  loads.set(label, [...(loads.get(label) ?? []), loadavg()[0]!]);
  return reply as Reply<{ data: { id: string } & Record<string, unknown> }>;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** An establishment with one unit; a FARM has a CAR. */
async function place(service: Service, organizationId: string, countyId: string, type: 'FARM' | 'FEEDLOT', name: string): Promise<Place> {
  const em = service.orm.em.fork();
  const establishmentId = randomUUID();
  const unitId = randomUUID();
  const car = type === 'FARM' ? `ZB-0090000-${randomUUID().replaceAll('-', '').toUpperCase()}` : null;
  await em.execute(`insert into establishment (id, organization_id, county_id, str_name, str_type, str_car) values (?, ?, ?, ?, ?, ?)`, [establishmentId, organizationId, countyId, name, type, car]);
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Curral', 'PRODUCTION')`, [unitId, establishmentId, `BENCH-${unitId.slice(0, 8)}`]);
  return { establishmentId, unitId };
}

/**
 * `n` ACTIVE animals at each unit, set-based: one DEPLETED box per unit, a tag per code (076 8…),
 * an animal on each (identified at spaced times), the tags APPLIED, an open stay per animal.
 */
async function herd(service: Service, units: { unitId: string; n: number }[]): Promise<void> {
  const em = service.orm.em.fork();
  const spec = JSON.stringify(units.map((u, i) => ({ unit: u.unitId, n: u.n, ord: i })));
  await em.execute(
    `insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id)
     select gen_random_uuid(), 'BENCH-MV-' || u.ord, lpad((76800000000000 + u.before)::text, 15, '0'), lpad((76800000000000 + u.before + u.n - 1)::text, 15, '0'), u.n, 'DEPLETED', u.unit
       from (select x.*, coalesce(sum(x.n) over (order by x.ord rows between unbounded preceding and 1 preceding), 0) as before
               from jsonb_to_recordset(?::jsonb) as x(unit uuid, n int, ord int)) u`,
    [spec],
  );
  await em.execute(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id, ts_created_at, ts_updated_at)
     select gen_random_uuid(), lpad((b.str_begin::bigint + g)::text, 15, '0'), 'AVAILABLE', b.id, b.control_unit_id, now() - interval '400 days', now() - interval '400 days'
       from tags_box b cross join generate_series(0, b.int_quantity - 1) g where starts_with(b.str_code, 'BENCH-MV-')`,
  );
  await em.execute(
    `insert into animal (id, str_species, str_gender, str_status, current_tag_id, last_control_unit_id, ts_identified_at, ts_created_at, ts_updated_at)
     select gen_random_uuid(), 'BOVINE', case when t.n % 2 = 0 then 'FEMALE' else 'MALE' end, 'ACTIVE', t.id, t.last_control_unit_id,
            now() - (t.n % 365) * interval '1 day', now() - t.n * interval '1 second', now() - t.n * interval '1 second'
       from (select id, last_control_unit_id, row_number() over (order by str_code) as n from tag where str_status = 'AVAILABLE') t`,
  );
  await em.execute(`update tag set str_status = 'APPLIED', animal_id = a.id, last_control_unit_id = null from animal a where a.current_tag_id = tag.id and tag.str_status = 'AVAILABLE'`);
  await em.execute(
    `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from)
     select a.id, a.last_control_unit_id, cu.establishment_id, a.ts_identified_at from animal a join control_unit cu on cu.id = a.last_control_unit_id`,
  );
  // BENCH_WITHOUT_FKS=1 (an experiment, issues 10 and 20): the foreign keys a finish checks row by
  // row dropped (the stay's four, the animal's unit; since issue 20 a move writes no tag), to show
  // what those checks cost.
  if (process.env.BENCH_WITHOUT_FKS === '1') {
    for (const [table, fk] of [
      ['animal_stay', 'animal_stay_unit_of_establishment'],
      ['animal_stay', 'animal_stay_animals_ingress_id_fkey'],
      ['animal_stay', 'animal_stay_animals_egress_id_fkey'],
      ['animal_stay', 'animal_stay_animal_id_fkey'],
      ['animal', 'animal_last_control_unit_id_fkey'],
    ]) await em.execute(`alter table ${table} drop constraint ${fk}`);
    console.log('  BENCH_WITHOUT_FKS: 5 foreign keys dropped (the stay\'s four, the animal\'s unit)');
  }
  await em.execute('analyze');
}

/** `n` AVAILABLE tags in a fresh IN_STOCK box at the unit (codes 0769…, apart from the herd's 0768…). */
async function availableTags(service: Service, unitId: string, n: number, round: number): Promise<string[]> {
  const em = service.orm.em.fork();
  const begin = 76900000000000 + round * n;
  const boxId = randomUUID();
  await em.execute(`insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, lpad(?::text, 15, '0'), lpad(?::text, 15, '0'), ?, 'IN_STOCK', ?)`, [
    boxId,
    `BENCH-ID-${round}`,
    begin,
    begin + n - 1,
    n,
    unitId,
  ]);
  const rows = await em.execute<{ str_code: string }[]>(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id) select gen_random_uuid(), lpad((?::bigint + g)::text, 15, '0'), 'AVAILABLE', ?, ? from generate_series(0, ? - 1) g returning str_code`,
    [begin, boxId, unitId, n],
  );
  return rows.map((r) => r.str_code);
}

async function getJson<T>(url: string, path: string, token: string): Promise<Reply<T>> {
  const started = performance.now();
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}` } });
  const json = (await res.json()) as T;
  return { status: res.status, json, sql: res.headers.get('x-sql-statements'), ms: performance.now() - started };
}

async function run(service: Service): Promise<void> {
  // BENCH_TRACE=1: the statements of each ingress finish with their times (their first 160 characters), for profiling.
  const trace = process.env.BENCH_TRACE === '1';
  if (trace) service.orm.config.set('logger', (message: string) => console.log(`    ${message.replace(/\x1b\[[0-9;]*m/g, '').replace(/\s+/g, ' ').slice(0, 160)}`));
  const traced = async <T>(on: boolean, work: () => Promise<T>): Promise<T> => {
    if (!on) return work();
    service.orm.config.set('slowQueryThreshold', 0);
    try {
      return await work();
    } finally {
      service.orm.config.set('slowQueryThreshold', undefined as never);
    }
  };
  // BENCH_PROFILE=<dir>: a CPU profile of this process (the service and its client) during each ingress finish, written there.
  const profileDir = process.env.BENCH_PROFILE;
  const profiled = async <T>(work: () => Promise<T>): Promise<T> => {
    if (!profileDir) return work();
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    try {
      return await work();
    } finally {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`${profileDir}/ingress-finish-${Date.now()}.cpuprofile`, JSON.stringify(profile));
      session.disconnect();
    }
  };
  const { org, user } = await benchOwner(service, PASSWORD);
  const [county] = await benchCounties(service, 1);
  const farm = await place(service, org.id, county!, 'FARM', 'Fazenda Bench');
  const feedlot = await place(service, org.id, county!, 'FEEDLOT', 'Confinamento Bench');
  const others: Place[] = [];
  for (let i = 0; i < 20; i++) others.push(await place(service, org.id, county!, 'FARM', `Vizinho ${i}`));
  const started = performance.now();
  await herd(service, [{ unitId: farm.unitId, n: FARM_ANIMALS }, ...others.map((o) => ({ unitId: o.unitId, n: Math.ceil(OTHER_ANIMALS / others.length) }))]);
  console.log(`  generated ${FARM_ANIMALS} animals at the farm and ${OTHER_ANIMALS} at 20 others (tags, stays) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // BENCH_STAYS_PARTITIONED=1: the stays partitioned by the year they ended (bench/stays-partitioned-yearly.sql), the A/B of docs/benchmarks.md.
  if (process.env.BENCH_STAYS_PARTITIONED === '1') {
    const em = service.orm.em.fork();
    const file = readFileSync(new URL('../../bench/stays-partitioned-yearly.sql', import.meta.url), 'utf8');
    await em.execute(file.replace(/^vacuum analyze animal_stay;$/m, ''));
    await em.execute('vacuum analyze animal_stay');
    const parts = await em.execute<{ part: string; n: string }[]>("select c.relname as part, c.reltuples::bigint::text as n from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'animal_stay'::regclass order by 1");
    console.log(`  BENCH_STAYS_PARTITIONED: ${parts.map((p) => `${p.part} (${p.n})`).join(', ')}`);
  }

  // The farm's animals in code order: each egress takes the next EGRESS_SIZE.
  const codes = (await service.orm.em.fork().execute<{ str_code: string }[]>(`select t.str_code from tag t join animal a on a.id = t.animal_id where a.last_control_unit_id = ? and t.str_status = 'APPLIED' order by t.str_code`, [farm.unitId])).map((r) => r.str_code);
  const needed = EGRESS_REPS * EGRESS_SIZE + INGRESS_REPS * INGRESS_GTAS * EGRESS_SIZE;
  if (codes.length < needed) throw new Error(`the farm has ${codes.length} animals; the bench needs ${needed} (raise BENCH_FARM_ANIMALS)`);
  let next = 0;
  const take = (n: number) => codes.slice(next, (next += n));

  dbCpu = dbCpuOf(service, DATABASE);
  const url = await serve(service);
  const token = await signIn(url, user.str_email, PASSWORD, org.id);
  let gtaNumber = 0;
  const validUntil = new Date(Date.now() + 7 * 86_400_000).toISOString();

  /** An egress of `n` read animals under a GTA of its own, finished. */
  const egressOf = async (n: number): Promise<string> => {
    const gta = record('issue a GTA', await measured(() => postJson(url, '/api/gtas', { gta: { str_code: `9${String(++gtaNumber).padStart(8, '0')}`, int_animal_quantity: n, str_purpose: 'FATTENING', from_control_unit_id: farm.unitId, to_control_unit_id: feedlot.unitId, ts_valid_until: validUntil } }, token)), 201).json.data;
    const egress = record('create an egress', await measured(() => postJson(url, '/api/animals-egress', { from_control_unit_id: farm.unitId, to_control_unit_id: feedlot.unitId, gta_id: gta.id, str_license_plate: 'BEN1C23' }, token)), 201).json.data;
    const reads = take(n).map((c) => ({ id: randomUUID(), str_tag_code: c, ts_egress_at: new Date().toISOString(), geo_egress: GEO }));
    record(`egress: a batch of ${n} reads`, await measured(() => postJson(url, `/api/animals-egress/${egress.id}/tags`, { tags: reads }, token)));
    const done = record(`egress: finish, ${n} animals`, await grown(service, n, () => measured(() => postJson(url, `/api/animals-egress/${egress.id}/finish`, {}, token)))).json.data;
    if (done.str_status !== 'FINISHED' || done.int_tag_count !== n) throw new Error(`egress finished as ${JSON.stringify({ str_status: done.str_status, int_tag_count: done.int_tag_count })}`);
    return gta.id;
  };

  for (let r = 0; r < EGRESS_REPS; r++) await egressOf(EGRESS_SIZE);
  const egressFinish = timings.get(`egress: finish, ${EGRESS_SIZE} animals`)!;

  const ingressLabel = `ingress: finish, ${INGRESS_GTAS * EGRESS_SIZE} under ${INGRESS_GTAS} GTAs`;
  for (let r = 0; r < INGRESS_REPS; r++) {
    const first = next;
    const gtas: string[] = [];
    for (let g = 0; g < INGRESS_GTAS; g++) gtas.push(await egressOf(EGRESS_SIZE));
    const arrived = codes.slice(first, next);
    const ingress = record('create an ingress under 10 GTAs', await measured(() => postJson(url, '/api/animals-ingress', { to_control_unit_id: feedlot.unitId, gtas: gtas.map((gta_id) => ({ gta_id, str_license_plate: 'BEN1C23' })) }, token)), 201).json.data;
    for (let i = 0; i < arrived.length; i += 1000) {
      const reads = arrived.slice(i, i + 1000).map((c) => ({ id: randomUUID(), str_tag_code: c, ts_ingress_at: new Date().toISOString(), geo_ingress: GEO }));
      record('ingress: a batch of 1,000 reads', await measured(() => postJson(url, `/api/animals-ingress/${ingress.id}/tags`, { tags: reads }, token)));
    }
    const done = record(ingressLabel, await grown(service, arrived.length, () => measured(() => profiled(() => traced(trace, () => postJson(url, `/api/animals-ingress/${ingress.id}/finish`, {}, token)))))).json.data;
    if (trace) console.log(`    finish: ${timings.get(ingressLabel)!.ms.at(-1)!.toFixed(0)} ms over HTTP`);
    if (done.str_status !== 'RECEIVED' || done.int_received_count !== arrived.length) throw new Error(`ingress finished as ${JSON.stringify({ str_status: done.str_status, int_received_count: done.int_received_count })}`);
  }

  const identifyLabel = `identification of ${IDENTIFY_SIZE} animals`;
  for (let r = 0; r < EGRESS_REPS; r++) {
    const codes = await availableTags(service, feedlot.unitId, IDENTIFY_SIZE, r);
    const animals = codes.map((c, i) => ({ str_tag_code: c, str_species: 'BOVINE', str_gender: i % 2 ? 'MALE' : 'FEMALE', ts_identified_at: new Date().toISOString() }));
    record(identifyLabel, await measured(() => postJson(url, '/api/tags-identifications', { to_control_unit_id: feedlot.unitId, animals }, token)), 201);
  }

  // One animal moved HISTORY_MOVES times, farm ⇄ feedlot, each move an egress and an ingress finished.
  const [traveller] = take(1);
  const [animal] = await service.orm.em.fork().execute<{ id: string }[]>('select animal_id as id from tag where str_code = ?', [traveller]);
  for (let m = 0; m < HISTORY_MOVES; m++) {
    const [from, to] = m % 2 ? [feedlot, farm] : [farm, feedlot];
    const gta = record('issue a GTA', await measured(() => postJson(url, '/api/gtas', { gta: { str_code: `9${String(++gtaNumber).padStart(8, '0')}`, int_animal_quantity: 1, str_purpose: 'FATTENING', from_control_unit_id: from.unitId, to_control_unit_id: to.unitId, ts_valid_until: validUntil } }, token)), 201).json.data;
    const egress = record('create an egress', await measured(() => postJson(url, '/api/animals-egress', { from_control_unit_id: from.unitId, to_control_unit_id: to.unitId, gta_id: gta.id, str_license_plate: 'BEN1C23' }, token)), 201).json.data;
    record('history: a move, egress read', await measured(() => postJson(url, `/api/animals-egress/${egress.id}/tags`, { tags: [{ id: randomUUID(), str_tag_code: traveller, ts_egress_at: new Date().toISOString(), geo_egress: GEO }] }, token)));
    record('history: a move, egress finish', await measured(() => postJson(url, `/api/animals-egress/${egress.id}/finish`, {}, token)));
    const ingress = record('history: a move, ingress create', await measured(() => postJson(url, '/api/animals-ingress', { to_control_unit_id: to.unitId, gtas: [{ gta_id: gta.id }], tags: [{ id: randomUUID(), str_tag_code: traveller, ts_ingress_at: new Date().toISOString(), geo_ingress: GEO }] }, token)), 201).json.data;
    record('history: a move, ingress finish', await measured(() => postJson(url, `/api/animals-ingress/${ingress.id}/finish`, {}, token)));
  }
  const historyLabel = `history of an animal moved ${HISTORY_MOVES} times`;
  for (let r = 0; r < 20; r++) {
    const reply = record(historyLabel, await measured(() => getJson(url, `/api/animals/${animal!.id}/history`, token)));
    const entries = (reply.json as unknown as { data: unknown[] }).data;
    if (entries.length !== Math.min(2 * HISTORY_MOVES, 50) && r === 0) console.log(`  (the history's first page holds ${entries.length} entries)`);
  }

  const ms = (xs: number[]) => (xs.length ? `${median(xs).toFixed(0)} ms` : '?');
  console.log(`\n  ${'request'.padEnd(46)} ${'n'.padStart(3)} ${'median'.padStart(8)} ${'min–max'.padStart(14)} ${'Node CPU'.padStart(9)} ${'DB CPU'.padStart(8)}  SQL statements`);
  for (const t of timings.values()) {
    const range = `${Math.min(...t.ms).toFixed(0)}–${Math.max(...t.ms).toFixed(0)}`;
    const load = loads.get(t.label) ?? [];
    console.log(`  ${t.label.padEnd(46)} ${String(t.ms.length).padStart(3)} ${ms(t.ms).padStart(8)} ${`${range} ms`.padStart(14)} ${ms(t.cpu).padStart(9)} ${ms(t.db).padStart(8)}  load ${Math.min(...load).toFixed(2)}–${Math.max(...load).toFixed(2)}  ${[...t.sql].join(', ')}`);
  }
  const history = timings.get(historyLabel)!;
  console.log(`  ${historyLabel}: median ${median(history.ms).toFixed(2)} ms`);
  const per = (x: number) => ((x * 1000) / growth.animals).toFixed(0);
  console.log(
    `\n  event log over the finishes (${growth.animals} animals moved): per 1,000 animals, event ${per(growth.eventRows)} rows ${per(growth.eventBytes)} bytes; event_subject ${per(growth.subjectRows)} rows ${per(growth.subjectBytes)} bytes; together ${per(growth.eventBytes + growth.subjectBytes)} bytes`,
  );
  console.log(`  (median and range: wall time over HTTP; Node CPU: this process, the service and its client; DB CPU: the database's server processes, from /proc, 10 ms ticks)`);
  const target = (t: Timing) => `${median(t.ms) < 500 ? 'met' : 'NOT met'} (median ${median(t.ms).toFixed(0)} ms)`;
  console.log(`\n  target < 0.5 s: egress finish ${target(egressFinish)}; ingress finish ${target(timings.get(ingressLabel)!)}`);
  console.log(`  load average now: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

const pgUrl = process.env.DATABASE_URL;
if (!pgUrl) {
  console.error('bench:movements runs on PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
  process.exit(2);
}
exitWhenDone(() => onPostgres(pgUrl, DATABASE, (where) => `Animal movements on ${where}`, run));
