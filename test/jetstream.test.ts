import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { appendEvents } from '../src/shared/events.js';
import { startApp, type TestApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { holding } from './helpers/movements.js';
import { makeCounty } from './helpers/places.js';

/**
 * Issue 24: with NATS_URL, every committed event goes to a JetStream stream as
 * `<prefix>.<record type>.<event type>` with Nats-Msg-Id = the event's id; a relay that publishes a
 * window again (a crash before its position moved) leaves no duplicate. Against the machine's
 * nats-server (127.0.0.1:4222, or NATS_TEST_URL); skipped, saying so, when none answers.
 */
const NATS = process.env.NATS_TEST_URL ?? 'nats://127.0.0.1:4222';
const natsUp = await connect({ servers: NATS, timeout: 2000, reconnect: false }).then(
  async (nc) => (await nc.close(), true),
  () => false,
);
if (!natsUp) console.warn(`test/jetstream.test.ts skipped: no NATS server answers at ${NATS}`);
// EVENTS_OUT's relay needs PostgreSQL (src/config.ts): on PGlite there is no feed to test.
const onPostgres = Boolean(process.env.DATABASE_URL);
if (natsUp && !onPostgres) console.warn('test/jetstream.test.ts skipped: EVENTS_OUT needs PostgreSQL (DATABASE_URL)');

(natsUp && onPostgres ? describe : describe.skip)('JetStream feed', () => {
  const run = randomUUID().slice(0, 8);
  const stream = `TEST_${run}`;
  const prefix = `t${run}`;
  const env = { EVENTS_OUT: 'true', EVENTS_OUT_POLL_MS: '20', NATS_URL: NATS, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: prefix };
  let app: TestApp;
  let nc: NatsConnection;
  beforeAll(async () => {
    app = await startApp(env);
    nc = await connect({ servers: NATS });
  });
  afterAll(async () => {
    await app.close();
    await (await nc.jetstreamManager()).streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  /** Every message of the stream, from its start, in stream order. */
  async function readStream(): Promise<{ id: string; subject: string; recordId: string; msgId: string | undefined }[]> {
    const jsm = await nc.jetstreamManager();
    const { state } = await jsm.streams.info(stream);
    const consumer = await nc.jetstream().consumers.get(stream);
    const out: { id: string; subject: string; recordId: string; msgId: string | undefined }[] = [];
    while (out.length < state.messages) {
      const batch = await consumer.fetch({ max_messages: state.messages - out.length, expires: 2000 });
      for await (const m of batch) {
        const body = m.json<{ id: string; record_id: string }>();
        out.push({ id: body.id, subject: m.subject, recordId: body.record_id, msgId: m.headers?.get('Nats-Msg-Id') });
      }
    }
    return out;
  }

  async function until(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 600 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  }

  test('a consumer reads the log\'s events, in order per record, and a republished window adds no duplicate', async () => {
    const county = await makeCounty(app);
    const farms = [await holding(app, county), await holding(app, county), await holding(app, county)];
    const consumer = `jetstream:${stream}`;
    const [{ xid: start }] = await rows<{ xid: string }>(app, 'select xid_position::text as xid from relay_consumer where str_name = ?', [consumer]);
    const marker = `TEST_JS_${run.toUpperCase()}`;
    for (let batch = 0; batch < 6; batch++) {
      await app.service.orm.em.fork().transactional((tx) =>
        appendEvents(tx, Array.from({ length: 10 }, (_, i) => ({ type: marker, recordType: 'Establishment', recordId: farms[(batch + i) % 3]!.unit.establishmentId, actorId: null, payload: { n: batch * 10 + i } }))),
      );
    }
    const logged = await rows<{ id: string; record_id: string }>(app, 'select id, record_id from event where str_type = ? order by seq', [marker]);
    expect(logged).toHaveLength(60);
    const jsm = await nc.jetstreamManager();
    const count = async () => (await jsm.streams.info(stream)).state.messages;
    const ours = async () => (await readStream()).filter((m) => m.subject === `${prefix}.Establishment.${marker}`);
    await until(async () => (await ours()).length >= 60);
    const first = await ours();
    expect(first.map((m) => m.id).sort()).toEqual(logged.map((e) => e.id).sort());
    expect(first.every((m) => m.msgId === m.id)).toBe(true);
    for (const farm of farms) {
      const id = farm.unit.establishmentId;
      expect(first.filter((m) => m.recordId === id).map((m) => m.id)).toEqual(logged.filter((e) => e.record_id === id).map((e) => e.id));
    }

    // The relay dies after publishing, before its position moved: the next one publishes the window again.
    const before = await count();
    await app.close();
    app = await startApp(env);
    await rows(app, 'update relay_consumer set xid_position = ?::xid8 where str_name = ?', [start, consumer]);
    await until(async () => {
      const [pos] = await rows<{ moved: boolean }>(app, 'select xid_position > ?::xid8 as moved from relay_consumer where str_name = ?', [start, consumer]);
      return pos!.moved;
    });
    expect(await count()).toBe(before);
    expect((await ours()).map((m) => m.id)).toEqual(first.map((m) => m.id));
  }, 180_000);
});
