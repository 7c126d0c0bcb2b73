/**
 * What a trace costs the service's other requests (issue 37; ARCHITECTURE.md, "Derived engines"):
 * on bench:trace's herd (BENCH_TRACE_ANIMALS, default 1,000,000; BENCH_REUSE_DATABASE=1 measures a
 * herd a BENCH_KEEP_DATABASE=1 run kept), as an AUTHORITY of the UF (the biggest caller: a state),
 * BENCH_ISOLATION_CLIENTS (default 4) clients per kind of read, from a thread of their own, for
 * BENCH_ISOLATION_SECONDS (default 20) each sitting: a point read (`animal(id)`, random animals) and
 * a nested page (50 animals with tag → unit → establishment → county), first alone, then while
 * backward traces of slaughtered animals run back to back (each a new question: its walk, its
 * answer's write). Prints each kind's p50, p95, p99 and requests per second in both, the ratio of
 * the p99s, the traces done, and the load average beside each. TRACE_GRAPH=false: the walk in SQL,
 * the peer. Run: DATABASE_URL=postgres://... npm run bench:trace-isolation
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { exitWhenDone, onPostgres, serve } from './support.js';
import { SERVICE_TREE } from './peer-requests.js';
import { readLoad, type LoadResult, type ReadKind } from './read-load.js';
import { traceClient } from './trace-client.js';
import { authority, generate } from './trace.bench.js';

const CLIENTS = Number(process.env.BENCH_ISOLATION_CLIENTS ?? 4);
const SECONDS = Number(process.env.BENCH_ISOLATION_SECONDS ?? 20);
const load = () => `[load ${loadavg().map((l) => l.toFixed(2)).join(' ')}]`;
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]! : NaN);

function line(label: string, r: LoadResult): Record<string, number> {
  const p99: Record<string, number> = {};
  for (const [kind, { ms, errors }] of Object.entries(r)) {
    p99[kind] = pct(ms, 99);
    console.log(`  ${label} ${kind}: ${ms.length} requests (${(ms.length / SECONDS).toFixed(0)}/s, ${errors} failed), p50 ${pct(ms, 50).toFixed(1)} ms, p95 ${pct(ms, 95).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(0)} ms ${load()}`);
  }
  return p99;
}

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) {
    console.log('bench:trace-isolation needs PostgreSQL: set DATABASE_URL');
    return;
  }
  await onPostgres(pgUrl, process.env.BENCH_TRACE_DATABASE ?? 'bench_trace', (where) => `trace isolation on ${where}`, async (service) => {
    const seeds = await generate(service);
    const loading = performance.now();
    await service.core.trace.ready();
    console.log(`  the trace's graph ready ${((performance.now() - loading) / 1000).toFixed(1)} s after the herd (TRACE_GRAPH=${process.env.TRACE_GRAPH ?? 'true'}) ${load()}`);
    const url = await serve(service);
    const token = await authority(service, url);
    const em = service.orm.em.fork();
    const ids = (await em.execute<{ id: string }[]>('select id from animal tablesample system (1) limit 2000')).map((r) => r.id);
    const kinds: ReadKind[] = [
      { name: 'animal(id)', query: `query Animal($id: UUID!) { animal(id: $id) { ${SERVICE_TREE} } }`, ids },
      { name: 'nested page of 50', query: `{ animals(page: {int_max_results: 50}) { data { ${SERVICE_TREE} } } }` },
    ];
    // Warm: every kind once for a few seconds (plans, caches), not measured.
    await readLoad({ url, token, kinds, clients: CLIENTS, ms: 3000 });
    const alone = line('alone', await readLoad({ url, token, kinds, clients: CLIENTS, ms: SECONDS * 1000 }));
    const { post, close } = traceClient();
    const backward = { animal_id: seeds.measured.slaughtered, ts_from: seeds.measured.victimWindow[0], ts_to: seeds.measured.victimWindow[1], str_direction: 'BACKWARD' };
    let tracing = true;
    const traceMs: number[] = [];
    const traces = (async () => {
      for (let i = 1; tracing; i++) {
        // each a question of its own (the window i ms earlier: the same answer), so that each walks
        const page = await post(url, token, { ...backward, ts_from: new Date(Date.parse(backward.ts_from) - i).toISOString() }, false);
        if (page.status !== 200) throw new Error(`trace: ${page.status} ${JSON.stringify(page.json)}`);
        traceMs.push(page.ms);
        await service.core.trace.settled();
      }
    })();
    // The first trace under way before the reads start.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during = line('during traces', await readLoad({ url, token, kinds, clients: CLIENTS, ms: SECONDS * 1000 }));
    tracing = false;
    await traces;
    await close();
    const status = service.core.trace.engineStatus;
    console.log(`  backward traces meanwhile: ${traceMs.length}, first page p50 ${pct(traceMs, 50).toFixed(0)} ms; engine ${status ? `${status.state}, ${status.walks} walks, ${status.fallbacks} in SQL` : 'off (walks in SQL)'} ${load()}`);
    for (const kind of Object.keys(alone)) console.log(`  p99 ratio (during / alone) ${kind}: ×${(during[kind]! / alone[kind]!).toFixed(2)}`);
  });
}

exitWhenDone(main);
