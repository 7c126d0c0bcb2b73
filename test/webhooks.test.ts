import { appendEvent } from '../src/shared/events.js';
import { WebhookService } from '../src/outbox/webhook.service.js';
import { sendDue } from '../src/outbox/webhook.sender.js';
import { guardedLookup, isBlockedAddress, refusedUrl } from '../src/outbox/webhook.url.js';
import { createLogger } from '../src/shared/logger.js';
import { actorNow } from '../src/outbox/visibility.js';
import { expectStatus, mustPost, startApp, type TestApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { holding, issueGta, type Holding } from './helpers/movements.js';
import { makeCounty, type TestCounty } from './helpers/places.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/**
 * Issue 24: webhooks from the committed log. A real receiver verifies every delivery with the
 * standardwebhooks verifier; the relay reads by finished transactions, so an event committed late
 * with a lower seq still goes out and a rolled-back one never does.
 */

let app: TestApp;
let county: TestCounty;
let receiver: Receiver & { secret: string };
beforeAll(async () => {
  // The relay needs PostgreSQL (EVENTS_OUT refuses PGlite): there, the endpoints are managed and nothing is sent.
  app = await startApp(process.env.DATABASE_URL ? { EVENTS_OUT: 'true', EVENTS_OUT_POLL_MS: '20', WEBHOOK_BACKOFF_MS: '50', WEBHOOK_ALLOW_PRIVATE: 'true' } : { WEBHOOK_ALLOW_PRIVATE: 'true' });
  county = await makeCounty(app);
  receiver = await startReceiver();
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

const em = () => app.service.orm.em.fork();

async function endpoint(h: Holding, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await mustPost(app, '/api/webhooks', h.owner.access, { str_url: receiver.url, ...body });
  expect(res.body.data.str_secret).toMatch(/^whsec_/);
  return { id: res.body.data.webhook.id, secret: res.body.data.str_secret };
}

/** An event of the holding's establishment, appended in a transaction the test holds open until `settle`. */
async function openWrite(h: Holding, type: string, record: { type: string; id: string } = { type: 'Establishment', id: h.unit.establishmentId }): Promise<{ commit(): Promise<void>; rollback(): Promise<void> }> {
  const fork = em();
  let finish!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (finish = resolve));
  let appended!: () => void;
  const ready = new Promise<void>((resolve) => (appended = resolve));
  const done = fork
    .transactional(async (tx) => {
      await appendEvent(tx, { type, recordType: record.type, recordId: record.id, actorId: h.owner.user.id, payload: {} });
      appended();
      if (!(await decided)) throw new Error('rolled back');
    })
    .catch((e: Error) => {
      if (e.message !== 'rolled back') throw e;
    });
  await ready;
  return {
    async commit() {
      finish(true);
      await done;
    },
    async rollback() {
      finish(false);
      await done;
    },
  };
}

const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

describe('/api/webhooks', () => {
  it('creates an endpoint whose secret is shown once, lists, reads, updates and deletes it, and answers 422 naming a bad field', async () => {
    const h = await holding(app, county);
    const { id } = await endpoint(h, { str_record_types: ['Gta'], str_event_types: ['GTA_CREATED'] });
    const read = await app.call('GET', `/api/webhooks/${id}`, { token: h.owner.access });
    expectStatus(read, 200);
    expect(read.body.data).toMatchObject({ id, str_url: receiver.url, str_record_types: ['Gta'], str_event_types: ['GTA_CREATED'], bl_active: true });
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
    const list = await app.call('GET', '/api/webhooks', { token: h.owner.access });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([id]);
    const other = await holding(app, county);
    expect((await app.call('GET', `/api/webhooks/${id}`, { token: other.owner.access })).status).toBe(404);
    const changed = await app.call('PATCH', `/api/webhooks/${id}`, { token: h.owner.access, body: { bl_active: false } });
    expect(changed.body.data.bl_active).toBe(false);
    const bad = await app.call('POST', '/api/webhooks', { token: h.owner.access, body: { str_url: 'ftp://x', str_record_types: ['Nope'] } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields).sort()).toEqual(['str_record_types', 'str_url']);
    expect((await app.call('DELETE', `/api/webhooks/${id}`, { token: h.owner.access })).status).toBe(204);
    expect((await app.call('GET', `/api/webhooks/${id}`, { token: h.owner.access })).status).toBe(404);
  });
});

describe('webhook URLs (SSRF)', () => {
  it('refuses private, loopback, link-local, metadata and reserved addresses, local names and non-http(s) schemes unless allowed', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '224.0.0.1']) {
      expect([address, isBlockedAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([address, isBlockedAddress(address)]).toEqual([address, false]);
    for (const url of ['http://127.0.0.1:8080/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/', 'http://metadata.google.internal/', 'http://0x7f000001/', 'http://2130706433/', 'ftp://example.com/', 'file:///etc/passwd', 'http://user:pw@example.com/']) {
      expect([url, await refusedUrl(url, false)]).toEqual([url, expect.any(String)]);
    }
    expect(await refusedUrl('http://127.0.0.1:8080/', true)).toBeNull();
    expect(await refusedUrl('https://8.8.8.8/hook', false)).toBeNull();
    expect(await refusedUrl('ftp://127.0.0.1/', true)).toMatch(/http/);
    // At send time the connection's own lookup refuses a name that resolves to a blocked address.
    const refused = await new Promise<Error | null>((resolve) => guardedLookup(false)('localhost', { all: true }, (err) => resolve(err)));
    expect(refused?.message).toMatch(/refused: localhost resolves to/);
    const allowed = await new Promise<Error | null>((resolve) => guardedLookup(true)('localhost', {}, (err) => resolve(err)));
    expect(allowed).toBeNull();
  });

  it('answers 422 naming str_url for a private address at create and at update when WEBHOOK_ALLOW_PRIVATE is off', async () => {
    const h = await holding(app, county);
    const strict = new WebhookService(false);
    const actor = (await actorNow(em(), h.owner.user.id, h.owner.org.id))!;
    await expect(strict.create(em(), app.service.db, actor, { str_url: 'http://169.254.169.254/latest/' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { str_url: [expect.stringMatching(/private/)] } } });
    const { id } = await endpoint(h);
    await expect(strict.update(em(), app.service.db, actor, id, { str_url: 'http://localhost:9/' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

onPostgres('webhook deliveries (PostgreSQL)', () => {
  it("delivers signed events of the owner's records only, in log order, ids equal to the log's; a rolled-back write sends nothing; a late commit with a lower seq is not skipped", async () => {
    const farm = await holding(app, county);
    const feedlot = await holding(app, county, 'FEEDLOT');
    const stranger = await holding(app, county);
    const hook = await endpoint(farm, { str_record_types: ['Gta', 'Establishment'] });
    receiver.secret = hook.secret;
    const before = receiver.received.length;

    const first = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 1);
    // Held open: its event takes a seq before the GTAs' but commits after them (each on a stream of its own: a stream's writers wait for each other).
    const late = await openWrite(farm, 'TEST_LATE');
    const doomed = await openWrite(farm, 'TEST_ROLLED_BACK', { type: 'Gta', id: first.id });
    const gtas = [first, await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 1), await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 2)];
    await issueGta(app, stranger.owner.access, stranger.unit, feedlot.unit, 1);
    await doomed.rollback();
    await late.commit();
    // Past every write above: once it arrived, so did everything the relay would send before it.
    const marker = await openWrite(farm, 'TEST_MARKER');
    await marker.commit();
    await receiver.waitFor(before + 5);
    await new Promise((r) => setTimeout(r, 300));

    const got = receiver.received.slice(before);
    const logged = await rows<{ id: string; str_type: string; record_id: string }>(
      app,
      `select id, str_type, record_id from event where (str_record_type = 'Gta' and record_id in (?)) or (str_record_type = 'Establishment' and record_id = ? and str_type like 'TEST_%') order by seq`,
      [gtas.map((g) => g.id), farm.unit.establishmentId],
    );
    expect(logged.map((e) => e.str_type)).toEqual(['GTA_CREATED', 'TEST_LATE', 'GTA_CREATED', 'GTA_CREATED', 'TEST_MARKER']);
    expect(got.map((d) => d.id).sort()).toEqual(logged.map((e) => e.id).sort());
    expect(got.map((d) => d.type)).not.toContain('TEST_ROLLED_BACK');
    expect(got.every((d) => d.body.data.record_id !== stranger.unit.establishmentId)).toBe(true);
    expect(receiver.refused).toBe(0);
    // The establishment's own events arrive in its log order (the marker after the late one).
    expect(got.filter((d) => d.recordId === farm.unit.establishmentId).map((d) => d.type)).toEqual(['TEST_LATE', 'TEST_MARKER']);

    const log = await app.call('GET', `/api/webhooks/${hook.id}/deliveries`, { token: farm.owner.access });
    expectStatus(log, 200);
    expect(log.body.meta.int_total_results).toBe(5);
    expect(log.body.data.every((d: { str_status: string; int_attempts: number }) => d.str_status === 'DELIVERED' && d.int_attempts === 1)).toBe(true);
  });

  it('retries a failing receiver with backoff, keeps a record in order behind its failed delivery, and replays from a point', async () => {
    const farm = await holding(app, county);
    const hook = await endpoint(farm, { str_record_types: ['Establishment'] });
    receiver.secret = hook.secret;
    receiver.status = 500;
    const before = receiver.received.length;
    const first = await openWrite(farm, 'TEST_FIRST');
    await first.commit();
    const second = await openWrite(farm, 'TEST_SECOND');
    await second.commit();
    // Two failed attempts at least, and the second event not tried while the first is pending.
    for (let i = 0; i < 500; i++) {
      const [d] = await rows<{ int_attempts: number; n: number }>(app, `select max(int_attempts)::int as int_attempts, count(*)::int as n from webhook_delivery where endpoint_id = ?`, [hook.id]);
      if ((d?.int_attempts ?? 0) >= 2 && d?.n === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const attempts = await rows<{ int_attempts: number; str_last_error: string }>(app, 'select int_attempts, str_last_error from webhook_delivery where endpoint_id = ? order by event_seq', [hook.id]);
    expect(attempts[0]!.int_attempts).toBeGreaterThanOrEqual(2);
    expect(attempts[0]!.str_last_error).toBe('HTTP 500');
    expect(attempts[1]!.int_attempts).toBe(0);
    receiver.status = 200;
    await receiver.waitFor(before + 2);
    expect(receiver.received.slice(before).map((d) => d.type)).toEqual(['TEST_FIRST', 'TEST_SECOND']);

    // The delivery's log keeps every attempt: the failures before the success, each with its time, status, error and duration.
    type Attempt = { ts_attempted_at: string; int_status: number | null; str_error: string | null; int_duration_ms: number };
    type Line = { event_id: string; str_status: string; int_attempts: number; str_last_error: string | null; attempts: Attempt[] };
    let firstLine: Line | undefined;
    for (let i = 0; i < 500; i++) {
      const log = await app.call('GET', `/api/webhooks/${hook.id}/deliveries`, { token: farm.owner.access });
      firstLine = (log.body.data as Line[]).at(-1);
      if (firstLine?.str_status === 'DELIVERED') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(firstLine).toMatchObject({ str_status: 'DELIVERED', str_last_error: null });
    const tried = firstLine!.attempts;
    expect(tried).toHaveLength(firstLine!.int_attempts);
    expect(tried.length).toBeGreaterThanOrEqual(3);
    expect(tried.map((a) => [a.int_status, a.str_error])).toEqual([...tried.slice(0, -1).map(() => [500, 'HTTP 500']), [200, null]]);
    for (const a of tried) expect(a.int_duration_ms).toBeGreaterThanOrEqual(0);
    expect(tried.map((a) => a.ts_attempted_at)).toEqual(tried.map((a) => a.ts_attempted_at).sort());

    // Replay: both again, in order, with the same webhook-ids.
    const from = new Date(Date.now() - 3600_000).toISOString();
    const replay = await app.call('POST', `/api/webhooks/${hook.id}/replay`, { token: farm.owner.access, body: { ts_from: from } });
    expectStatus(replay, 200);
    expect(replay.body.data.int_deliveries).toBe(2);
    await receiver.waitFor(before + 4);
    const all = receiver.received.slice(before);
    expect(all.slice(2).map((d) => d.id)).toEqual(all.slice(0, 2).map((d) => d.id));
    expect((await app.call('POST', `/api/webhooks/${hook.id}/replay`, { token: farm.owner.access, body: {} })).status).toBe(422);
  });

  it("checks at each send: a private receiver is refused when not allowed, and an owner who lost access gets nothing more", async () => {
    const farm = await holding(app, county);
    const hook = await endpoint(farm, { str_record_types: ['Establishment'] });
    receiver.secret = hook.secret;
    receiver.status = 500;
    const before = receiver.received.length;
    const write = await openWrite(farm, 'TEST_AFTER_LEAVING');
    await write.commit();
    for (let i = 0; i < 500; i++) {
      const [d] = await rows<{ int_attempts: number }>(app, 'select max(int_attempts)::int as int_attempts from webhook_delivery where endpoint_id = ?', [hook.id]);
      if ((d?.int_attempts ?? 0) >= 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // A sender that does not allow private addresses refuses the local receiver at send time. It runs
    // in a transaction holding the delivery's row: the service's sender (SKIP LOCKED) leaves it alone.
    const refused = await em().transactional(async (tx) => {
      await tx.execute('select id from webhook_delivery where endpoint_id = ? for update', [hook.id]);
      await tx.execute('update webhook_delivery set ts_next_attempt_at = now(), ts_lease_until = null where endpoint_id = ?', [hook.id]);
      await sendDue(tx, { backoffMs: 3600_000, retryHours: 24, timeoutMs: 2000, batch: 100, allowPrivate: false }, createLogger('silent'));
      return (await tx.execute<{ str_last_error: string | null; str_status: string }[]>('select str_last_error, str_status from webhook_delivery where endpoint_id = ?', [hook.id]))[0]!;
    });
    expect(refused).toEqual({ str_status: 'PENDING', str_last_error: 'refused: the URL points to a private, loopback, link-local or reserved address' });
    // The owner leaves the organization: its queued delivery stops at the next attempt.
    await em().execute('delete from membership where user_id = ? and organization_id = ?', [farm.owner.user.id, farm.owner.org.id]);
    receiver.status = 200;
    await em().execute('update webhook_delivery set ts_next_attempt_at = now() where endpoint_id = ?', [hook.id]);
    for (let i = 0; i < 500; i++) {
      const [d] = await rows<{ str_status: string }>(app, 'select str_status from webhook_delivery where endpoint_id = ?', [hook.id]);
      if (d?.str_status !== 'PENDING') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const [stopped] = await rows<{ str_status: string; str_last_error: string }>(app, 'select str_status, str_last_error from webhook_delivery where endpoint_id = ?', [hook.id]);
    expect(stopped).toEqual({ str_status: 'FAILED', str_last_error: "the endpoint's owner may no longer read the record" });
    expect(receiver.received.slice(before).filter((d) => d.type === 'TEST_AFTER_LEAVING')).toEqual([]);
  });
});
