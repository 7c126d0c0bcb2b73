/**
 * The public establishments index (GET /api/v1/establishments, Establishment Partial Data with its
 * control units) on a data set it generates: one organization, a few counties, 10,000 establishments
 * with 2 control units each, made set-based (INSERT ... SELECT from generate_series). Prints the time
 * to generate, the SQL statements per request for pages of 1, 50 and 500, and autocannon figures
 * (median, p99, req/s) for pages of 50. On in-memory PGlite, and, when DATABASE_URL is set, on a
 * scratch database `bench_establishments` on that PostgreSQL (created through the admin connection,
 * dropped afterwards). Run: npm run bench:establishments
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import { generateCpf } from '@brazilian-utils/brazilian-utils';
import type { Service } from '../src/server.js';
import { benchCounties, benchOwner, exitWhenDone, onEachDatabase, serve, signIn } from './support.js';

const ESTABLISHMENTS = Number(process.env.BENCH_ESTABLISHMENTS ?? 10_000);
const UNITS_PER_ESTABLISHMENT = 2;
const COUNTIES = 5;
const DURATION = 10;
const CONNECTIONS = 10;
const PASSWORD = 'bench-password-1';

interface Owner {
  email: string;
  organizationId: string;
}

/** The organization, its owner, a few counties, then the establishments and their units, set-based. */
async function generate(service: Service): Promise<Owner> {
  const em = service.orm.em.fork();
  const { org, user } = await benchOwner(service, PASSWORD);

  // Counties in a made-up federative unit (codes starting with 0), so they clash with nothing real.
  const counties = await benchCounties(service, COUNTIES);

  const started = performance.now();
  // Distinct creation times, one second apart, newest first by g: the index orders by ts_created_at desc, id.
  await em.execute(
    `insert into establishment (id, organization_id, county_id, responsible_user_id, str_name, str_type, str_status,
        num_longitude, num_latitude, dec_area, dec_exploration_area, str_address, str_code, str_document, str_email,
        str_neighborhood, str_zip_code, ts_created_at, ts_updated_at)
     select gen_random_uuid(), ?, (array[${counties.map(() => '?::uuid').join(', ')}])[1 + g % ${COUNTIES}], ?,
        'Fazenda Bench ' || g, 'FARM', 'ACTIVE',
        -50 + (g % 1000) / 100.0, -15 + (g % 700) / 100.0, 100 + g % 900, 50 + g % 50, 'Estrada ' || g, 'EST-' || g, ?, 'fazenda' || g || '@example.com',
        'Zona rural', '70000000', now() - g * interval '1 second', now() - g * interval '1 second'
     from generate_series(1, ${ESTABLISHMENTS}) as g`,
    [org.id, ...counties, user.id, generateCpf()],
  );
  const establishmentsMs = performance.now() - started;
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type, str_predominant_phase, str_predominant_system, ts_created_at, ts_updated_at)
     select gen_random_uuid(), e.id, 'BENCH-' || e.str_code || '-' || u, 'Retiro ' || u, 'PRODUCTION', 'FULL_CYCLE', 'EXTENSIVE', e.ts_created_at + u * interval '1 millisecond', e.ts_created_at
     from establishment e cross join generate_series(1, ${UNITS_PER_ESTABLISHMENT}) as u
     where e.organization_id = ?`,
    [org.id],
  );
  const totalMs = performance.now() - started;
  const analyzeAt = performance.now();
  await em.execute('analyze establishment');
  await em.execute('analyze control_unit');
  const analyzeMs = performance.now() - analyzeAt;
  const [counts] = await em.execute<{ e: number; u: number }[]>(
    `select (select count(*)::int from establishment where organization_id = ?) as e,
            (select count(*)::int from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?) as u`,
    [org.id, org.id],
  );
  console.log(
    `  data: ${counts!.e} establishments + ${counts!.u} control units in ${totalMs.toFixed(0)} ms ` +
      `(establishments ${establishmentsMs.toFixed(0)} ms, control units ${(totalMs - establishmentsMs).toFixed(0)} ms; analyze afterwards ${analyzeMs.toFixed(0)} ms)`,
  );
  return { email: user.str_email, organizationId: org.id };
}

async function run(service: Service): Promise<void> {
  const owner = await generate(service);
  const url = await serve(service);
  const headers = { authorization: `Bearer ${await signIn(url, owner.email, PASSWORD, owner.organizationId)}` };

  for (const size of [1, 50, 500]) {
    const started = performance.now();
    const res = await fetch(`${url}/api/v1/establishments?int_max_results=${size}`, { headers });
    const body = (await res.json()) as { data: { control_units: unknown[] }[]; meta: { int_total_results: number } };
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`page of ${size}: ${res.status} ${JSON.stringify(body)}`);
    const units = body.data.reduce((n, e) => n + e.control_units.length, 0);
    console.log(
      `  page of ${String(size).padStart(3)}: ${res.headers.get('x-sql-statements')} SQL statements, ${body.data.length} establishments, ${units} control units, ` +
        `int_total_results ${body.meta.int_total_results}, one cold request ${ms.toFixed(0)} ms`,
    );
  }

  const path = '/api/v1/establishments?int_max_results=50';
  await autocannon({ url: url + path, headers, connections: CONNECTIONS, duration: 2 }); // warm-up, not reported
  const result = await autocannon({ url: url + path, headers, connections: CONNECTIONS, duration: DURATION });
  console.log(
    `  GET ${path} (${CONNECTIONS} connections, ${DURATION} s): ${result.requests.total} requests, ${result.requests.average.toFixed(1)} req/s, ` +
      `latency median ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
  );
}

exitWhenDone(() => onEachDatabase('bench_establishments', (where) => `${where}, ${ESTABLISHMENTS} establishments`, run));
