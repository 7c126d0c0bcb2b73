/**
 * The walk in memory (docs/decisions/trace.md, "The walk in memory") on a kept herd: DATABASE_URL
 * names a COPY of one (`createdb -T bench_1m <name>_1m`; its scratch tables name the seeds). Loads
 * every stay into a TraceGraph (graphStaysSql, pages of 50,000: PostgreSQL's reading and the
 * graph's appending timed apart, then the index build; the process's RSS, heap and array buffers
 * before and after, the graph's bytes per stay), then asks bench/trace.bench.ts's three questions:
 * walkGraph (median of WALKS=5, process CPU; first, inside the transaction of the first SQL run, at its now())
 * and trace_runs in SQL (SQL_RUNS=3, the backend's CPU from /proc, jit off), and compares the rows of the
 * first SQL run with the walk's
 * (the same multiset of every column: equal and differing counts, by a 52-bit hash of each row).
 * Run: npm run build:ts && DATABASE_URL=postgres://postgres@127.0.0.1:5432/<copy> node_modules/.bin/node --expose-gc dist/bench/trace-graph.bench.js
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { TraceGraph } from '../src/trace/graph/trace-graph.js';
import { readGraphStays, type GraphStayRow } from '../src/trace/graph/trace-graph.rows.js';
import { walkGraph, type WalkResult } from '../src/trace/walk/trace-walk.js';
import { ticksOf } from './peer-requests.js';
import { medianOf } from './peers.bench.js';
import { exitWhenDone } from './support.js';
import { benchSeeds } from './trace.bench.js';

const WALKS = Number(process.env.WALKS ?? 5);
const SQL_RUNS = Number(process.env.SQL_RUNS ?? 3);
const load = () => `[load ${loadavg().map((l) => l.toFixed(2)).join(' ')}]`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const us = (iso: string) => Date.parse(iso) * 1000;

function memory(): { rss: number; heap: number; buffers: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, buffers: m.arrayBuffers };
}

/** A row's hash over every column (two 26-bit halves: a float64 without loss). */
function rowHash(cols: number[]): number {
  let a = 0x9e3779b9 | 0;
  let b = 0x85ebca6b | 0;
  for (const c of cols) {
    const lo = c % 4294967296 | 0;
    const hi = Math.floor(c / 4294967296) | 0;
    a = Math.imul(a ^ lo, 0x5bd1e995) ^ (a >>> 13);
    a = Math.imul(a ^ hi, 0x5bd1e995) ^ (a >>> 15);
    b = Math.imul(b ^ hi, 0xcc9e2d51) ^ (b >>> 13);
    b = Math.imul(b ^ lo, 0x1b873593) ^ (b >>> 16);
  }
  return (a >>> 6) * 67108864 + (b >>> 6);
}

/** Every column as numbers: graph indexes for uuids (-1 null, -2 unknown to the graph), stay id, µs (NaN null as -1). */
const walkHashes = (graph: TraceGraph, r: WalkResult): Float64Array => {
  const h = new Float64Array(r.length);
  for (let i = 0; i < r.length; i++) {
    const via = r.viaTime[i]!;
    h[i] = rowHash([r.animal[i]!, r.unit[i]!, r.establishment[i]!, graph.stayId(r.stay[i]!), r.exposure[i]!, r.hops[i]!, r.viaAnimal[i]!, r.viaUnit[i]!, Number.isNaN(via) ? -1 : via, r.seed[i]!]);
  }
  return h.sort();
};

/** Equal and differing rows of two sorted hash lists (a multiset merge). */
function compare(a: Float64Array, b: Float64Array): { equal: number; onlyWalk: number; onlySql: number } {
  let i = 0;
  let j = 0;
  let equal = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      equal++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return { equal, onlyWalk: a.length - equal, onlySql: b.length - equal };
}

async function main(): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('set jit = off');
  const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const data = await benchSeeds(async (sql) => (await client.query(sql)).rows);

  // The load.
  const before = memory();
  const graph = new TraceGraph();
  let reading = 0;
  let adding = 0;
  let t = performance.now();
  const query = async (sql: string, params: unknown[]) => (await client.query<GraphStayRow>(sql, params)).rows;
  for await (const page of readGraphStays(query)) {
    const a = performance.now();
    reading += a - t;
    graph.add(page);
    t = performance.now();
    adding += t - a;
  }
  const appended = memory();
  let started = performance.now();
  graph.ensureBuilt();
  const building = performance.now() - started;
  const after = memory();
  const n = graph.stays;
  console.log(
    `load: ${n.toLocaleString('en')} stays, ${graph.animalCount.toLocaleString('en')} animals, ${graph.unitCount.toLocaleString('en')} units, ${graph.vehicleCount.toLocaleString('en')} vehicles` +
      ` | PostgreSQL's reading ${(reading / 1000).toFixed(1)} s, add ${(adding / 1000).toFixed(2)} s (${Math.round(n / (adding / 1000)).toLocaleString('en')} rows/s), index build ${(building / 1000).toFixed(2)} s ${load()}`,
  );
  console.log(
    `memory: RSS ${mb(before.rss)} → ${mb(after.rss)} (${mb(appended.rss)} before the build), heap ${mb(before.heap)} → ${mb(after.heap)}, array buffers ${mb(before.buffers)} → ${mb(after.buffers)}` +
      ` | graph typed arrays ${mb(graph.bytes)} = ${(graph.bytes / n).toFixed(1)} bytes per stay, uuid tables ${mb(graph.uuidBytes)} (${(graph.uuidBytes / n).toFixed(1)} bytes per stay); RSS ${((after.rss - before.rss) / n).toFixed(1)} bytes per stay (the driver's garbage not returned)`,
  );

  const questions: [string, { kind: 'establishment' | 'animal'; id: string }, [string, string], boolean, number | null][] = [
    ['forward from an auction, 90 days, 1 hop', { kind: 'establishment', id: data.hubEstablishment }, data.window, true, 1],
    ['forward from an auction, 90 days, unlimited hops', { kind: 'establishment', id: data.hubEstablishment }, data.window, true, null],
    ['backward from one slaughtered animal, its last 90 days', { kind: 'animal', id: data.slaughtered }, data.victimWindow, false, null],
  ];
  for (const [label, seed, [from, to], forward, maxHops] of questions) {
    const seedSql = seed.kind === 'establishment' ? 's.establishment_id' : 's.animal_id';
    const seedsOf = `array(select s.id from animal_stay s where ${seedSql} = $1 and s.ts_from <= $3 and coalesce(s.ts_to, now()) >= $2)`;
    const args = [seed.id, from, to, forward, maxHops];
    const walk = `trace_runs(${seedsOf}, $2::timestamptz, $3::timestamptz, $4::boolean, $5::integer)`;
    // One transaction for the first SQL run: its now() is the walk's. The walks run first, before any
    // SQL rows are in this process's heap (their garbage would be collected during the walks).
    await client.query('begin');
    const now = Number((await client.query<{ now: number }>('select (extract(epoch from now()) * 1000000)::float8 as now')).rows[0]!.now);
    memory();
    const walkCpu: number[] = [];
    const walkWall: number[] = [];
    let result: WalkResult | undefined;
    let seeds: number[] = [];
    for (let run = 0; run < WALKS; run++) {
      const cpu = process.cpuUsage();
      started = performance.now();
      seeds = graph.seedStays(seed, us(from), us(to), now);
      result = walkGraph(graph, { seeds, from: us(from), to: us(to), forward, maxHops, now });
      walkWall.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      walkCpu.push((used.user + used.system) / 1000);
    }
    const walkLoad = load();
    // trace_runs: the first run's rows kept (as hashes over graph indexes).
    const sqlCpu: number[] = [];
    let ticks = await ticksOf([pid]);
    await client.query(`create temp table h19g_rows on commit drop as select * from ${walk}`, args);
    sqlCpu.push(((await ticksOf([pid])) - ticks) * 10);
    const { rows } = await client.query<Record<string, string | number | boolean | null>>(
      `select animal_id, control_unit_id, establishment_id, stay_id::float8 as stay_id, (extract(epoch from ts_exposure) * 1000000)::float8 as ex, int_hops,
              via_animal_id, via_control_unit_id, (extract(epoch from ts_via) * 1000000)::float8 as via, bl_seed from h19g_rows`,
    );
    await client.query('commit');
    let unknown = 0;
    const index = (id: unknown, find: (u: string) => number | undefined) => (id === null ? -1 : (find(id as string) ?? (unknown++, -2)));
    const sqlHashes = new Float64Array(rows.length);
    rows.forEach((r, i) => {
      sqlHashes[i] = rowHash([
        index(r.animal_id, (u) => graph.animalIndex(u)),
        index(r.control_unit_id, (u) => graph.unitIndex(u)),
        index(r.establishment_id, (u) => graph.establishmentIndex(u)),
        Number(r.stay_id),
        Number(r.ex),
        Number(r.int_hops),
        index(r.via_animal_id, (u) => graph.animalIndex(u)),
        index(r.via_control_unit_id, (u) => graph.unitIndex(u)),
        r.via === null ? -1 : Number(r.via),
        r.bl_seed ? 1 : 0,
      ]);
    });
    sqlHashes.sort();
    for (let run = 1; run < SQL_RUNS; run++) {
      ticks = await ticksOf([pid]);
      await client.query(`select count(*) from ${walk}`, args);
      sqlCpu.push(((await ticksOf([pid])) - ticks) * 10);
    }
    const sqlLoad = load();
    const same = compare(walkHashes(graph, result!), sqlHashes);
    const animals = new Set(result!.animal).size;
    console.log(
      `${label}: ${seeds.length} seeds, ${result!.length.toLocaleString('en')} rows (${animals.toLocaleString('en')} animals)` +
        ` | walkGraph median ${medianOf(walkCpu).toFixed(0)} ms CPU, ${medianOf(walkWall).toFixed(0)} ms wall (${WALKS} runs) ${walkLoad}` +
        ` | trace_runs backend CPU ${sqlCpu.map((c) => `${(c / 1000).toFixed(2)} s`).join(', ')} ${sqlLoad}` +
        ` | rows equal ${same.equal.toLocaleString('en')}, only in the walk ${same.onlyWalk}, only in SQL ${same.onlySql}${unknown ? `, uuids unknown to the graph ${unknown}` : ''}`,
    );
  }
  await client.end();
}

exitWhenDone(main);
