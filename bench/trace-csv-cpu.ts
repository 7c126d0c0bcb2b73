/**
 * The trace CSV's COPY, A/B in backend CPU (docs/benchmarks.md, "h25c"): each argument
 * `database:file.sql` is one arm, a `COPY (…) TO STDOUT` statement as the service sends it (its
 * run id inlined); the arms run in turn, alternated (A B B A A B …), each on a fresh session with
 * `jit = off`, planned once unmeasured (a warm session), ROUNDS times. Per run: the backend's utime + stime from /proc/<pid>/stat (the
 * server on this machine), the bytes and their sha256, the load average.
 * Run: npm run build:ts && ROUNDS=3 node_modules/.bin/node dist/bench/trace-csv-cpu.js wt_x_1m:/tmp/old.sql wt_x_1mp:/tmp/old.sql …
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { ticksOf } from './peer-requests.js';
import { exitWhenDone } from './support.js';
import { medianOf as median } from './peers.bench.js';

interface Arm {
  label: string;
  database: string;
  sql: string;
  cpu: number[];
  sha: Set<string>;
}

const rounds = Number(process.env.ROUNDS ?? 3);
const arms: Arm[] = process.argv.slice(2).map((arg) => {
  const [database, file] = arg.split(':') as [string, string];
  return { label: arg, database, sql: readFileSync(file, 'utf8').trim().replace(/;$/, ''), cpu: [], sha: new Set() };
});
// Clock ticks of 10 ms (CLK_TCK 100).
const ticks = async (pid: number) => (await ticksOf([pid])) * 10;

async function once(arm: Arm): Promise<void> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${arm.database}` });
  await client.connect();
  try {
    await client.query('set jit = off');
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const pid = rows[0]!.pid;
    // A warm session, as the service's pooled ones: the plan once unmeasured (catalog caches of every partition and index).
    await client.query(`explain ${arm.sql.replace(/^copy \(/, '').replace(/\) to stdout \(format csv, header true\)$/, '')}`);
    const before = await ticks(pid);
    const wall = performance.now();
    const sha = createHash('sha256');
    let bytes = 0;
    await new Promise<void>((resolve, reject) => {
      const stream = client.query(copyTo(arm.sql));
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        sha.update(chunk);
      });
      stream.on('error', reject);
      stream.on('end', () => resolve());
    });
    const cpu = (await ticks(pid)) - before;
    const digest = sha.digest('hex').slice(0, 16);
    arm.cpu.push(cpu);
    arm.sha.add(digest);
    console.log(`${arm.label}: ${cpu} ms CPU, ${Math.round(performance.now() - wall)} ms wall, ${bytes} bytes, sha256 ${digest} [load ${loadavg().map((l) => l.toFixed(1)).join(' ')}]`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...arms].reverse() : arms;
    for (const arm of order) await once(arm);
  }
  for (const arm of arms) console.log(`== ${arm.label}: median ${median(arm.cpu)} ms (${arm.cpu.join(', ')}), sha256 ${[...arm.sha].join(' ')}`);
}

exitWhenDone(main);
