import { randomUUID } from 'node:crypto';
import { appendEvents } from '../src/shared/events.js';
import { mustPost, startApp, type TestApp } from './helpers/app.js';
import { buildService, startChild, type ChildService } from './helpers/child.js';
import { rows } from './helpers/db.js';
import { holding } from './helpers/movements.js';
import { carOf, makeCounty, unitCode } from './helpers/places.js';
import { startReceiver } from './helpers/receiver.js';

/**
 * Issue 24: the service killed (kill -9) in the middle of 1,000 deliveries, then two instances
 * started on the same database: every event is delivered, ids equal to the log's, none missing, a
 * record's events in log order, and the only duplicates are the deliveries in flight at the kill
 * (with the same webhook-id). Needs a real PostgreSQL shared by the processes.
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
onPostgres('webhooks after kill -9', () => {
  let app: TestApp;
  beforeAll(async () => {
    await buildService();
    app = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  }, 180_000);
  afterAll(() => app.close());

  const env = { DATABASE_URL: process.env.DATABASE_URL!, EVENTS_OUT: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', EVENTS_OUT_POLL_MS: '20', WEBHOOK_BACKOFF_MS: '100', WEBHOOK_TIMEOUT_MS: '2000', LOG_LEVEL: 'info' };

  test('1,000 events, the sender killed among them, two instances restarted: all delivered once at least, in order per record', async () => {
    const county = await makeCounty(app);
    const farm = await holding(app, county);
    const em = app.service.orm.em.fork();
    // 20 establishments of the farm's organization: 20 records whose deliveries go out side by side.
    const records = [farm.unit.establishmentId];
    for (let i = 1; i < 20; i++) {
      const id = randomUUID();
      await em.execute('insert into establishment (id, organization_id, county_id, str_name, str_type, str_car, str_status) values (?, ?, ?, ?, ?, ?, ?)', [id, farm.owner.org.id, county.id, `FARM ${unitCode()}`, 'FARM', carOf(county), 'ACTIVE']);
      records.push(id);
    }
    const receiver = await startReceiver();
    const hook = await mustPost(app, '/api/webhooks', farm.owner.access, { str_url: receiver.url, str_record_types: ['Establishment'], record_ids: records });
    receiver.secret = hook.body.data.str_secret;

    let child: ChildService = await startChild(env);
    const marker = `TEST_CRASH_${Date.now()}`;
    for (let batch = 0; batch < 10; batch++) {
      await app.service.orm.em.fork().transactional((tx) =>
        appendEvents(tx, Array.from({ length: 100 }, (_, i) => ({ type: marker, recordType: 'Establishment', recordId: records[(batch * 100 + i) % records.length]!, actorId: farm.owner.user.id, payload: { n: batch * 100 + i } }))),
      );
    }
    await receiver.waitFor(300, 120_000);
    child.process.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');
    const atKill = receiver.received.length;
    expect(atKill).toBeLessThan(1000);

    child = await startChild(env);
    const second = await startChild(env);
    const logged = await rows<{ id: string; record_id: string }>(app, 'select id, record_id from event where str_type = ? order by seq', [marker]);
    expect(logged).toHaveLength(1000);
    const want = new Set(logged.map((e) => e.id));
    const until = Date.now() + 180_000;
    while (new Set(receiver.received.map((d) => d.id)).size < 1000 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    child.process.kill('SIGTERM');
    second.process.kill('SIGTERM');
    await Promise.all([child.exited, second.exited]);
    await receiver.close();

    const got = receiver.received.filter((d) => d.type === marker);
    expect(new Set(got.map((d) => d.id))).toEqual(want);
    expect(got.every((d) => want.has(d.id) && d.body.data.id === d.id)).toBe(true);
    // Duplicates: only deliveries claimed by the killed process (a batch at most), each with its event's id.
    expect(got.length - want.size).toBeLessThanOrEqual(100);
    expect(receiver.refused).toBe(0);
    // Each record's first arrivals follow its log order.
    const position = new Map(logged.map((e, i) => [e.id, i]));
    for (const record of records) {
      const seen: number[] = [];
      for (const d of got) if (d.recordId === record && !seen.includes(position.get(d.id)!)) seen.push(position.get(d.id)!);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
    }
    const [status] = await rows<{ n: number }>(app, `select count(*)::int as n from webhook_delivery where endpoint_id = ? and str_status = 'DELIVERED'`, [hook.body.data.webhook.id]);
    expect(status!.n).toBe(1000);
  }, 600_000);
});
