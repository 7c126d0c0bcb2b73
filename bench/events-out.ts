/**
 * Events out (issue 24) on PostgreSQL: commit → webhook received at a steady rate (BENCH_RATE
 * events/s, default 200, for BENCH_SECONDS, default 20), each event its own transaction on one of
 * 20 establishments, one endpoint, a local receiver; prints p50/p95/p99/max of the time from the
 * commit's return to the delivery's arrival. Then, when a NATS server answers at NATS_URL (default
 * nats://127.0.0.1:4222), the relay's JetStream publish throughput over BENCH_JS_EVENTS events
 * (default 10,000) already committed, and its lag behind a 5,000-animal reconciliation's event.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:events-out
 * (BENCH_DATABASE names the scratch database, default bench_events_out).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { connect } from 'nats';
import { startEventsOut } from '../src/outbox/events-out.js';
import { openJetStream } from '../src/outbox/jetstream.js';
import { ensureConsumer, relayAll } from '../src/outbox/relay.js';
import { actorNow } from '../src/outbox/visibility.js';
import type { Service } from '../src/server.js';
import { appendEvents } from '../src/shared/events.js';
import { createLogger } from '../src/shared/logger.js';
import { benchOwner, benchUnit, exitWhenDone, onPostgres } from './support.js';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const JS_EVENTS = Number(process.env.BENCH_JS_EVENTS ?? 10_000);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

async function establishments(service: Service, orgId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const unit = await benchUnit(service, orgId, 'PRODUCTION', `Curral ${i}`);
    const [row] = await service.orm.em.fork().execute<{ establishment_id: string }[]>('select establishment_id from control_unit where id = ?', [unit]);
    ids.push(row!.establishment_id);
  }
  return ids;
}

async function webhooks(service: Service): Promise<void> {
  const { org, user } = await benchOwner(service, 'bench password 123');
  const records = await establishments(service, org.id, 20);
  const arrived = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { payload: { k: string } } };
      if (!arrived.has(body.data.payload.k)) arrived.set(body.data.payload.k, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const actor = (await actorNow(service.orm.em.fork(), user.id, org.id))!;
  await service.core.webhooks.create(service.orm.em.fork(), service.db, actor, { str_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, str_record_types: ['Establishment'] });
  const out = await startEventsOut(() => service.orm.em.fork(), { pollMs: 20, webhooks: { backoffMs: 1000, retryHours: 24, timeoutMs: 10_000, batch: 100, allowPrivate: true }, nats: null }, createLogger('silent'));
  const committed = new Map<string, number>();
  const total = RATE * SECONDS;
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const k = randomUUID();
    writes.push(
      service.orm.em
        .fork()
        .transactional((tx) => appendEvents(tx, [{ type: 'BENCH_EVENT', recordType: 'Establishment', recordId: records[i % records.length]!, actorId: user.id, payload: { k } }]))
        .then(() => void committed.set(k, performance.now())),
    );
  }
  await Promise.all(writes);
  const wrote = performance.now() - started;
  const until = performance.now() + 120_000;
  while (arrived.size < total && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
  await out.stop();
  receiver.close();
  const lat = [...committed].map(([k, t]) => (arrived.get(k) ?? Infinity) - t).sort((a, b) => a - b);
  console.log(`  webhooks: ${total} events at ${RATE}/s offered (${((total * 1000) / wrote).toFixed(0)}/s committed), ${arrived.size} delivered; commit → received ms p50 ${pct(lat, 50).toFixed(0)} p95 ${pct(lat, 95).toFixed(0)} p99 ${pct(lat, 99).toFixed(0)} max ${lat[lat.length - 1]!.toFixed(0)} (load ${load()})`);
}

async function jetstream(service: Service): Promise<void> {
  const up = await connect({ servers: NATS_URL, timeout: 2000, reconnect: false }).then(
    async (nc) => (await nc.close(), true),
    () => false,
  );
  if (!up) return console.log(`  jetstream: skipped, no NATS server at ${NATS_URL}`);
  const stream = `BENCH_${randomUUID().slice(0, 8)}`;
  const js = await openJetStream({ url: NATS_URL, stream, prefix: stream.toLowerCase() });
  const consumer = `jetstream:${stream}`;
  await ensureConsumer(service.orm.em.fork(), consumer);
  const { org } = await benchOwner(service, 'bench password 123');
  const [record] = await establishments(service, org.id, 1);
  for (let done = 0; done < JS_EVENTS; done += 1000) {
    await service.orm.em.fork().transactional((tx) => appendEvents(tx, Array.from({ length: Math.min(1000, JS_EVENTS - done) }, (_, i) => ({ type: 'BENCH_EVENT', recordType: 'Establishment', recordId: record!, actorId: null, payload: { n: done + i } }))));
  }
  let t = performance.now();
  const sent = await relayAll(service.orm.em.fork(), consumer, js.handle);
  const ms = performance.now() - t;
  console.log(`  jetstream: ${sent} events published and acknowledged in ${ms.toFixed(0)} ms: ${((sent * 1000) / ms).toFixed(0)} events/s (load ${load()})`);
  // A reconciliation's one event listing 5,000 animals: commit → published.
  const animals = Array.from({ length: 5000 }, () => ({ recordType: 'Animal', recordId: randomUUID() }));
  t = performance.now();
  await service.orm.em.fork().transactional((tx) => appendEvents(tx, [{ type: 'BENCH_RECONCILIATION', recordType: 'AnimalsIngress', recordId: randomUUID(), actorId: null, payload: {}, subjects: animals }]));
  const committedAt = performance.now();
  await relayAll(service.orm.em.fork(), consumer, js.handle);
  console.log(`  jetstream: a 5,000-animal reconciliation's event: append ${(committedAt - t).toFixed(0)} ms, then relayed and acknowledged ${(performance.now() - committedAt).toFixed(0)} ms after its commit (load ${load()})`);
  const nc = await connect({ servers: NATS_URL });
  await (await nc.jetstreamManager()).streams.delete(stream);
  await nc.close();
  await js.close();
}

exitWhenDone(async () => {
  const pg = process.env.DATABASE_URL;
  if (!pg) throw new Error('events out needs PostgreSQL: set DATABASE_URL');
  await onPostgres(pg, process.env.BENCH_DATABASE ?? 'bench_events_out', (where) => `events out on ${where}`, async (service) => {
    await webhooks(service);
    await jetstream(service);
  });
});
