/**
 * Writes of distinct tenants never wait on each other (issue 9): throughput of establishment
 * updates (each one transaction with its event) from 1 client, then from 16 clients each of its
 * own organization, over HTTP, on a scratch database `bench_writes` of the PostgreSQL in
 * DATABASE_URL (required). Prints writes/s and the ratio. Run: npm run bench:writes
 */
import 'reflect-metadata';
import type { Service } from '../src/server.js';
import { benchOwner, benchUnit, exitWhenDone, onPostgres, serve, signIn } from './support.js';

const CLIENTS = 16;
const SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const PASSWORD = 'bench-password-1';

interface Tenant {
  token: string;
  establishmentId: string;
}

async function tenant(service: Service, url: string): Promise<Tenant> {
  const { org, user } = await benchOwner(service, PASSWORD);
  const unitId = await benchUnit(service, org.id, 'PRODUCTION', 'Retiro');
  const [unit] = await service.orm.em.fork().execute<{ establishment_id: string }[]>('select establishment_id from control_unit where id = ?', [unitId]);
  return { token: await signIn(url, user.str_email, PASSWORD, org.id), establishmentId: unit!.establishment_id };
}

/** Each client updates its own establishment as fast as it is answered, for `seconds`; writes per second in all. */
async function drive(url: string, tenants: Tenant[], seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    tenants.map(async (t, k) => {
      for (let i = 0; performance.now() < until; i++) {
        const res = await fetch(`${url}/api/establishments/${t.establishmentId}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
          body: JSON.stringify({ str_name: `Fazenda ${k}.${i}` }),
        });
        await res.arrayBuffer();
        if (res.status === 200) done++;
        else failed++;
      }
    }),
  );
  if (failed) throw new Error(`${failed} writes failed`);
  return done / seconds;
}

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) throw new Error('bench:writes needs DATABASE_URL (a PostgreSQL; PGlite is one session and serves one request at a time)');
  await onPostgres(pgUrl, 'bench_writes', (where) => `${where}: establishment updates, 1 client vs ${CLIENTS} clients of distinct organizations`, async (service) => {
    const url = await serve(service);
    const tenants: Tenant[] = [];
    for (let i = 0; i < CLIENTS; i++) tenants.push(await tenant(service, url));
    await drive(url, tenants, 1); // warm-up
    const one = await drive(url, tenants.slice(0, 1), SECONDS);
    const many = await drive(url, tenants, SECONDS);
    console.log(`  1 client: ${one.toFixed(0)} writes/s; ${CLIENTS} clients: ${many.toFixed(0)} writes/s; ratio ×${(many / one).toFixed(2)}`);
  });
}

exitWhenDone(main);
