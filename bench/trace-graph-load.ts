/**
 * The trace graph's full load (src/trace/graph/trace-graph.source.ts; docs/decisions/trace.md, "The
 * graph kept fresh"), A/B: `copy` (the store's PostgreSQL load: a binary COPY parsed here) against
 * `keyset` (the same rows by `id > last order by id limit 50000`, as the PGlite load reads them,
 * parsed by pg). Alternated (A B B A …) ROUNDS times, each on a fresh pool of one connection with
 * jit off. Per run: rows, wall seconds, rows/s, this process's CPU, the backend's CPU
 * (/proc/<pid>/stat, the server on this machine), the heap kept by a graph that holds every row,
 * the load average. KEEP=0 drops each chunk (the cost of reading alone).
 * Run: npm run build:ts && ROUNDS=3 DATABASE_URL=postgres://postgres@127.0.0.1:5432/<copy> node_modules/.bin/node dist/bench/trace-graph-load.js [copy|keyset ...]
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { ticksOf } from './peer-requests.js';
import { Interner } from '../src/trace/graph/trace-graph.ids.js';
import { stayOfTuple, staysSelect } from '../src/trace/graph/trace-graph.rows.js';
import { pgGraphSource } from '../src/trace/graph/trace-graph.source.js';
import { isStayChunk, type GraphStay, type StayRows } from '../src/trace/graph/trace-graph.types.js';

const rounds = Number(process.env.ROUNDS ?? 3);
const url = process.env.DATABASE_URL!;
/** KEEP=0: each chunk dropped once counted (a graph that copies the rows into arrays of its own), no heap figure. */
const keep = process.env.KEEP !== '0';
const modes = process.argv.slice(2).length ? process.argv.slice(2) : ['copy', 'keyset'];

async function keyset(pool: pg.Pool, onChunk: (rows: GraphStay[]) => void): Promise<void> {
  const ids = new Interner();
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const text = `${staysSelect('micros', 'where s.id > $1')} order by s.id limit 50000`;
    for (let after = -1; ; ) {
      const { rows } = await client.query({ text, values: [after], rowMode: 'array', types: pg.types, name: 'keyset' });
      const stays = (rows as unknown[][]).map((r) => stayOfTuple(r, ids));
      if (stays.length) onChunk(stays);
      if (stays.length < 50000) break;
      after = stays[stays.length - 1]!.id;
    }
    await client.query('commit');
  } finally {
    client.release();
  }
}

async function once(mode: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1, options: '-c jit=off' });
  const { rows } = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
  const pid = rows[0]!.pid;
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const kept: StayRows[] = [];
  let n = 0;
  const onChunk = (r: StayRows) => {
    n += isStayChunk(r) || Array.isArray(r) ? r.length : 0;
    if (keep) kept.push(r);
  };
  const t0 = await ticksOf([pid]);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  if (mode === 'copy') await pgGraphSource(pool).load(onChunk);
  else await keyset(pool, onChunk);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const backend = ((await ticksOf([pid])) - t0) * 10;
  global.gc?.();
  const heap = (process.memoryUsage().heapUsed - heap0) / 1e6;
  console.log(
    `${mode}: ${n} rows in ${seconds.toFixed(2)} s (${Math.round(n / seconds)} rows/s); node CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; backend CPU ${(backend / 1000).toFixed(2)} s; heap kept ${heap.toFixed(0)} MB (${((heap * 1e6) / n).toFixed(0)} B/stay); load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  kept.length = 0;
  await pool.end();
}

for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...modes].reverse() : modes;
  for (const mode of order) await once(mode);
}
