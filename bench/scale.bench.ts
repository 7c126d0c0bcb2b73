/**
 * Issue 25, "scale and speed": one command for the figures of several instances and replicas.
 *
 * 1. Reads: bench:peers' data (generated the same way, in a scratch database) and its four reads
 *    (a. animals page, b. animal(id), c. GET /api/establishments, d. POST /api/animals/search, each
 *    the service's form) against the service as separate processes (`dist/src/main.js`, each its
 *    own pool and event loop) on that one database:
 *      - `1 instance`: one process, BENCH_CONNECTIONS (10) connections;
 *      - `2 instances`: two processes, the same connections split between them (two load
 *        generators at once; req/s summed, p99 the higher of the two);
 *      - `1 on replica`, `2 on replica`: the same with DATABASE_REPLICA_URLS, every read on the
 *        replica. The replica is BENCH_REPLICA_URL, else a streaming replica of DATABASE_URL's
 *        server on 127.0.0.1:5433 if one answers (`.ci/replica` starts one, as root); without one
 *        these rows say so.
 *    Interleaved as bench:peers does: BENCH_ROUNDS (2) rounds of each request against each setup,
 *    BENCH_DURATION (5) s each, req/s over all rounds, p99 the median of the rounds'.
 * 2. Writes: bench:scale-writes' mix (16 clients, identifications, vehicles, GTAs, egresses and
 *    ingresses, creates raced at both instances) against two processes, with their reads on the
 *    replica when there is one: 0 answers other than 2xx and the contract's, no write lost or made
 *    twice (exit 1 otherwise).
 * 3. With a replica, during the mix: its lag, sampled every 100 ms as the time from reading the
 *    primary's `pg_current_wal_lsn()` to the replica's `pg_last_wal_replay_lsn()` reaching it. That
 *    is the read-your-writes wait: a caller who wrote at that moment reads from the primary (or a
 *    bulk read waits) for that long. p50, p95, max; and the share of reader statements the two
 *    instances ran on the primary (`db_reader_statements_total` from /metrics).
 * Prints the machine's load average beside every part.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:scale
 * (BENCH_DATABASE names the scratch database, default bench_scale_<pid>.)
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import type { Service } from '../src/server.js';
import { benches, generate, machineLoad, medianOf, PASSWORD, type Bench } from './peers.bench.js';
import { writeMix } from './scale-writes.bench.js';
import { BENCH_ENV, exitWhenDone, onPostgres, signIn } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Instance {
  url: string;
  child: ChildProcess;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The service as a process of its own (the built `dist/src/main.js`), answering /health. */
async function startInstance(databaseUrl: string, replicaUrl?: string): Promise<Instance> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ...BENCH_ENV, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl, PORT: String(port) };
  delete env.DATABASE_REPLICA_URLS;
  if (replicaUrl) env.DATABASE_REPLICA_URLS = replicaUrl;
  const child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`an instance exited with ${child.exitCode}`);
    const up = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (up) return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('an instance did not answer /health within 60 s');
}

async function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode !== null) return;
  const exited = new Promise((resolve) => i.child.once('exit', resolve));
  i.child.kill('SIGTERM');
  await exited;
}

/** BENCH_REPLICA_URL, else a replica of the primary on 127.0.0.1:5433; its URL for `database`, or null. */
async function findReplica(primaryUrl: string, database: string): Promise<string | null> {
  const candidate = new URL(process.env.BENCH_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres');
  const ask = async (url: string, sql: string): Promise<string | null> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      return String(Object.values((await client.query(sql)).rows[0] ?? {})[0] ?? '');
    } catch {
      return null;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const id = 'select system_identifier::text from pg_control_system()';
  if ((await ask(candidate.toString(), 'select pg_is_in_recovery()::text')) !== 'true') return null;
  if ((await ask(candidate.toString(), id)) !== (await ask(primaryUrl, id))) return null;
  candidate.pathname = `/${database}`;
  // The scratch database reaches the replica with the replay of its creation.
  for (let i = 0; i < 300; i++) {
    if ((await ask(candidate.toString(), 'select 1')) === '1') return candidate.toString();
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

interface Setup {
  name: string;
  instances: Instance[];
}

interface Figures {
  requests: number;
  seconds: number;
  p99: number[];
  bad: number;
}

/** One request against a setup: its connections split over its instances, all at once. */
async function loadOnce(setup: Setup, form: Bench['forms']['service'], token: string, duration: number): Promise<{ requests: number; seconds: number; p99: number; bad: number }> {
  const share = Math.max(1, Math.round(CONNECTIONS / setup.instances.length));
  const results = await Promise.all(
    setup.instances.map((i) =>
      autocannon({ url: i.url + form.path, method: form.method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: form.body, connections: share, duration, workers: 1 }),
    ),
  );
  return {
    requests: results.reduce((s, r) => s + r.requests.total, 0),
    seconds: Math.max(...results.map((r) => r.duration)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    bad: results.reduce((s, r) => s + r.non2xx + r.errors + r.timeouts, 0),
  };
}

async function reads(setups: Setup[], list: Bench[], token: string): Promise<void> {
  // Every setup answers every request 200 before anything is measured.
  for (const setup of setups) {
    for (const i of setup.instances) {
      for (const bench of list) {
        const form = bench.forms.service;
        const res = await fetch(i.url + form.path, { method: form.method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: form.body });
        if (res.status !== 200) throw new Error(`${setup.name}, ${bench.title}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      }
    }
  }
  machineLoad('before the reads');
  console.log(`  ${ROUNDS} rounds × ${list.length} requests × ${setups.map((s) => s.name).join(', ')} in turn, ${DURATION} s each, ${CONNECTIONS} connections in all`);
  for (const bench of list) for (const setup of setups) await loadOnce(setup, bench.forms.service, token, 1);
  const figures = new Map<string, Figures>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [b, bench] of list.entries()) {
      for (const setup of setups) {
        const r = await loadOnce(setup, bench.forms.service, token, DURATION);
        const f = figures.get(`${b}/${setup.name}`) ?? { requests: 0, seconds: 0, p99: [], bad: 0 };
        f.requests += r.requests;
        f.seconds += r.seconds;
        f.p99.push(r.p99);
        f.bad += r.bad;
        figures.set(`${b}/${setup.name}`, f);
      }
    }
  }
  machineLoad('after the reads');
  for (const [b, bench] of list.entries()) {
    console.log(`\n  ${bench.title}`);
    const one = figures.get(`${b}/1 instance`)!;
    for (const setup of setups) {
      const f = figures.get(`${b}/${setup.name}`)!;
      const rps = f.requests / f.seconds;
      const ratio = setup.name === '1 instance' ? '' : `  ×${(rps / (one.requests / one.seconds)).toFixed(2)} of 1 instance`;
      console.log(`    ${setup.name.padEnd(14)}${rps.toFixed(1).padStart(9)} req/s  p99 ${medianOf(f.p99).toFixed(0).padStart(5)} ms${ratio}${f.bad ? `  non-2xx or errors: ${f.bad}` : ''}`);
      if (f.bad) process.exitCode = 1;
    }
  }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

/** Until `stop`: every 100 ms the primary's position, then how long the replica takes to replay it. */
async function sampleLag(primaryUrl: string, replicaUrl: string, stop: { done: boolean }): Promise<number[]> {
  const primary = new pg.Client({ connectionString: primaryUrl });
  const replica = new pg.Client({ connectionString: replicaUrl });
  await primary.connect();
  await replica.connect();
  const waits: number[] = [];
  try {
    while (!stop.done) {
      const started = performance.now();
      const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      for (;;) {
        const r = await replica.query<{ ok: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [rows[0]!.lsn]);
        if (r.rows[0]!.ok) break;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await primary.end();
    await replica.end();
  }
  return waits;
}

/** `db_reader_statements_total` of an instance, by where the statements ran. */
async function readerStatements(i: Instance): Promise<{ replica: number; primary: number }> {
  const text = await (await fetch(`${i.url}/metrics`)).text();
  const of = (on: string) => Number(new RegExp(`^db_reader_statements_total\\{on="${on}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { replica: of('replica'), primary: of('primary') };
}

async function run(service: Service, databaseUrl: string): Promise<void> {
  const data = await generate(service);
  const owner = { email: data.callers.owner.email, organizationId: data.callers.owner.organizationId!, animalId: data.animalId };
  const database = new URL(databaseUrl).pathname.slice(1);
  const replicaUrl = await findReplica(process.env.DATABASE_URL!, database);
  console.log(replicaUrl ? `  replica: ${replicaUrl.replace(/\/\/[^@]*@/, '//')}` : '  replica: none (set BENCH_REPLICA_URL, or run .ci/replica as root): the replica rows are left out');
  const instances: Instance[] = [];
  const start = async (replica?: string) => {
    const i = await startInstance(databaseUrl, replica);
    instances.push(i);
    return i;
  };
  try {
    const [a, b] = [await start(), await start()];
    const setups: Setup[] = [
      { name: '1 instance', instances: [a] },
      { name: '2 instances', instances: [a, b] },
    ];
    let onReplica: [Instance, Instance] | null = null;
    if (replicaUrl) {
      onReplica = [await start(replicaUrl), await start(replicaUrl)];
      setups.push({ name: '1 on replica', instances: [onReplica[0]] }, { name: '2 on replica', instances: onReplica });
    }
    const token = await signIn(a.url, owner.email, PASSWORD, owner.organizationId);
    console.log(`\n  reads: bench:peers' four, the service's forms, ${availableParallelism()} cores`);
    await reads(setups, benches(owner.animalId), token);

    const mixAt = onReplica ?? [a, b];
    console.log(`\n  writes: bench:scale-writes' mix against 2 instances${onReplica ? ' (their reads on the replica)' : ''}, load average ${loadavg()[0]!.toFixed(2)}`);
    const before = onReplica ? await Promise.all(onReplica.map(readerStatements)) : null;
    const stop = { done: false };
    const lag = replicaUrl ? sampleLag(databaseUrl, replicaUrl, stop) : Promise.resolve([]);
    // Tenants are made through the in-process service (it opened the scratch database); their requests go to the two processes.
    const [county] = await service.orm.em.fork().execute<{ id: string }[]>('select id from county order by str_ibge_code limit 1');
    const mix = await writeMix(service, [mixAt[0].url, mixAt[1].url], county!.id).finally(() => {
      stop.done = true;
    });
    const waits = await lag;
    if (!mix.ok) process.exitCode = 1;
    if (replicaUrl && onReplica && before) {
      const after = await Promise.all(onReplica.map(readerStatements));
      const on = (k: 'replica' | 'primary') => after.reduce((s, x, i) => s + x[k] - before[i]![k], 0);
      console.log(
        `  replica lag under the mix (${waits.length} samples, 100 ms apart: primary position → replayed): p50 ${percentile(waits, 50).toFixed(1)} ms, ` +
          `p95 ${percentile(waits, 95).toFixed(1)} ms, max ${Math.max(...waits).toFixed(1)} ms: the read-your-writes wait a caller who just wrote sees (p95)`,
      );
      console.log(`  reader statements during the mix: ${on('replica')} on the replica, ${on('primary')} on the primary (read-your-writes and lag), load average ${loadavg()[0]!.toFixed(2)}`);
    }
  } finally {
    for (const i of instances) await stopInstance(i);
  }
}

exitWhenDone(async () => {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) throw new Error('bench:scale needs PostgreSQL: set DATABASE_URL');
  // The in-process service migrates the scratch database and makes the data; the measured instances are processes.
  await onPostgres(pgUrl, process.env.BENCH_DATABASE ?? `bench_scale_${process.pid}`, (where) => `bench:scale, ${where}`, run);
});
