/**
 * The event log's part of a 5,000-animal reconciliation (issue 20), alone, on PostgreSQL: the
 * events an ingress finish of 5,000 animals under 10 GTAs appended before (5,021 chained events:
 * one per animal, GTA and egress, and the ingress's) against now (one event on the ingress listing
 * them), with the same payloads, each in its own transaction, alternated BENCH_REPS times (default
 * 7) so that both see the same load. Prints medians, the load average, and the log's rows and bytes
 * each adds. Then the history of two animals moved 20 times each (20 reconciliations of 500 animals
 * each way), one through its own events, the other through listing events, read alternately 200
 * times through recordHistory (the reader GET /api/animals/{id}/history runs). Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:events
 * (BENCH_DATABASE names the scratch database, default bench_events_append).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Service } from '../src/server.js';
import { appendEvents, type EventInput } from '../src/shared/events.js';
import { recordHistory } from '../src/shared/history.js';
import { exitWhenDone, onPostgres } from './support.js';

const REPS = Number(process.env.BENCH_REPS ?? 7);
const ANIMALS = 5000;
const GTAS = 10;

interface Shape {
  ingressId: string;
  unitId: string;
  animals: { id: string; gta: number; at: string }[];
  gtas: string[];
  egresses: string[];
}

function shape(n = ANIMALS, traveller?: string): Shape {
  const gtas = Array.from({ length: GTAS }, () => randomUUID());
  return {
    ingressId: randomUUID(),
    unitId: randomUUID(),
    animals: Array.from({ length: n }, (_, i) => ({ id: i === 0 && traveller ? traveller : randomUUID(), gta: i % GTAS, at: new Date(Date.now() - i).toISOString() })),
    gtas,
    egresses: gtas.map(() => randomUUID()),
  };
}

const refsOf = (s: Shape) => ({ organization_id: s.unitId, to_control_unit_id: s.unitId, animals_ingress_id: s.ingressId });
const finished = (s: Shape) => ({ changes: { str_status: 'RECEIVED', int_received_count: ANIMALS, str_socioenvironmental_status: 'COMPLIANT' }, refs: refsOf(s) });

/** As animals-ingress.finish.ts appended them before issue 20. */
function perAnimal(s: Shape, actorId: string): EventInput[] {
  const refs = refsOf(s);
  return [
    { type: 'ANIMALS_INGRESS_FINISHED', recordType: 'AnimalsIngress', recordId: s.ingressId, actorId, payload: finished(s) },
    ...s.animals.map((a): EventInput => ({
      type: 'ANIMAL_RECEIVED',
      recordType: 'Animal',
      recordId: a.id,
      actorId,
      occurredAt: new Date(a.at),
      payload: { changes: { str_status: 'ACTIVE', last_control_unit_id: s.unitId, str_socioenvironmental_status: 'COMPLIANT' }, refs: { ...refs, gta_id: s.gtas[a.gta], animals_egress_id: s.egresses[a.gta] } },
    })),
    ...s.gtas.map((id): EventInput => ({ type: 'GTA_RECEIVED', recordType: 'Gta', recordId: id, actorId, payload: { changes: { str_status: 'RECEIVED' }, refs } })),
    ...s.egresses.map((id, g): EventInput => ({ type: 'ANIMALS_EGRESS_RECEIVED', recordType: 'AnimalsEgress', recordId: id, actorId, payload: { changes: { str_status: 'RECEIVED' }, refs: { ...refs, gta_id: s.gtas[g] } } })),
  ];
}

/** As it appends them now: one event listing them. */
function listing(s: Shape, actorId: string): EventInput[] {
  const refs = refsOf(s);
  return [
    {
      type: 'ANIMALS_INGRESS_FINISHED',
      recordType: 'AnimalsIngress',
      recordId: s.ingressId,
      actorId,
      payload: {
        ...finished(s),
        listed: {
          Animal: { str_event: 'ANIMAL_RECEIVED', changes: { str_status: 'ACTIVE', last_control_unit_id: s.unitId }, refs },
          Gta: { str_event: 'GTA_RECEIVED', changes: { str_status: 'RECEIVED' }, refs },
          AnimalsEgress: { str_event: 'ANIMALS_EGRESS_RECEIVED', changes: { str_status: 'RECEIVED' }, refs },
        },
      },
      subjects: [
        ...s.animals.map((a) => ({ recordType: 'Animal', recordId: a.id, occurredAt: new Date(a.at), own: { changes: { str_socioenvironmental_status: 'COMPLIANT' }, refs: { gta_id: s.gtas[a.gta], animals_egress_id: s.egresses[a.gta] } } })),
        ...s.gtas.map((id) => ({ recordType: 'Gta', recordId: id })),
        ...s.egresses.map((id, g) => ({ recordType: 'AnimalsEgress', recordId: id, own: { refs: { gta_id: s.gtas[g] } } })),
      ],
    },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(service: Service): Promise<void> {
  const em = service.orm.em.fork();
  const size = async () => {
    const [r] = await em.execute<{ er: string; eb: string; sr: string; sb: string }[]>(
      "select (select count(*) from event) as er, pg_total_relation_size('event') as eb, (select count(*) from event_subject) as sr, pg_total_relation_size('event_subject') as sb",
    );
    return { rows: Number(r!.er), listed: Number(r!.sr), bytes: Number(r!.eb) + Number(r!.sb) };
  };
  // Some log to append to: 50 earlier reconciliations' worth of events of other animals, both ways.
  for (let i = 0; i < 10; i++) {
    await service.orm.em.fork().transactional((tx) => appendEvents(tx, perAnimal(shape(), null as never)));
    await service.orm.em.fork().transactional((tx) => appendEvents(tx, listing(shape(), null as never)));
  }
  await em.execute('analyze');
  const results = { before: [] as number[], after: [] as number[], loads: [] as number[], grew: { before: { rows: 0, listed: 0, bytes: 0 }, after: { rows: 0, listed: 0, bytes: 0 } } };
  for (let r = 0; r < REPS; r++) {
    for (const which of ['before', 'after'] as const) {
      const events = which === 'before' ? perAnimal(shape(), null as never) : listing(shape(), null as never);
      const s0 = await size();
      results.loads.push(loadavg()[0]!);
      const t0 = performance.now();
      await service.orm.em.fork().transactional((tx) => appendEvents(tx, events));
      results[which].push(performance.now() - t0);
      const s1 = await size();
      results.grew[which].rows += s1.rows - s0.rows;
      results.grew[which].listed += s1.listed - s0.listed;
      results.grew[which].bytes += s1.bytes - s0.bytes;
    }
  }
  const per = (x: number) => ((x / REPS) * (1000 / ANIMALS)).toFixed(0);
  console.log(`  appending a 5,000-animal reconciliation's events (${REPS} each, alternated; load ${Math.min(...results.loads).toFixed(2)}–${Math.max(...results.loads).toFixed(2)}):`);
  for (const which of ['before', 'after'] as const) {
    const label = which === 'before' ? '5,021 chained events (one per animal)' : 'one event listing 5,020 records';
    console.log(`    ${label.padEnd(40)} median ${median(results[which]).toFixed(0)} ms (${Math.min(...results[which]).toFixed(0)}–${Math.max(...results[which]).toFixed(0)}); per 1,000 animals ${per(results.grew[which].rows)} event rows, ${per(results.grew[which].listed)} event_subject rows, ${per(results.grew[which].bytes)} bytes (both tables, indexes and TOAST)`);
  }

  const travellers = { before: randomUUID(), after: randomUUID() };
  for (let m = 0; m < 20; m++) {
    await service.orm.em.fork().transactional((tx) => appendEvents(tx, perAnimal(shape(500, travellers.before), null as never)));
    await service.orm.em.fork().transactional((tx) => appendEvents(tx, listing(shape(500, travellers.after), null as never)));
  }
  await em.execute('analyze');
  const reads = { before: [] as number[], after: [] as number[], loads: [] as number[] };
  for (let r = 0; r < 200; r++) {
    for (const which of ['before', 'after'] as const) {
      const t0 = performance.now();
      const page = await recordHistory(service.db, 'Animal', travellers[which], { int_max_results: 50 });
      reads[which].push(performance.now() - t0);
      if (page.data.length !== 20) throw new Error(`the history holds ${page.data.length} entries`);
    }
    if (r % 20 === 0) reads.loads.push(loadavg()[0]!);
  }
  const b = median(reads.before);
  const a = median(reads.after);
  console.log(`  history of an animal moved 20 times (200 reads each, alternated; load ${Math.min(...reads.loads).toFixed(2)}–${Math.max(...reads.loads).toFixed(2)}):`);
  console.log(`    through its own 20 events ${b.toFixed(2)} ms, through 20 listing events ${a.toFixed(2)} ms: after/before ${(a / b).toFixed(2)}`);
  console.log(`  load average now: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

const pgUrl = process.env.DATABASE_URL;
if (!pgUrl) {
  console.error('bench:events runs on PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
  process.exit(2);
}
exitWhenDone(() => onPostgres(pgUrl, process.env.BENCH_DATABASE ?? 'bench_events_append', (where) => `The event log's part of a reconciliation on ${where}`, run));
