/**
 * What keeping the trace graph fresh costs a trace (src/trace/graph/trace-graph.store.ts): on a copy
 * of a bench herd, after the full load, ROUNDS times: `current()` with nothing changed (the one
 * statement), then after a committed move of HEAD animals (their open stays closed, new ones
 * opened: 2 × HEAD stay rows), `current()` again (the animals' whole paths read again). Wall time
 * and the load average. It writes: run it on a copy only.
 * Run: npm run build:ts && ROUNDS=3 HEAD=5000 DATABASE_URL=postgres://postgres@127.0.0.1:5432/<copy> node_modules/.bin/node dist/bench/trace-graph-refresh.js
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { pgGraphSource } from '../src/trace/graph/trace-graph.source.js';
import { TraceGraphStore, type GraphSink } from '../src/trace/graph/trace-graph.store.js';
import { isStayChunk, type GraphStay, type StayRows } from '../src/trace/graph/trace-graph.types.js';

const rounds = Number(process.env.ROUNDS ?? 3);
const HEAD = Number(process.env.HEAD ?? 5000);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

class CountingGraph implements GraphSink {
  stays = 0;
  replaced = 0;
  add(rows: StayRows): void {
    this.stays += isStayChunk(rows) || Array.isArray(rows) ? rows.length : [...rows].length;
  }
  replaceAnimals(ids: readonly string[], rows: readonly GraphStay[]): void {
    this.replaced += rows.length;
  }
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4, options: '-c jit=off' });
const store = new TraceGraphStore(pgGraphSource(pool), () => new CountingGraph(), { purgeEveryMs: 0 });
let started = performance.now();
await store.ready();
console.log(`loaded ${(await store.current()).stays} stays in ${((performance.now() - started) / 1000).toFixed(2)} s; load ${load()}`);
for (let round = 0; round < rounds; round++) {
  started = performance.now();
  await store.current();
  const unchanged = performance.now() - started;
  const { rows } = await pool.query<{ unit: string; est: string }>('select id as unit, establishment_id as est from control_unit order by random() limit 1');
  await pool.query(
    `with herd as (select animal_id from animal_stay_current order by random() limit $3),
          closed as (update animal_stay s set ts_to = now() from herd where s.animal_id = herd.animal_id and s.ts_to is null returning s.animal_id)
     insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) select animal_id, $1, $2, now() from closed`,
    [rows[0]!.unit, rows[0]!.est, HEAD],
  );
  started = performance.now();
  const graph = await store.current();
  const changed = performance.now() - started;
  console.log(`nothing changed: ${unchanged.toFixed(1)} ms; after a move of ${HEAD} animals: ${changed.toFixed(0)} ms (${store.stats.animalsReread} animals read again so far, ${graph.replaced} rows); load ${load()}`);
}
await pool.end();
