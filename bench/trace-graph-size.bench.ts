/**
 * The trace graph's size and load (issue 37's figures) on a kept herd: DATABASE_URL names the
 * database a `BENCH_KEEP_DATABASE=1 npm run bench:trace` left (bench_trace). Loads every stay as the
 * engine does (the binary COPY, its ids interned from their bytes) into a TraceGraph and builds its
 * indexes: seconds, the bytes a stay takes in the graph (typed arrays; uuid tables apart), the heap
 * and RSS it added; then 10,000 moves (an animal's open stay closed and a new one opened at another
 * unit, as a reception writes them: `replaceAnimals`) and the bytes after them and after the next
 * build. The load average beside each figure.
 * Run: npm run build:ts && DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_trace node_modules/.bin/node --expose-gc dist/bench/trace-graph-size.bench.js
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { TraceGraph } from '../src/trace/graph/trace-graph.js';
import { pgGraphSource } from '../src/trace/graph/trace-graph.source.js';
import type { GraphStay } from '../src/trace/graph/trace-graph.types.js';
import { exitWhenDone } from './support.js';

const MOVES = Number(process.env.MOVES ?? 10_000);
const load = () => `[load ${loadavg().map((l) => l.toFixed(2)).join(' ')}]`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

function sizes(label: string, graph: TraceGraph): void {
  const n = graph.stays;
  console.log(
    `  ${label}: ${n.toLocaleString('en')} stays; records and indexes ${mb(graph.bytes)} = ${(graph.bytes / n).toFixed(1)} bytes a stay,` +
      ` uuid tables ${mb(graph.uuidBytes)} = ${(graph.uuidBytes / n).toFixed(1)} bytes a stay; together ${((graph.bytes + graph.uuidBytes) / n).toFixed(1)} bytes a stay ${load()}`,
  );
}

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2, options: '-c jit=off' });
  try {
    const before = memory();
    const graph = new TraceGraph();
    let started = performance.now();
    await pgGraphSource(pool).load((rows) => graph.add(rows));
    const loaded = performance.now() - started;
    started = performance.now();
    graph.ensureBuilt();
    const built = performance.now() - started;
    const after = memory();
    console.log(`  loaded in ${(loaded / 1000).toFixed(1)} s (COPY, ids from bytes), indexes built in ${(built / 1000).toFixed(1)} s; heap +${mb(after.heap - before.heap)}, RSS +${mb(after.rss - before.rss)} ${load()}`);
    sizes('at rest', graph);
    // MOVES animals with an open stay: each closed a day after it began and followed by a stay at another unit.
    const { rows } = await pool.query<{ animal: string }>({ text: `select animal_id::text as animal from animal_stay where ts_to is null limit ${MOVES}` });
    const moved = rows.map((r) => r.animal);
    const paths: GraphStay[] = [];
    let nextId = 1e12;
    const unitIds: string[] = [];
    for (let u = 0; u < Math.min(graph.unitCount, 1000); u++) unitIds.push(graph.unitId(u));
    for (const [k, id] of moved.entries()) {
      const a = graph.animalIndex(id)!;
      const stays: GraphStay[] = [];
      graph.forEachStayOfAnimal(a, (s) => stays.push({ id: graph.stayId(s), animal: id, unit: graph.unitId(graph.stayUnit(s)), establishment: graph.establishmentId(graph.stayEstablishment(s)), from: graph.stayFrom(s), to: Number.isNaN(graph.stayTo(s)) ? null : graph.stayTo(s), vehicle: null, egress: null }));
      const open = stays[stays.length - 1]!;
      const at = open.from + 86_400_000_000;
      open.to = at;
      stays.push({ id: nextId++, animal: id, unit: unitIds[k % unitIds.length]!, establishment: open.establishment, from: at, to: null, vehicle: null, egress: null });
      paths.push(...stays);
    }
    started = performance.now();
    for (let i = 0; i < moved.length; i += 500) {
      const ids = moved.slice(i, i + 500);
      const set = new Set(ids);
      graph.replaceAnimals(ids, paths.filter((p) => set.has(p.animal)));
    }
    console.log(`  ${moved.length.toLocaleString('en')} moves applied in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    sizes(`after ${moved.length.toLocaleString('en')} moves`, graph);
    graph.ensureBuilt();
    sizes('after the next build', graph);
  } finally {
    await pool.end();
  }
}

exitWhenDone(main);
