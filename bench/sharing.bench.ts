/**
 * What a sharing's grant costs a read: an owner's herd (20 establishments with a unit each,
 * BENCH_ANIMALS animals interleaved across them), 2,000 other sharings of it to another
 * organization (so the grantee's sharings are found by index among many), and a grantee organization
 * whose owner is granted ALL on 10 of the 20 establishments. Prints, for the owner (the peer, reading
 * its own 20 units) and the grantee (reading 10 through the sharing), the statements and the
 * autocannon figures of the animals page and two searches, and the grantee's ratio to the owner.
 * On PostgreSQL (a scratch database `bench_sharing`) when DATABASE_URL is set, else in-memory PGlite.
 * Run: npm run bench:sharing
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import type { Service } from '../src/server.js';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/server.js';
import { BENCH_ENV, benchCounties, benchHerd, benchOwner, exitWhenDone, onPostgres, postJson, serve, signIn } from './support.js';

const ANIMALS = Number(process.env.BENCH_ANIMALS ?? 50_000);
const ESTABLISHMENTS = 20;
const NOISE_SHARINGS = 2_000;
const DURATION = 10;
const CONNECTIONS = 10;
const PASSWORD = 'bench-password-1';
const CODE_BASE = 76_950_000_000_000;

async function generate(service: Service) {
  const em = service.orm.em.fork();
  const owner = await benchOwner(service, PASSWORD);
  const grantee = await benchOwner(service, PASSWORD);
  const noise = await benchOwner(service, PASSWORD);
  const [county] = await benchCounties(service, 1);
  await em.execute(
    `insert into establishment (id, organization_id, county_id, str_name, str_type) select gen_random_uuid(), ?, ?, 'Fazenda Partilhada ' || lpad(g::text, 2, '0'), 'FARM' from generate_series(1, ${ESTABLISHMENTS}) g`,
    [owner.org.id, county],
  );
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type) select gen_random_uuid(), e.id, 'SHARE-' || e.str_name, 'Retiro', 'PRODUCTION' from establishment e where e.organization_id = ?`,
    [owner.org.id],
  );
  await benchHerd(service, {
    units: `select cu.id, ${Math.ceil(ANIMALS / ESTABLISHMENTS)} as quantity, cu.str_code as ord from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?`,
    params: [owner.org.id],
    codeBase: CODE_BASE,
    boxPrefix: 'SHARE-BOX-',
    order: 'interleaved',
    spacing: '1 second',
    limit: ANIMALS,
  });
  // The noise: many sharings of the owner's establishments to another organization.
  await em.execute(
    `with s as (insert into sharing (id, organization_id, str_name) select gen_random_uuid(), ?, 'Ruído ' || g from generate_series(1, ${NOISE_SHARINGS}) g returning id),
          g as (insert into sharing_grantee (sharing_id, organization_id) select s.id, ? from s returning sharing_id)
     insert into sharing_access (sharing_id, establishment_id, str_scope, int_position)
     select g.sharing_id, (select e.id from establishment e where e.organization_id = ? order by md5(g.sharing_id::text || e.id::text) limit 1), 'ALL', 1 from g`,
    [owner.org.id, noise.org.id, owner.org.id],
  );
  const token = async (user: { str_email: string }, org: string, url: string) => signIn(url, user.str_email, PASSWORD, org);
  const establishments = await em.execute<{ id: string }[]>(`select id from establishment where organization_id = ? order by str_name limit ${ESTABLISHMENTS / 2}`, [owner.org.id]);
  for (const table of ['establishment', 'control_unit', 'tag', 'animal', 'sharing', 'sharing_grantee', 'sharing_access']) await em.execute(`analyze ${table}`);
  return { owner, grantee, establishments: establishments.map((e) => e.id), token };
}

interface Page {
  data: unknown[];
  meta: { int_total_results: number };
}

async function run(service: Service): Promise<void> {
  const started = performance.now();
  const data = await generate(service);
  console.log(`  data: ${ANIMALS} animals at ${ESTABLISHMENTS} units, ${NOISE_SHARINGS} other sharings, in ${(performance.now() - started).toFixed(0)} ms`);
  const url = await serve(service);
  const ownerToken = await data.token(data.owner.user, data.owner.org.id, url);
  const granteeToken = await data.token(data.grantee.user, data.grantee.org.id, url);
  const shared = await postJson<{ data: { id: string } }>(
    url,
    '/api/sharings',
    { str_name: 'Comprador', lst_org_ids: [data.grantee.org.id], accesses: data.establishments.map((id) => ({ establishment_id: id, str_scope: 'ALL' })) },
    ownerToken,
  );
  if (shared.status !== 201) throw new Error(`sharing: ${shared.status} ${JSON.stringify(shared.json)}`);

  const reads: [string, string, Record<string, unknown> | null][] = [
    ['GET', '/api/animals?int_max_results=50', null],
    ['POST', '/api/animals/search?int_max_results=50', { str_species: 'BUBALINE', str_gender: 'FEMALE' }],
    ['POST', '/api/animals/search?int_max_results=50', { str_status: 'MISSING' }],
  ];
  for (const [method, path, body] of reads) {
    const figures: Record<string, { rps: number; p50: number; p99: number }> = {};
    for (const [who, token] of [['owner', ownerToken], ['grantee', granteeToken]] as const) {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const once = await fetch(url + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
      const page = (await once.json()) as Page;
      if (once.status !== 200) throw new Error(`${who} ${path}: ${once.status} ${JSON.stringify(page)}`);
      const request = { url: url + path, method: method as 'GET' | 'POST', headers, body: body ? JSON.stringify(body) : undefined, connections: CONNECTIONS };
      await autocannon({ ...request, duration: 2 }); // warm-up, not reported
      const result = await autocannon({ ...request, duration: DURATION });
      figures[who] = { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
      console.log(
        `  ${who.padEnd(7)} ${method} ${path} ${body ? JSON.stringify(body) : ''}: ${page.data.length} of ${page.meta.int_total_results} animals, ${once.headers.get('x-sql-statements')} SQL statements; ` +
          `${result.requests.average.toFixed(1)} req/s, latency median ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
      );
    }
    console.log(`  grantee / owner: ${(figures.grantee!.rps / figures.owner!.rps).toFixed(2)}× the requests per second, ${(figures.grantee!.p50 / Math.max(figures.owner!.p50, 0.01)).toFixed(2)}× the median latency`);
  }
}

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  const title = (where: string) => `${where}, ${ANIMALS} animals, a grantee of 10 of 20 establishments`;
  if (pgUrl) return onPostgres(pgUrl, 'bench_sharing', title, run);
  console.log(`\n${title('PGlite (in memory)')}:`);
  const service = await createService(loadConfig({ ...BENCH_ENV, DATA_DIR: ':memory:' }));
  try {
    await run(service);
  } finally {
    await service.close();
  }
}

exitWhenDone(main);
