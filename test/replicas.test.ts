import { randomUUID } from 'node:crypto';
import { createServer, Socket, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { startApp, type TestApp } from './helpers/app.js';
import { cnpj, login, makeOrganization, makeUser, type Session } from './helpers/factories.js';

/**
 * Readers on a streaming replica (src/db/replicas.ts). They need a replica of the test database:
 * `.ci/replica` starts one (Debian's PostgreSQL on port 5433, `pg_basebackup -R`) and `.ci/run`
 * runs this file with DATABASE_REPLICA_URLS naming it. The replica's replay is paused to make it
 * differ from the primary: what a read answers then shows which of the two served it.
 */
const replicaUrl = process.env.DATABASE_REPLICA_URLS?.split(',')[0]?.trim();
const withReplica = replicaUrl && process.env.DATABASE_URL ? describe : describe.skip;
if (!replicaUrl || !process.env.DATABASE_URL) {
  console.warn('test/replicas.test.ts: skipped, no replica (set DATABASE_URL and DATABASE_REPLICA_URLS; .ci/replica starts one)');
}

const formatCnpj = (d: string) => `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 600; i++) {
    if (await ok()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never: ${what}`);
};

withReplica('readers on a replica', () => {
  let replica: pg.Pool;
  let primary: pg.Pool;
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string>) => {
    const app = await startApp(env);
    apps.push(app);
    return app;
  };
  const pause = () => replica.query('select pg_wal_replay_pause()');
  const resume = () => replica.query('select pg_wal_replay_resume()');

  beforeAll(async () => {
    replica = new pg.Pool({ connectionString: replicaUrl, max: 2 });
    primary = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    const [{ standby }] = (await replica.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')).rows as [{ standby: boolean }];
    if (!standby) throw new Error(`${replicaUrl} is not a replica (pg_is_in_recovery() is false)`);
  });
  afterEach(resume);
  afterAll(async () => {
    await resume();
    for (const app of apps) await app.close();
    await replica.end();
    await primary.end();
  });

  /** A user of a fresh organization, signed in, with the replica caught up on both. */
  async function reader(app: TestApp): Promise<{ session: Session; orgId: string; name: string }> {
    const person = await makeUser(app);
    const org = await makeOrganization(app, [{ person, role: 'OWNER' }]);
    const session = await login(app, person, org.id);
    await app.service.replicas!.settle();
    return { session, orgId: org.id, name: org.str_name };
  }
  const rename = (id: string) => primary.query<{ str_name: string }>('update organization set str_name = $2 where id = $1 returning str_name', [id, `Renamed ${randomUUID().slice(0, 8)}`]);

  test('a read is served by the replica: with its replay paused, it answers what the primary no longer has', async () => {
    const app = await start({ DATABASE_REPLICA_MAX_LAG_MS: '600000' });
    const { session, orgId, name } = await reader(app);
    await pause();
    const renamed = (await rename(orgId)).rows[0]!.str_name;
    const read = await app.call('GET', `/api/organizations/${orgId}`, { token: session.access });
    expect(read.status).toBe(200);
    expect(read.body.data.str_name).toBe(name);
    // Operators see it too: the replica up, and reads counted where they ran.
    const metrics = await fetch(`${app.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^db_replica_up\{replica="[^"]+"\} 1$/m);
    expect(Number(/^db_reader_statements_total\{on="replica"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    await resume();
    await app.service.replicas!.settle();
    const again = await app.call('GET', `/api/organizations/${orgId}`, { token: session.access });
    expect(again.body.data.str_name).toBe(renamed);
  });

  test('a write followed by its read sees the write, while the replica has not replayed it; a user who wrote nothing still reads the replica', async () => {
    const app = await start({ DATABASE_REPLICA_MAX_LAG_MS: '600000' });
    const writer = await reader(app);
    const stranger = await reader(app);
    await pause();
    const created = await app.call('POST', '/api/organizations', { token: writer.session.access, body: { str_name: `Fazenda ${randomUUID().slice(0, 8)}`, str_document: formatCnpj(cnpj()) } });
    expect(created.status).toBe(201);
    const read = await app.call('GET', `/api/organizations/${created.body.data.id}`, { token: writer.session.access });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
    await rename(stranger.orgId);
    const seen = await app.call('GET', `/api/organizations/${stranger.orgId}`, { token: stranger.session.access });
    expect(seen.body.data.str_name).toBe(stranger.name);
  });

  test('across instances: a write\'s answer carries X-Read-After, and another instance given it reads at least that far', async () => {
    const a = await start({ DATABASE_REPLICA_MAX_LAG_MS: '600000' });
    const b = await start({ DATABASE_REPLICA_MAX_LAG_MS: '600000' });
    const writer = await reader(a);
    await pause();
    const renamed = `Renamed ${randomUUID().slice(0, 8)}`;
    const wrote = await a.call('PATCH', `/api/organizations/${writer.orgId}`, { token: writer.session.access, body: { str_name: renamed } });
    expect(wrote.status).toBe(200);
    const position = wrote.headers.get('x-read-after');
    expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    // B knows nothing of A's write: without the position it reads the paused replica.
    const stale = await b.call('GET', `/api/organizations/${writer.orgId}`, { token: writer.session.access });
    expect(stale.body.data.str_name).toBe(writer.name);
    // With it, B reads where the write is (the primary, the replica being behind it).
    const fresh = await b.call('GET', `/api/organizations/${writer.orgId}`, { token: writer.session.access, headers: { 'X-Read-After': position! } });
    expect(fresh.body.data.str_name).toBe(renamed);
    // A read answers no position; a position that is not one is ignored.
    expect(fresh.headers.get('x-read-after')).toBeNull();
    const junk = await b.call('GET', `/api/organizations/${writer.orgId}`, { token: writer.session.access, headers: { 'X-Read-After': 'not-a-position' } });
    expect(junk.body.data.str_name).toBe(writer.name);
  });

  test('a replica lagging past DATABASE_REPLICA_MAX_LAG_MS is skipped: the primary answers', async () => {
    const app = await start({ DATABASE_REPLICA_MAX_LAG_MS: '300' });
    const { session, orgId } = await reader(app);
    await pause();
    const renamed = (await rename(orgId)).rows[0]!.str_name;
    await until('the replica is past the bound', () => app.service.replicas!.status()[0]!.lagMs > 300);
    const read = await app.call('GET', `/api/organizations/${orgId}`, { token: session.access });
    expect(read.body.data.str_name).toBe(renamed);
  });

  test('a stopped replica never fails a request: the primary answers, and the replica is used again once it is back', async () => {
    // The replica behind a TCP relay this test stops and starts: stopping drops every connection at once, as a crash does.
    const target = new URL(replicaUrl!);
    const links = new Set<Socket>();
    let relay: Server = createServer();
    const listen = (port: number) =>
      new Promise<void>((resolve) => {
        relay = createServer((client) => {
          const upstream = new Socket().connect(Number(target.port || 5432), target.hostname);
          links.add(client).add(upstream);
          client.pipe(upstream).pipe(client);
          const drop = () => (client.destroy(), upstream.destroy());
          client.on('error', drop).on('close', drop);
          upstream.on('error', drop).on('close', drop);
        }).listen(port, '127.0.0.1', () => resolve());
      });
    const stop = () => {
      relay.close();
      for (const s of links) s.destroy();
      links.clear();
    };
    await listen(0);
    const port = (relay.address() as AddressInfo).port;
    const relayed = new URL(replicaUrl!);
    relayed.port = String(port);
    const app = await start({ DATABASE_REPLICA_URLS: relayed.toString(), DATABASE_REPLICA_MAX_LAG_MS: '600000' });
    try {
      const { session, orgId, name } = await reader(app);
      expect(app.service.replicas!.status()[0]!.up).toBe(true);
      const reads = () => Promise.all([0, 1, 2, 3, 4, 5].map(() => app.call('GET', `/api/organizations/${orgId}`, { token: session.access })));
      await reads();
      stop();
      for (const read of await reads()) expect([read.status, read.body.data.str_name]).toEqual([200, name]);
      expect(app.service.replicas!.status()[0]!.up).toBe(false);
      // Back: the next polls find it, and its reads are the replica's again (paused: the old name).
      await listen(port);
      await until('the replica is up again', () => app.service.replicas!.status()[0]!.up);
      await pause();
      const renamed = (await rename(orgId)).rows[0]!.str_name;
      const read = await app.call('GET', `/api/organizations/${orgId}`, { token: session.access });
      expect(read.body.data.str_name).not.toBe(renamed);
    } finally {
      stop();
    }
  }, 60000);

  test('a replica that does not answer at start (nothing listens) leaves every read to the primary', async () => {
    const app = await start({ DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:1/none' });
    expect(app.service.replicas!.status()).toEqual([{ url: 'postgres://postgres@127.0.0.1:1/none', up: false, lagMs: Infinity }]);
    const person = await makeUser(app);
    const session = await login(app, person);
    const who = await app.call('GET', '/api/whoami', { token: session.access });
    expect(who.status).toBe(200);
  });
});
