/**
 * Writes of distinct tenants never wait on each other (issue 9): throughput of establishment
 * updates (each one transaction with its event) from 1 client, then from 16 clients each of its
 * own organization, over HTTP, on a scratch database of the PostgreSQL in DATABASE_URL (required;
 * named after this process, so two runs on one server do not drop each other's).
 *
 * The clients run in a process of their own (bench/writes.client.ts), off the service's event loop. After a
 * warm-up (every client, so every pooled connection has prepared its statements), BENCH_ROUNDS
 * rounds (default 3) of BENCH_DURATION seconds (default 5) each measure 1 client then 16 back to
 * back, so each round's ratio compares two phases under the same load from the rest of the machine.
 * Prints per phase writes/s, p50 latency, SQL statements per write (X-SQL-Statements), how busy the
 * service's event loop was and the CPU time per write of the service's process and of the scratch
 * database's PostgreSQL backends (from /proc, when PostgreSQL runs on this machine), and how often
 * a backend of the scratch database was found waiting on a lock (pg_stat_activity sampled every
 * 20 ms from a connection of its own: distinct tenants should never wait on one another); per round
 * the ratio; then the median ratio.
 * Run: npm run bench:writes
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Service } from '../src/server.js';
import { benchOwner, benchUnit, exitWhenDone, onPostgres, serve, signIn } from './support.js';
import type { ClientJob, ClientResult } from './writes.client.js';

const CLIENTS = 16;
const SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PASSWORD = 'bench-password-1';

interface Tenant {
  token: string;
  establishmentId: string;
}

async function tenant(service: Service, url: string): Promise<Tenant> {
  const { org, user } = await benchOwner(service, PASSWORD);
  const unitId = await benchUnit(service, org.id, 'PRODUCTION', 'Retiro');
  const [unit] = await service.orm.em.fork().execute<{ establishment_id: string }[]>('select establishment_id from control_unit where id = ?', [unitId]);
  return { token: await signIn(url, user.str_email, PASSWORD, org.id), establishmentId: unit!.establishment_id };
}

interface Phase {
  perSecond: number;
  p50: number;
  statements: number;
  /** Share of the phase the service's event loop was busy (0..1). */
  loop: number;
  /** CPU milliseconds per write: the service's process (user, system), and the scratch database's backends (null when not readable). */
  serviceCpu: number;
  serviceSystem: number;
  /** Backends seen busy (in a statement or a transaction) and seen waiting on a heavyweight lock, over every sample, with the locks' kinds. */
  busySamples: number;
  lockSamples: number;
  lockKinds: Set<string>;
  databaseCpu: number | null;
}

/** CPU seconds (user + system) of each PostgreSQL backend connected to the scratch database, when /proc shows them. */
async function backendCpu(service: Service): Promise<Map<number, number> | null> {
  const rows = await service.orm.em.fork().execute<{ pid: number }[]>('select pid from pg_stat_activity where datname = current_database()');
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 a second).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      return null; // PostgreSQL on another machine (or another user's processes hidden)
    }
  }
  return cpu;
}

/** Samples the scratch database's backends until stopped: how many were busy, and how many of those waited on a lock. */
function sampleLocks(watcher: pg.Client): () => Promise<{ busy: number; locked: number; kinds: Set<string> }> {
  const seen = { busy: 0, locked: 0, kinds: new Set<string>() };
  let stopped = false;
  // Rejections are kept for stop(): the sampler must not bring the process down before the scratch database is dropped.
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await watcher.query<{ state: string | null; wait_event_type: string | null; wait_event: string | null }>(
        `select state, wait_event_type, wait_event from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      );
      for (const r of rows) {
        // A backend still starting has no state yet.
        if (r.state !== 'active' && !r.state?.startsWith('idle in transaction')) continue;
        seen.busy++;
        if (r.wait_event_type === 'Lock') {
          seen.locked++;
          seen.kinds.add(r.wait_event ?? '?');
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })().then(
    () => null,
    (err: unknown) => err,
  );
  return async () => {
    stopped = true;
    const failed = await loop;
    if (failed) throw failed;
    return seen;
  };
}

/** The tenants' clients in the client process for `seconds`. Every write must answer 200. */
async function driveWith(service: Service, watcher: pg.Client, clients: ChildProcess, url: string, tenants: Tenant[], seconds: number, round: string): Promise<Phase> {
  const job: ClientJob = { url, tenants, seconds, round };
  const backendsBefore = await backendCpu(service);
  const stopSampling = sampleLocks(watcher);
  const loopBefore = performance.eventLoopUtilization();
  const cpuBefore = process.cpuUsage();
  const answered = new Promise<ClientResult | { error: string }>((resolve, reject) => {
    clients.once('message', (m) => resolve(m as ClientResult | { error: string }));
    clients.once('exit', (code) => reject(new Error(`the client process exited (${code})`)));
  });
  clients.send(job);
  const result = await answered;
  const locks = await stopSampling();
  clients.removeAllListeners('exit');
  const cpu = process.cpuUsage(cpuBefore);
  const loop = performance.eventLoopUtilization(loopBefore).utilization;
  const backendsAfter = await backendCpu(service);
  if ('error' in result) throw new Error(result.error);
  if (result.failed) throw new Error(`${result.failed} writes failed, the first: ${result.firstFailure}`);
  const sorted = result.latencies.sort((a, b) => a - b);
  let databaseCpu: number | null = null;
  if (backendsBefore && backendsAfter) {
    databaseCpu = 0;
    for (const [pid, seconds] of backendsAfter) databaseCpu += seconds - (backendsBefore.get(pid) ?? 0);
    databaseCpu = (databaseCpu * 1000) / result.done;
  }
  return {
    perSecond: result.done / result.seconds,
    p50: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    statements: result.statements / result.done,
    loop,
    serviceCpu: (cpu.user + cpu.system) / 1000 / result.done,
    serviceSystem: cpu.system / 1000 / result.done,
    databaseCpu,
    busySamples: locks.busy,
    lockSamples: locks.locked,
    lockKinds: locks.kinds,
  };
}

const show = (p: Phase) =>
  `${p.perSecond.toFixed(0).padStart(4)} writes/s, p50 ${p.p50.toFixed(1).padStart(6)} ms, ${p.statements.toFixed(1)} SQL/write, service loop ${(p.loop * 100).toFixed(0).padStart(3)}% busy, ` +
  `CPU/write: service ${p.serviceCpu.toFixed(1)} ms (system ${p.serviceSystem.toFixed(1)}), PostgreSQL ${p.databaseCpu === null ? '?' : `${p.databaseCpu.toFixed(1)} ms`}, ` +
  `lock waits ${p.lockSamples}/${p.busySamples} busy backend samples${p.lockKinds.size ? ` (${[...p.lockKinds].join(', ')})` : ''}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) throw new Error('bench:writes needs DATABASE_URL (a PostgreSQL; PGlite is one session and serves one request at a time)');
  const scratch = `bench_writes_${process.pid}`;
  await onPostgres(pgUrl, scratch, (where) => `${where}: establishment updates, 1 client vs ${CLIENTS} clients of distinct organizations, ${ROUNDS} rounds of ${SECONDS} s`, async (service, databaseUrl) => {
    const url = await serve(service);
    const tenants: Tenant[] = [];
    for (let i = 0; i < CLIENTS; i++) tenants.push(await tenant(service, url));
    if (new Set(tenants.map((t) => t.establishmentId)).size !== CLIENTS) throw new Error('tenants share an establishment');
    const clients = fork(new URL('./writes.client.js', import.meta.url), { stdio: 'inherit' });
    const watcher = new pg.Client({ connectionString: databaseUrl });
    await watcher.connect();
    const drive = (ts: Tenant[], seconds: number, round: string) => driveWith(service, watcher, clients, url, ts, seconds, round);
    try {
      await drive(tenants, 2, 'warm'); // every pooled connection prepares its statements
      await drive(tenants.slice(0, 1), 1, 'warm1');
      const ratios: number[] = [];
      for (let r = 1; r <= ROUNDS; r++) {
        const one = await drive(tenants.slice(0, 1), SECONDS, `${r}a`);
        const many = await drive(tenants, SECONDS, `${r}b`);
        ratios.push(many.perSecond / one.perSecond);
        console.log(`  round ${r}:  1 client:  ${show(one)}`);
        console.log(`  round ${r}: ${CLIENTS} clients: ${show(many)}; ratio ×${(many.perSecond / one.perSecond).toFixed(2)}`);
      }
      console.log(`  ratios ${ratios.map((x) => `×${x.toFixed(2)}`).join(', ')}; median ×${median(ratios).toFixed(2)}`);
    } finally {
      clients.kill();
      await watcher.end();
    }
  });
}

exitWhenDone(main);
