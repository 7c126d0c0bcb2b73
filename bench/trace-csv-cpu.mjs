/**
 * The trace CSV's COPY, A/B in backend CPU (docs/benchmarks.md, "h25c"): each argument
 * `database:file.sql` is one arm, a `COPY (…) TO STDOUT` statement as the service sends it (its
 * run id inlined); the arms run in turn, alternated (A B B A A B …), each on a fresh session with
 * `jit = off`, planned once unmeasured (a warm session), ROUNDS times. Per run: the backend's utime + stime from /proc/<pid>/stat (the
 * server on this machine), the bytes and their sha256, the load average.
 * Run: ROUNDS=3 node bench/trace-csv-cpu.mjs wt_x_1m:/tmp/old.sql wt_x_1mp:/tmp/old.sql …
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

const rounds = Number(process.env.ROUNDS ?? 3);
const arms = process.argv.slice(2).map((arg) => {
  const [database, file] = arg.split(':');
  return { label: arg, database, sql: readFileSync(file, 'utf8').trim().replace(/;$/, ''), cpu: [], sha: new Set() };
});
const ticks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime (fields 14, 15), 100 Hz: ms
};

async function once(arm) {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${arm.database}` });
  await client.connect();
  try {
    await client.query('set jit = off');
    const { rows } = await client.query('select pg_backend_pid() as pid');
    const pid = rows[0].pid;
    // A warm session, as the service's pooled ones: the plan once unmeasured (catalog caches of every partition and index).
    await client.query(`explain ${arm.sql.replace(/^copy \(/, '').replace(/\) to stdout \(format csv, header true\)$/, '')}`);
    const before = ticks(pid);
    const wall = performance.now();
    const sha = createHash('sha256');
    let bytes = 0;
    await new Promise((resolve, reject) => {
      const stream = client.query(copyTo(arm.sql));
      stream.on('data', (chunk) => {
        bytes += chunk.length;
        sha.update(chunk);
      });
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    const cpu = ticks(pid) - before;
    const digest = sha.digest('hex').slice(0, 16);
    arm.cpu.push(cpu);
    arm.sha.add(digest);
    console.log(`${arm.label}: ${cpu} ms CPU, ${Math.round(performance.now() - wall)} ms wall, ${bytes} bytes, sha256 ${digest} [load ${loadavg().map((l) => l.toFixed(1)).join(' ')}]`);
  } finally {
    await client.end();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [...arms].reverse() : arms;
  for (const arm of order) await once(arm);
}
for (const arm of arms) console.log(`== ${arm.label}: median ${median(arm.cpu)} ms (${arm.cpu.join(', ')}), sha256 ${[...arm.sha].join(' ')}`);
