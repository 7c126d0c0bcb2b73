/**
 * Tenancy's cost at scale (issue 23), as ratios on one table: the peers bench's four read requests
 * asked by three callers of one service on the same data, in one run:
 *   - the OWNER of an organization holding 2,000 establishments (4,000 control units) and ~100,000
 *     animals (a large ranching company);
 *   - an AUTHORITY of the federative unit ZA, which holds 25,000 establishments and 50,000 control
 *     units (the big organization's and 23,000 others', one animal at each of those);
 *   - an ADMINISTRATOR (no scope): the reference every ratio is taken against.
 * PostgreSQL only (DATABASE_URL): a scratch database `bench_tenancy`, data set-based, dropped after.
 * The requests, each a page of 50 where a list: a. GraphQL animals nested 4 levels; b. GraphQL
 * animal(id) nested 4 levels (an animal every caller sees); c. REST GET /api/establishments;
 * d. REST POST /api/animals/search {"str_species":"BOVINE","str_gender":"FEMALE"}.
 * After a warm-up, ROUNDS rounds of each request by each caller in turn, DURATION s each, with
 * autocannon in a worker thread. Prints req/s (over all rounds), SQL statements per request and
 * each caller's req/s over the administrator's.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:tenancy
 */
import 'reflect-metadata';
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';
import type { Service } from '../src/server.js';
import { benchCounties, benchHerd, benchOwner, exitWhenDone, onPostgres, postJson, serve, signIn } from './support.js';

const BIG_ESTABLISHMENTS = 2_000;
const OTHER_ESTABLISHMENTS = 23_000;
const UNITS_PER_ESTABLISHMENT = 2;
const ANIMALS_PER_BIG_UNIT = 25;
const COUNTIES = 200;
const PAGE = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PASSWORD = 'bench-password-1';

type CallerName = 'owner' | 'authority' | 'admin';
interface Caller {
  name: CallerName;
  token: string;
}

interface Request {
  title: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/** Establishments and units of `organizationId` in the counties, `n` of them, set-based. */
async function establishments(service: Service, organizationId: string, counties: string[], n: number, prefix: string): Promise<void> {
  const em = service.orm.em.fork();
  await em.execute(
    `insert into establishment (id, organization_id, county_id, str_name, str_type, str_status, str_code, ts_created_at, ts_updated_at)
     select gen_random_uuid(), ?, (?::jsonb ->> (g % ${counties.length}))::uuid, 'Fazenda ' || ? || g, 'FARM', 'ACTIVE', ? || g, now() - g * interval '1 minute', now() - g * interval '1 minute'
       from generate_series(1, ${n}) as g`,
    [organizationId, JSON.stringify(counties), prefix, prefix],
  );
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type, ts_created_at, ts_updated_at)
     select gen_random_uuid(), e.id, e.str_code || '-' || u, 'Retiro ' || u, 'PRODUCTION', e.ts_created_at, e.ts_created_at
       from establishment e cross join generate_series(1, ${UNITS_PER_ESTABLISHMENT}) as u where e.organization_id = ?`,
    [organizationId],
  );
}

async function generate(service: Service): Promise<{ callers: Caller[]; animalId: string }> {
  const started = performance.now();
  const em = service.orm.em.fork();
  const counties = await benchCounties(service, COUNTIES, ['ZA']);
  const big = await benchOwner(service, PASSWORD);
  const others = await benchOwner(service, PASSWORD);
  const authority = await benchOwner(service, PASSWORD);
  const admin = await benchOwner(service, PASSWORD);
  await establishments(service, big.org.id, counties, BIG_ESTABLISHMENTS, 'BIG-');
  await establishments(service, others.org.id, counties, OTHER_ESTABLISHMENTS, 'OTHER-');
  const animals = await benchHerd(service, {
    units: `select cu.id, case when e.organization_id = ? then ${ANIMALS_PER_BIG_UNIT} else 1 end as quantity, cu.str_code as ord
              from control_unit cu join establishment e on e.id = cu.establishment_id`,
    params: [big.org.id],
    codeBase: 76_960_000_000_000,
    boxPrefix: 'TENANCY-BOX-',
    order: 'interleaved',
    spacing: '1 minute',
  });
  // The authority reads its county's federative unit, without an organization of its own.
  await em.execute(`update "user" set str_type = 'AUTHORITY', county_id = ? where id = ?`, [counties[0], authority.user.id]);
  await em.execute('delete from membership where user_id = ?', [authority.user.id]);
  await em.execute('update "user" set bl_admin = true where id = ?', [admin.user.id]);
  for (const table of ['organization', '"user"', 'membership', 'county', 'establishment', 'control_unit', 'tags_box', 'tag', 'animal']) await em.execute(`vacuum analyze ${table}`);
  const [counts] = await em.execute<{ units: number; uf_units: number; big_animals: number; animals: number }[]>(
    `select (select count(*)::int from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?) as units,
            (select count(*)::int from control_unit) as uf_units,
            (select count(*)::int from animal a join control_unit cu on cu.id = a.last_control_unit_id join establishment e on e.id = cu.establishment_id where e.organization_id = ?) as big_animals,
            (select count(*)::int from animal) as animals`,
    [big.org.id, big.org.id],
  );
  console.log(
    `  data: the owner's organization ${BIG_ESTABLISHMENTS} establishments, ${counts!.units} control units, ${counts!.big_animals} animals; ` +
      `the federative unit ZA ${BIG_ESTABLISHMENTS + OTHER_ESTABLISHMENTS} establishments, ${counts!.uf_units} control units, ${counts!.animals} animals (${animals} made); ` +
      `generated in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const [animal] = await em.execute<{ id: string }[]>(
    'select a.id from animal a join control_unit cu on cu.id = a.last_control_unit_id join establishment e on e.id = cu.establishment_id where e.organization_id = ? order by a.ts_created_at desc, a.id desc limit 1 offset 1000',
    [big.org.id],
  );
  const url = await serve(service);
  const login = async (email: string) => (await postJson<{ data: { str_access_token: string } }>(url, '/api/login', { str_email: email, str_password: PASSWORD })).json.data.str_access_token;
  const callers: Caller[] = [
    { name: 'owner', token: await signIn(url, big.user.str_email, PASSWORD, big.org.id) },
    { name: 'authority', token: await login(authority.user.str_email) },
    { name: 'admin', token: await signIn(url, admin.user.str_email, PASSWORD, admin.org.id) },
  ];
  serviceUrl = url;
  return { callers, animalId: animal!.id };
}

let serviceUrl = '';

function requests(animalId: string): Request[] {
  const tree = 'id str_species current_tag { id str_code last_control_unit { id str_name establishment { id str_name county { id str_name } } } }';
  const gql = (query: string, variables?: Record<string, unknown>) => JSON.stringify(variables ? { query, variables } : { query });
  return [
    { title: `a. GraphQL animals(page: {int_max_results: ${PAGE}}), 4 levels`, method: 'POST', path: '/graphql', body: gql(`{ animals(page: {int_max_results: ${PAGE}}) { data { ${tree} } } }`) },
    { title: 'b. GraphQL animal(id), 4 levels', method: 'POST', path: '/graphql', body: gql(`query($id: UUID!) { animal(id: $id) { ${tree} } }`, { id: animalId }) },
    { title: `c. REST GET /api/establishments (${PAGE})`, method: 'GET', path: `/api/establishments?int_max_results=${PAGE}` },
    { title: `d. REST POST /api/animals/search (${PAGE})`, method: 'POST', path: `/api/animals/search?int_max_results=${PAGE}`, body: JSON.stringify({ str_species: 'BOVINE', str_gender: 'FEMALE' }) },
  ];
}

/** One request: its status, rows and the service's statement count. */
async function once(r: Request, token: string): Promise<{ status: number; rows: number; sql: string | null }> {
  const res = await fetch(serviceUrl + r.path, { method: r.method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: r.body });
  const json = (await res.json()) as { data?: { animals?: { data: unknown[] }; animal?: unknown } | unknown[]; errors?: unknown };
  const d = json.data;
  const rows = Array.isArray(d) ? d.length : d?.animals ? d.animals.data.length : d?.animal ? 1 : 0;
  return { status: json.errors ? 500 : res.status, rows, sql: res.headers.get('x-sql-statements') };
}

const load = (r: Request, token: string, duration: number) =>
  autocannon({ url: serviceUrl + r.path, method: r.method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: r.body, connections: CONNECTIONS, duration, workers: 1 });

function machineLoad(when: string): void {
  const [one, five] = loadavg();
  console.log(`  machine ${when}: ${availableParallelism()} cores, load average ${one!.toFixed(1)} (1 min), ${five!.toFixed(1)} (5 min)`);
}

async function run(service: Service): Promise<void> {
  const { callers, animalId } = await generate(service);
  const list = requests(animalId);
  const sql = new Map<string, string>();
  console.log('\n  check (one request each): rows per caller');
  for (const [i, r] of list.entries()) {
    const seen = [];
    for (const c of callers) {
      const res = await once(r, c.token);
      if (res.status !== 200 || res.rows === 0) throw new Error(`${r.title} — ${c.name}: ${res.status}, ${res.rows} rows`);
      sql.set(`${i}/${c.name}`, res.sql ?? '?');
      seen.push(`${c.name} ${res.rows}`);
    }
    console.log(`    ${r.title.slice(0, 2)} ${seen.join(', ')}`);
  }
  machineLoad('before measuring');
  for (const r of list) for (const c of callers) await load(r, c.token, 1);
  const totals = new Map<string, { requests: number; seconds: number; rps: number[] }>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, r] of list.entries()) {
      for (const c of callers) {
        const res = await load(r, c.token, DURATION);
        if (res.non2xx || res.errors) throw new Error(`${r.title} — ${c.name}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        const t = totals.get(`${i}/${c.name}`) ?? { requests: 0, seconds: 0, rps: [] };
        t.requests += res.requests.total;
        t.seconds += res.duration;
        t.rps.push(res.requests.total / res.duration);
        totals.set(`${i}/${c.name}`, t);
      }
    }
    console.log(`    round ${round} of ${ROUNDS} done`);
  }
  machineLoad('after measuring');
  const rps = (i: number, c: CallerName) => totals.get(`${i}/${c}`)!.requests / totals.get(`${i}/${c}`)!.seconds;
  console.log(`\n  req/s over ${ROUNDS} rounds of ${DURATION} s [each round], SQL statements per request; ratios to the administrator`);
  console.log(`    ${'request'.padEnd(48)}${'owner'.padStart(20)}${'authority'.padStart(20)}${'admin'.padStart(20)}   owner/admin  authority/admin`);
  for (const [i, r] of list.entries()) {
    const cell = (c: CallerName) => `${rps(i, c).toFixed(0)} [${totals.get(`${i}/${c}`)!.rps.map((x) => x.toFixed(0)).join(',')}] ${sql.get(`${i}/${c}`)}`;
    console.log(`    ${r.title.padEnd(48)}${cell('owner').padStart(20)}${cell('authority').padStart(20)}${cell('admin').padStart(20)}   ×${(rps(i, 'owner') / rps(i, 'admin')).toFixed(2).padEnd(11)} ×${(rps(i, 'authority') / rps(i, 'admin')).toFixed(2)}`);
  }
}

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) throw new Error('bench:tenancy runs on PostgreSQL only: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
  await onPostgres(pgUrl, process.env.BENCH_DATABASE ?? 'bench_tenancy', (where) => `${where}: one service, three callers, same data`, run);
}

exitWhenDone(main);
