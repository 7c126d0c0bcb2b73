/**
 * Issue 25, "several instances, one behaviour", the write mix: two service instances on one scratch
 * database of the PostgreSQL in DATABASE_URL (required), 16 clients, each its own organization with
 * a farm and a feedlot, alternating their requests between the two instances. Each client runs
 * BENCH_ITERATIONS (default 12) rounds of: identify 5 animals at the farm, register a vehicle, issue
 * a GTA farm → feedlot, an egress of those 5 animals (create, reads, finish) and their ingress at the
 * feedlot (create with reads, finish). Every create carries a client id, and every 3rd round sends
 * each create to both instances at the same moment (a device's retry racing its first send).
 * Prints the answers by status (an error is any answer other than 2xx; a 409 CONCURRENT_WRITE is the
 * contract's "send again", counted apart and sent again), the rows found against the rows expected
 * (no write lost, none made twice), requests per second, and the load average.
 * BENCH_DATABASE names the scratch database (default bench_scale_writes_<pid>).
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:scale-writes
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createService, type Service } from '../src/server.js';
import { BENCH_ENV, benchCounties, benchOwner, exitWhenDone, onPostgres, postJson, serve, signIn } from './support.js';
import { renavamCheckDigit } from '../src/transit/vehicle.rules.js';

const CLIENTS = 16;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 12);
const HERD = 5;
const PASSWORD = 'bench-password-1';
const GEO = { type: 'Point', coordinates: [-47.9, -15.8] };

interface Tenant {
  orgId: string;
  token: string;
  farm: string;
  feedlot: string;
  codes: string[];
}

const statuses = new Map<string, number>();
let requests = 0;
let retried = 0;

/** POSTs to one instance, or to both at once: every answer must be 2xx and, sent twice, carry the same id (else it is printed). The created record. */
async function send(urls: string[], path: string, body: unknown, token: string): Promise<{ id: string } & Record<string, unknown>> {
  const once = async (url: string) => {
    for (;;) {
      const reply = await postJson<{ data: { id: string }; error?: string; detail?: { rule?: string } }>(url, path, body, token);
      requests++;
      const key = `${reply.status}${reply.json.error ? ` ${reply.json.error}` : ''}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (reply.status === 409 && reply.json.detail?.rule === 'CONCURRENT_WRITE') {
        retried++;
        continue;
      }
      return reply;
    }
  };
  const replies = await Promise.all(urls.map(once));
  const ids = new Set(replies.map((r) => r.json.data?.id));
  if (replies.some((r) => r.status >= 300) || ids.size !== 1) console.log(`  ${path}: ${replies.map((r) => `${r.status} ${JSON.stringify(r.json).slice(0, 300)}`).join(' | ')}`);
  const created = replies.find((r) => r.status < 300);
  if (!created) throw new Error(`${path}: no instance created it`);
  return created.json.data;
}

async function tenant(service: Service, url: string, county: string, c: number): Promise<Tenant> {
  const { org, user } = await benchOwner(service, PASSWORD);
  const em = service.orm.em.fork();
  const [farm, feedlot] = [randomUUID(), randomUUID()];
  for (const [unit, type] of [[farm, 'FARM'], [feedlot, 'FEEDLOT']] as const) {
    const establishment = randomUUID();
    const car = type === 'FARM' ? `ZB-0090000-${randomUUID().replaceAll('-', '').toUpperCase()}` : null;
    await em.execute('insert into establishment (id, organization_id, county_id, str_name, str_type, str_car) values (?, ?, ?, ?, ?, ?)', [establishment, org.id, county, `${type} ${c}`, type, car]);
    await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Curral', 'PRODUCTION')`, [unit, establishment, `BENCH-${unit.slice(0, 8)}`]);
  }
  const n = ITERATIONS * HERD;
  const begin = 76_500_000_000_000 + c * 100_000;
  await em.execute(`insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, lpad(?::text, 15, '0'), lpad(?::text, 15, '0'), ?, 'IN_STOCK', ?)`, [randomUUID(), `BOX-${c}`, begin, begin + n - 1, n, farm]);
  const codes = await em.execute<{ str_code: string }[]>(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id)
       select gen_random_uuid(), lpad((?::bigint + g)::text, 15, '0'), 'AVAILABLE', (select id from tags_box where str_code = ?), ? from generate_series(0, ? - 1) g
     returning str_code`,
    [begin, `BOX-${c}`, farm, n],
  );
  return { orgId: org.id, token: await signIn(url, user.str_email, PASSWORD, org.id), farm, feedlot, codes: codes.map((r) => r.str_code).sort() };
}

function vehicle(): Record<string, unknown> {
  const digits = (k: number) => Array.from({ length: k }, () => String(Math.floor(Math.random() * 10))).join('');
  const letters = (k: number) => Array.from({ length: k }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');
  const renavam = digits(10);
  return { id: randomUUID(), str_brand: 'Volvo', str_color: 'Branco', str_fuel: 'DIESEL', str_last_registration: '2024', str_license_plate: `${letters(3)}${digits(1)}${letters(1)}${digits(2)}`, str_model: 'FH 540', str_renavam_number: renavam + renavamCheckDigit(renavam), str_type: 'TRUCK', str_year_of_manufacture: '2019' };
}

async function client(t: Tenant, c: number, urls: [string, string]): Promise<void> {
  const validUntil = new Date(Date.now() + 7 * 86_400_000).toISOString();
  for (let i = 0; i < ITERATIONS; i++) {
    const at = (k: number) => [urls[(c + i + k) % 2]!];
    const create = (k: number) => (i % 3 === 0 ? urls : at(k));
    const codes = t.codes.slice(i * HERD, (i + 1) * HERD);
    await send(create(0), '/api/tags-identifications', { id: randomUUID(), to_control_unit_id: t.farm, animals: codes.map((code) => ({ id: randomUUID(), str_tag_code: code, str_species: 'BOVINE', str_gender: 'FEMALE' })) }, t.token);
    await send(create(1), '/api/vehicles', vehicle(), t.token);
    const gta = await send(create(0), '/api/gtas', { gta: { id: randomUUID(), str_code: `${c + 1}${String(i).padStart(6, '0')}`, int_animal_quantity: HERD, str_purpose: 'FATTENING', from_control_unit_id: t.farm, to_control_unit_id: t.feedlot, ts_valid_until: validUntil } }, t.token);
    const egress = await send(create(1), '/api/animals-egress', { id: randomUUID(), from_control_unit_id: t.farm, to_control_unit_id: t.feedlot, gta_id: gta.id, str_license_plate: 'BEN1C23' }, t.token);
    await send(at(0), `/api/animals-egress/${egress.id}/tags`, { tags: codes.map((code) => ({ id: randomUUID(), str_tag_code: code, ts_egress_at: new Date().toISOString(), geo_egress: GEO })) }, t.token);
    await send(at(1), `/api/animals-egress/${egress.id}/finish`, {}, t.token);
    const ingress = await send(create(0), '/api/animals-ingress', { id: randomUUID(), to_control_unit_id: t.feedlot, gtas: [{ gta_id: gta.id }], tags: codes.map((code) => ({ id: randomUUID(), str_tag_code: code, ts_ingress_at: new Date().toISOString(), geo_ingress: GEO })) }, t.token);
    await send(at(1), `/api/animals-ingress/${ingress.id}/finish`, {}, t.token);
  }
}

async function rowsFound(service: Service, orgIds: string[]): Promise<Record<string, number>> {
  const [row] = await service.orm.em.fork().execute<Record<string, number>[]>(
    `with u as (select cu.id from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id in (select value::uuid from jsonb_array_elements_text(?::jsonb)))
     select (select count(*)::int from tags_identification where control_unit_id in (select id from u)) as identifications,
            (select count(*)::int from animal where tags_identification_id in (select ti.id from tags_identification ti where ti.control_unit_id in (select id from u))) as animals,
            (select count(*)::int from vehicle where organization_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))) as vehicles,
            (select count(*)::int from gta where from_control_unit_id in (select id from u)) as gtas,
            (select count(*)::int from animals_egress where from_control_unit_id in (select id from u)) as egresses,
            (select count(*)::int from animals_egress where from_control_unit_id in (select id from u) and str_status = 'RECEIVED') as egresses_received,
            (select count(*)::int from animals_ingress where to_control_unit_id in (select id from u)) as ingresses,
            (select count(*)::int from animals_ingress where to_control_unit_id in (select id from u) and str_status = 'RECEIVED') as ingresses_received,
            (select count(*)::int from animal a where a.last_control_unit_id in (select id from u) and a.last_control_unit_id in (select cu.id from control_unit cu join establishment e on e.id = cu.establishment_id where e.str_type = 'FEEDLOT')) as animals_at_feedlots`,
    [JSON.stringify(orgIds), JSON.stringify(orgIds)],
  );
  return row!;
}

/** Figures of one run of the mix: requests per second, and whether anything but the contract's answers came back or a row was lost or made twice. */
export interface MixResult {
  requests: number;
  seconds: number;
  ok: boolean;
}

/**
 * The mix against two instances (`urls`) of the service whose database `setup` opens: its tenants
 * made through `setup` (at `countyId`, else a county made for it), its clients' requests alternating
 * between the two. Prints as it goes.
 */
export async function writeMix(setup: Service, urls: [string, string], countyId?: string): Promise<MixResult> {
  statuses.clear();
  requests = 0;
  retried = 0;
  const [county] = countyId ? [countyId] : await benchCounties(setup, 1);
  const tenants = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => tenant(setup, urls[c % 2]!, county!, c)));
  const load = loadavg()[0]!;
  const started = performance.now();
  await Promise.all(tenants.map((t, c) => client(t, c, urls)));
  const seconds = (performance.now() - started) / 1000;
  const n = CLIENTS * ITERATIONS;
  const expected = { identifications: n, animals: n * HERD, vehicles: n, gtas: n, egresses: n, egresses_received: n, ingresses: n, ingresses_received: n, animals_at_feedlots: n * HERD };
  const found = await rowsFound(setup, tenants.map((t) => t.orgId));
  console.log(`  ${requests} requests in ${seconds.toFixed(1)} s (${(requests / seconds).toFixed(0)} req/s), load average ${load.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`);
  console.log(`  answers by status: ${[...statuses].sort().map(([k, v]) => `${k}: ${v}`).join(', ')}; sent again after 409 CONCURRENT_WRITE: ${retried}`);
  for (const [k, v] of Object.entries(expected)) console.log(`  ${k.padEnd(20)} expected ${String(v).padStart(5)}  found ${String(found[k]).padStart(5)}${found[k] === v ? '' : '  <-- MISMATCH'}`);
  const errors = [...statuses].filter(([k]) => !k.startsWith('2') && !k.startsWith('409 CONFLICT')).reduce((s, [, v]) => s + v, 0);
  return { requests, seconds, ok: !errors && Object.entries(expected).every(([k, v]) => found[k] === v) };
}

// Run, unless imported (bench:scale runs the mix against two service processes).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  exitWhenDone(async () => {
    const pgUrl = process.env.DATABASE_URL;
    if (!pgUrl) throw new Error('bench:scale-writes needs PostgreSQL: set DATABASE_URL');
    await onPostgres(pgUrl, process.env.BENCH_DATABASE ?? `bench_scale_writes_${process.pid}`, (where) => `write mix, ${CLIENTS} clients × ${ITERATIONS} rounds against 2 instances, ${where}`, async (a, databaseUrl) => {
      const b = await createService(loadConfig({ ...BENCH_ENV, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl }));
      try {
        const result = await writeMix(a, [await serve(a), await serve(b)]);
        if (!result.ok) process.exitCode = 1;
      } finally {
        await b.close();
      }
    });
  });
}
