/**
 * Identification and the animals search on a data set it generates set-based (INSERT ... SELECT from
 * generate_series): one organization, 20 establishments with a control unit each, and 100,000
 * ACTIVE/MISSING/DEAD animals carrying APPLIED tags. Prints the time to generate; wall time and SQL
 * statements of 500-animal identifications (POST /api/tags-identifications, each on 500 fresh
 * AVAILABLE tags) next to a 5-animal one; and autocannon figures (median, p99, req/s) for
 * POST /api/animals/search pages of 50 with a filter or two. On in-memory PGlite, and, when
 * DATABASE_URL is set, on a scratch database `bench_animals` on that PostgreSQL (created through
 * the admin connection, dropped afterwards). Run: npm run bench:animals
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { Service } from '../src/server.js';
import { benchCounties, benchHerd, benchOwner, exitWhenDone, onEachDatabase, postJson, serve, signIn } from './support.js';

const ANIMALS = Number(process.env.BENCH_ANIMALS ?? 100_000);
const ESTABLISHMENTS = 20;
const PER_UNIT = Math.ceil(ANIMALS / ESTABLISHMENTS);
const IDENTIFICATIONS = 5;
const BATCH = 500;
const DURATION = 10;
const CONNECTIONS = 10;
const PASSWORD = 'bench-password-1';
// Codes 076 9xx...: a block no test or other bench uses.
const CODE_BASE = 76_900_000_000_000;

interface Herd {
  email: string;
  organizationId: string;
  establishmentId: string;
  workUnitId: string;
}

/** The organization, its owner, the establishments and their units, then tags and animals, set-based. */
async function generate(service: Service): Promise<Herd> {
  const em = service.orm.em.fork();
  const { org, user } = await benchOwner(service, PASSWORD);
  const [county] = await benchCounties(service, 1);

  const started = performance.now();
  await em.execute(
    `insert into establishment (id, organization_id, county_id, str_name, str_type) select gen_random_uuid(), ?, ?, 'Fazenda Bench ' || g, 'FARM' from generate_series(1, ${ESTABLISHMENTS}) g`,
    [org.id, county],
  );
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type)
     select gen_random_uuid(), e.id, 'BENCH-' || e.str_name, 'Retiro', 'PRODUCTION' from establishment e where e.organization_id = ?`,
    [org.id],
  );
  // One box per unit, holding that unit's animals' tags: the 20 ranges follow each other; the animals unit after unit.
  await benchHerd(service, {
    units: `select cu.id, ${PER_UNIT} as quantity, cu.str_code as ord from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?`,
    params: [org.id],
    codeBase: CODE_BASE,
    boxPrefix: 'BENCH-BOX-',
    order: 'byUnit',
    spacing: '1 second',
    limit: ANIMALS,
  });
  const generateMs = performance.now() - started;
  const analyzeAt = performance.now();
  for (const table of ['establishment', 'control_unit', 'tags_box', 'tag', 'animal']) await em.execute(`analyze ${table}`);
  const analyzeMs = performance.now() - analyzeAt;
  const [counts] = await em.execute<{ animals: number; tags: number }[]>(
    `select (select count(*)::int from animal a join control_unit cu on cu.id = a.last_control_unit_id join establishment e on e.id = cu.establishment_id where e.organization_id = ?) as animals,
            (select count(*)::int from tag t join tags_box b on b.id = t.tags_box_id where b.str_code like 'BENCH-BOX-%') as tags`,
    [org.id],
  );
  console.log(`  data: ${counts!.animals} animals with ${counts!.tags} applied tags at ${ESTABLISHMENTS} units in ${generateMs.toFixed(0)} ms (analyze afterwards ${analyzeMs.toFixed(0)} ms)`);
  const [first] = await em.execute<{ establishment_id: string; unit_id: string }[]>(
    `select e.id as establishment_id, cu.id as unit_id from establishment e join control_unit cu on cu.establishment_id = e.id where e.organization_id = ? order by cu.str_code limit 1`,
    [org.id],
  );
  return { email: user.str_email, organizationId: org.id, establishmentId: first!.establishment_id, workUnitId: first!.unit_id };
}

/** `n` AVAILABLE tags in a fresh box at the unit, after every range used so far. */
async function stock(service: Service, unitId: string, n: number, offset: number): Promise<string[]> {
  const em = service.orm.em.fork();
  const begin = CODE_BASE + ESTABLISHMENTS * PER_UNIT + offset;
  const box = randomUUID();
  await em.execute(
    `insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, lpad(?::text, 15, '0'), lpad(?::text, 15, '0'), ?, 'IN_STOCK', ?)`,
    [box, `BENCH-STOCK-${offset}`, begin, begin + n - 1, n, unitId],
  );
  const rows = await em.execute<{ str_code: string }[]>(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id) select gen_random_uuid(), lpad((?::bigint + g)::text, 15, '0'), 'AVAILABLE', ?, ? from generate_series(0, ? - 1) g returning str_code`,
    [begin, box, unitId, n],
  );
  return rows.map((r) => r.str_code).sort();
}

interface Page {
  data: unknown[];
  meta: { int_total_results: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(service: Service): Promise<void> {
  const herd = await generate(service);
  const url = await serve(service);
  const token = await signIn(url, herd.email, PASSWORD, herd.organizationId);

  let offset = 0;
  const identifyOnce = async (n: number) => {
    const codes = await stock(service, herd.workUnitId, n, offset);
    offset += n;
    const animals = codes.map((c, i) => ({ id: randomUUID(), str_tag_code: c, str_species: 'BOVINE', str_gender: i % 2 ? 'MALE' : 'FEMALE', str_rod_code: `RFID-B-${c}`, int_weight_kilos_at_identification: 180, geo_identification: { type: 'Point', coordinates: [-47.9, -15.8] } }));
    const res = await postJson(url, '/api/tags-identifications', { id: randomUUID(), to_control_unit_id: herd.workUnitId, animals }, token);
    if (res.status !== 201) throw new Error(`identification: ${res.status} ${JSON.stringify(res.json).slice(0, 500)}`);
    return res;
  };
  const small = await identifyOnce(5);
  console.log(`  POST /api/tags-identifications, 5 animals: ${small.sql} SQL statements, ${small.ms.toFixed(0)} ms`);
  const times: number[] = [];
  const statements = new Set<string | null>();
  for (let i = 0; i < IDENTIFICATIONS; i++) {
    const res = await identifyOnce(BATCH);
    times.push(res.ms);
    statements.add(res.sql);
  }
  console.log(
    `  POST /api/tags-identifications, ${BATCH} animals (${IDENTIFICATIONS} runs, each on fresh tags, response lists the ${BATCH} animals): ${[...statements].join('/')} SQL statements, ` +
      `wall time median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`,
  );

  const searches: [string, Record<string, unknown>][] = [
    ['establishment_id + str_status', { establishment_id: herd.establishmentId, str_status: 'ACTIVE' }],
    ['str_species + str_gender (whole herd)', { str_species: 'BUBALINE', str_gender: 'FEMALE' }],
    ['str_tag_code', { str_tag_code: String(CODE_BASE + 4242).padStart(15, '0') }],
  ];
  const path = '/api/animals/search?int_max_results=50';
  for (const [label, body] of searches) {
    const once = await postJson<Page>(url, path, body, token);
    if (once.status !== 200) throw new Error(`search ${label}: ${once.status} ${JSON.stringify(once.json)}`);
    const request = { url: url + path, method: 'POST' as const, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), connections: CONNECTIONS };
    await autocannon({ ...request, duration: 2 }); // warm-up, not reported
    const result = await autocannon({ ...request, duration: DURATION });
    console.log(
      `  POST ${path} {${label}}: ${once.json.data.length} of ${once.json.meta.int_total_results} animals, ${once.sql} SQL statements; ` +
        `${CONNECTIONS} connections, ${DURATION} s: ${result.requests.total} requests, ${result.requests.average.toFixed(1)} req/s, ` +
        `latency median ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
    );
  }
}

exitWhenDone(() => onEachDatabase('bench_animals', (where) => `${where}, ${ANIMALS} animals`, run));
