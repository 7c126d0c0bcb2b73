/**
 * Events out (issue 24; the issue's `npm run bench:events` is this `npm run bench:events-out`:
 * `bench:events` already named the event log's append bench) on PostgreSQL:
 * - webhooks: commit → webhook received at a steady rate (BENCH_RATE events/s, default 200, for
 *   BENCH_SECONDS, default 20), each event its own transaction on one of 20 establishments, one
 *   endpoint, a local receiver; p50/p95/p99/max of the time from the commit's return to the arrival;
 * - subscriptions: BENCH_SUBSCRIBERS (default 1,000) graphql-ws subscriptions on this one instance
 *   from a client process of their own (bench/live-clients.ts): the service's memory per
 *   subscription, and commit → first and last subscriber over BENCH_ROUNDS (default 20) commits;
 * - jetstream, when a NATS server answers at NATS_URL (default nats://127.0.0.1:4222): the relay's
 *   publish throughput over BENCH_JS_EVENTS events (default 10,000) already committed, and its lag
 *   behind a 5,000-animal reconciliation's event.
 * BENCH_PARTS picks some (default webhooks,subscriptions,jetstream). Every line prints the load average.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:events-out
 * (BENCH_DATABASE names the scratch database, default bench_events_out).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { connect } from 'nats';
import { startEventsOut } from '../src/outbox/events-out.js';
import { openJetStream } from '../src/outbox/jetstream.js';
import { WebhookService } from '../src/outbox/webhook.service.js';
import { ensureConsumer, relayAll } from '../src/outbox/relay.js';
import { actorNow } from '../src/outbox/visibility.js';
import type { Service } from '../src/server.js';
import { appendEvents } from '../src/shared/events.js';
import { createLogger } from '../src/shared/logger.js';
import { benchOwner, benchUnit, exitWhenDone, onPostgres, signIn } from './support.js';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const JS_EVENTS = Number(process.env.BENCH_JS_EVENTS ?? 10_000);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** BENCH_PARTS: which figures (default all). */
const PARTS = (process.env.BENCH_PARTS ?? 'webhooks,subscriptions,jetstream').split(',');

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
  // The receiver is local: an endpoint as WEBHOOK_ALLOW_PRIVATE=true accepts it.
  await new WebhookService(true).create(service.orm.em.fork(), service.db, actor, { str_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, str_record_types: ['Establishment'] });
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

/** Memory after a full collection (the flag set at run time: the npm script runs node without --expose-gc). */
function collected(): NodeJS.MemoryUsage {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage();
}

/**
 * SUBSCRIBERS (default 1,000) graphql-ws subscriptions on this one instance, from a client process
 * of their own: 10 organizations' owners, each following its establishment's events. Memory of the
 * service's process before and after (collected), and ROUNDS commits of one transaction with an
 * event on each establishment: commit → first and last subscriber.
 */
async function subscriptions(service: Service): Promise<void> {
  const owners = 10;
  const perOwner = Math.ceil(SUBSCRIBERS / owners);
  const server = await service.listen(0);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const groups: { token: string; record: string; n: number }[] = [];
  for (let i = 0; i < owners; i++) {
    const { org, user } = await benchOwner(service, 'bench password 123');
    const [record] = await establishments(service, org.id, 1);
    groups.push({ token: await signIn(url, user.str_email, 'bench password 123', org.id), record: record!, n: perOwner });
  }
  const before = collected();
  const child = spawn(process.execPath, [fileURLToPath(new URL('./live-clients.js', import.meta.url)), `${url.replace('http', 'ws')}/graphql`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting = new Map<string, (line: string) => void>();
  const rounds: { round: number; first: number; last: number }[] = [];
  lines.on('line', (line) => {
    if (line === 'ready') return waiting.get('ready')?.(line);
    const r = JSON.parse(line) as { round: number; first: number; last: number };
    rounds.push(r);
    waiting.get(`round ${r.round}`)?.(line);
  });
  const expect = (key: string, ms = 120_000) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bench: no ${key} within ${ms} ms`)), ms);
    waiting.set(key, () => (clearTimeout(timer), resolve()));
  });
  const ready = expect('ready');
  child.stdin!.end(JSON.stringify(groups));
  await ready;
  const total = owners * perOwner;
  while (service.live.size < total || !service.live.reading) await new Promise((r) => setTimeout(r, 20));
  const held = collected();
  const committed: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const arrived = expect(`round ${round}`);
    await service.orm.em.fork().transactional((tx) => appendEvents(tx, groups.map((g) => ({ type: 'BENCH_LIVE', recordType: 'Establishment', recordId: g.record, actorId: null, payload: { round } }))));
    committed[round] = Date.now();
    await arrived;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  server.close();
  server.closeAllConnections();
  const last = rounds.map((r) => r.last - committed[r.round]!).sort((a, b) => a - b);
  const first = rounds.map((r) => r.first - committed[r.round]!).sort((a, b) => a - b);
  const mib = (b: number) => (b / 1048576).toFixed(1);
  console.log(`  subscriptions: ${total} open on one instance (graphql-ws, ${owners} users): service memory rss +${mib(held.rss - before.rss)} MiB, heap +${mib(held.heapUsed - before.heapUsed)} MiB: ${((held.rss - before.rss) / total / 1024).toFixed(1)} KiB rss, ${((held.heapUsed - before.heapUsed) / total / 1024).toFixed(1)} KiB heap per subscription (load ${load()})`);
  console.log(`  subscriptions: ${ROUNDS} commits of an event for each user: commit → first subscriber ms p50 ${pct(first, 50)} max ${first[first.length - 1]}; commit → last of ${total} ms p50 ${pct(last, 50)} p95 ${pct(last, 95)} max ${last[last.length - 1]} (load ${load()})`);
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
    if (PARTS.includes('webhooks')) await webhooks(service);
    if (PARTS.includes('subscriptions')) await subscriptions(service);
    if (PARTS.includes('jetstream')) await jetstream(service);
  });
});
