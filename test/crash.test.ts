import { randomUUID } from 'node:crypto';
import { ALREADY_REGISTERED } from '../src/identity/organization.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { buildService, startChild } from './helpers/child.js';
import { cnpj, login, makeUser } from './helpers/factories.js';

/**
 * A process killed mid-request (kill -9, a crashed container) leaves no Idempotency-Key claimed: the
 * claim lived in the dead connection's transaction (src/shared/idempotency.ts), so a client retrying
 * at once runs (or replays), never "still in progress" for the length of a lease.
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
onPostgres('Idempotency-Key after kill -9', () => {
  let app: TestApp;
  beforeAll(async () => {
    await buildService();
    app = await startApp();
  }, 180_000);
  afterAll(() => app.close());

  test('300 keyed creates, the service killed among them: every retry answers 201, one row per key', async () => {
    const person = await makeUser(app);
    const session = await login(app, person);
    const child = await startChild({ DATABASE_URL: process.env.DATABASE_URL! });
    const creates = Array.from({ length: 300 }, () => ({ key: `crash-${randomUUID()}`, body: { str_name: 'Fazenda', str_document: cnpj() } }));
    const send = (base: string, c: (typeof creates)[number]) =>
      fetch(`${base}/api/organizations`, { method: 'POST', headers: { authorization: `Bearer ${session.access}`, 'content-type': 'application/json', 'idempotency-key': c.key }, body: JSON.stringify(c.body) });
    let answered = 0;
    let next = 0;
    // 30 in flight at a time; the process dies once half have answered, with the others on the wire.
    const worker = async () => {
      while (next < creates.length) {
        const c = creates[next++]!;
        try {
          await (await send(child.url, c)).text();
          if (++answered === creates.length / 2) child.process.kill('SIGKILL');
        } catch {
          /* the process died under this request */
        }
      }
    };
    await Promise.all(Array.from({ length: 30 }, worker));
    expect(await child.exited).toBe('SIGKILL');
    expect(answered).toBeLessThan(creates.length);

    const retried = await Promise.all(creates.map(async (c) => {
      const res = await send(app.url, c);
      return { status: res.status, body: await res.json() };
    }));
    // Never "still in progress". A create that committed in the instant before its claim did (the
    // process died between the two commits) runs again and meets its own row: the create's answer
    // for a taken document, never a second organization. A client id in the body closes that gap too.
    const inProgress = retried.filter((r) => JSON.stringify(r.body).includes('in progress'));
    expect(inProgress).toEqual([]);
    const other = retried.filter((r) => r.status !== 201 && JSON.stringify(r.body) !== JSON.stringify({ error: 'CONFLICT', detail: { fields: { str_document: [ALREADY_REGISTERED] } } }));
    expect(other).toEqual([]);
    expect(retried.filter((r) => r.status === 201).length).toBeGreaterThan(creates.length * 0.9);
    const [{ n }] = await app.service.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from organization where str_document = any(array[?]::text[])', [creates.map((c) => c.body.str_document)]);
    expect(n).toBe(creates.length);
    // A process started, 300 creates and their retries: past 180 s at load 20 beside webhooks-crash's three (a limit for a hang).
  }, 600_000);
});
