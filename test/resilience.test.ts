import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startApp, useApp } from './helpers/app.js';
import { cnpj, login, makeUser, member } from './helpers/factories.js';

/** A TCP proxy to PostgreSQL the test can cut and restore: the database "goes away" for real. */
function databaseProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((port = (server!.address() as AddressInfo).port)));
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  return { open, cut };
}

describe('answers at rest and in flight', () => {
  const app = useApp({ SMTP_URL: 'smtp://127.0.0.1:1' });

  test('with SMTP configured, sent_message keeps no usable code; every /api and /graphql answer is no-store', async () => {
    const person = await makeUser(app);
    const res = await app.call('POST', '/api/request-recovery-password', { body: { str_email: person.email } });
    expect(res.status).toBe(204);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const [mail] = await app.service.orm.em.fork().execute<{ str_body: string }[]>('select str_body from sent_message where lower(str_to) = lower(?) order by ts_created_at desc limit 1', [person.email]);
    expect(mail!.str_body).toContain('[redacted]');
    expect(mail!.str_body).not.toMatch(/token=[A-Za-z0-9_-]{20,}/);
    const session = await login(app, person);
    const whoami = await app.call('GET', '/api/whoami', { token: session.access });
    expect(whoami.headers.get('cache-control')).toBe('no-store');
    const gql = await app.graphql('{ whoami { id } }', {}, session.access);
    expect(gql.headers.get('cache-control')).toBe('no-store');
  });
});

// The outage needs a real server to cut; PGlite lives inside the process.
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
onPostgres('while the database is away', () => {
  test('reads and writes answer 503 UNAVAILABLE with Retry-After, and work again once it is back', async () => {
    const proxy = databaseProxy(new URL(process.env.DATABASE_URL!));
    const port = await proxy.open();
    const url = new URL(process.env.DATABASE_URL!);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const app = await startApp({ DATABASE_URL: url.toString() });
    try {
      const owner = await member(app);
      await proxy.cut();
      for (const res of [
        await app.call('GET', '/api/whoami', { token: owner.access }),
        await app.call('POST', '/api/organizations', { token: owner.access, body: { str_name: 'Away', str_document: cnpj() } }),
      ]) {
        expect({ status: res.status, error: res.body.error }).toEqual({ status: 503, error: 'UNAVAILABLE' });
        expect(res.headers.get('retry-after')).toBe('5');
      }
      await proxy.open();
      const back = await app.call('GET', '/api/whoami', { token: owner.access });
      expect(back.status).toBe(200);
    } finally {
      await app.close().catch(() => undefined);
      await proxy.cut().catch(() => undefined);
    }
  });
});
