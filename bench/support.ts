import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils';
import { loadConfig } from '../src/config.js';
import { ibgeCheckDigit } from '../src/places/ibge.js';
import { openOrm } from '../src/db/orm.js';
import { Membership, type Role } from '../src/identity/membership.entity.js';
import { Organization } from '../src/identity/organization.entity.js';
import { hashPassword } from '../src/identity/passwords.js';
import { User } from '../src/identity/user.entity.js';
import { createService, type Service } from '../src/server.js';

/** What every service benchmark runs with: quiet, statements counted, generous login limits. */
export const BENCH_ENV = {
  LOG_LEVEL: 'silent',
  EXPOSE_SQL_STATEMENTS: 'true',
  LOGIN_LIMIT_PER_LOGIN: '1000000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
  // DB_WORK_MEM=server (or a size) from the bench's environment: an A/B of the service's work_mem.
  ...(process.env.DB_WORK_MEM ? { DB_WORK_MEM: process.env.DB_WORK_MEM } : {}),
  // TRACE_GRAPH=false from the bench's environment: the trace walked in PostgreSQL, for an A/B with the walk in memory.
  ...(process.env.TRACE_GRAPH ? { TRACE_GRAPH: process.env.TRACE_GRAPH } : {}),
};

export interface Served {
  service: Service;
  url: string;
}

/**
 * `run` on a fresh service over in-memory PGlite, then, when DATABASE_URL is set, over a scratch
 * database `scratch` on that PostgreSQL (see onPostgres).
 */
export async function onEachDatabase(scratch: string, title: (where: string) => string, run: (service: Service) => Promise<void>): Promise<void> {
  await runOn(title('PGlite (in memory)'), undefined, run);
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) return;
  await onPostgres(pgUrl, scratch, title, run);
}

/**
 * `run` on a fresh service over a scratch database `scratch` on the PostgreSQL of `pgUrl`, created
 * through the admin connection and dropped afterwards; `run` also gets the scratch database's URL
 * (for peers that open their own connections). An error of `run` is printed and sets exit code 1.
 */
export async function onPostgres(pgUrl: string, scratch: string, title: (where: string) => string, run: (service: Service, databaseUrl: string) => Promise<void>): Promise<void> {
  const admin = await openOrm(loadConfig({ ...BENCH_ENV, DATABASE_URL: pgUrl }));
  // BENCH_REUSE_DATABASE=1 runs on the database a BENCH_KEEP_DATABASE=1 run left (it is neither recreated nor dropped).
  const reuse = process.env.BENCH_REUSE_DATABASE === '1';
  try {
    if (!reuse) await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
    if (!reuse) await admin.em.fork().execute(`create database ${scratch}`);
    // BENCH_EXPLAIN=<ms>: every statement slower than that, nested ones (event_append's) included,
    // EXPLAIN ANALYZEd into the server's log (auto_explain, loaded by this database's sessions only).
    const explain = process.env.BENCH_EXPLAIN;
    if (explain) {
      for (const [name, value] of [['session_preload_libraries', 'auto_explain'], ['auto_explain.log_min_duration', `${Number(explain)}ms`], ['auto_explain.log_analyze', 'on'], ['auto_explain.log_nested_statements', 'on'], ['auto_explain.log_triggers', 'on']]) {
        await admin.em.fork().execute(`alter database ${scratch} set ${name} = '${value}'`);
      }
    }
    const url = new URL(pgUrl);
    url.pathname = `/${scratch}`;
    await runOn(title(`PostgreSQL (scratch database ${scratch} on ${url.host})`), url.toString(), (service) => run(service, url.toString())).catch((err: unknown) => {
      console.error(err); // shown here: the drop below would otherwise hide it
      process.exitCode = 1;
    });
  } finally {
    // with (force): a service that failed half-way may still hold a connection to it (PostgreSQL 13+).
    // BENCH_KEEP_DATABASE=1 leaves it for EXPLAIN ANALYZE of what the bench measured.
    if (process.env.BENCH_KEEP_DATABASE === '1' || reuse) console.log(`kept database ${scratch}`);
    else await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
    await admin.close();
  }
}

async function runOn(title: string, databaseUrl: string | undefined, run: (service: Service) => Promise<void>): Promise<void> {
  console.log(`\n${title}:`);
  const service = await createService(loadConfig({ ...BENCH_ENV, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl }));
  try {
    await run(service);
  } finally {
    await service.close();
  }
}

/** A fresh organization and its confirmed member (OWNER unless said), who signs in with `password`. */
export async function benchOwner(service: Service, password: string, role: Role = 'OWNER'): Promise<{ org: Organization; user: User }> {
  const em = service.orm.em.fork();
  const org = em.create(Organization, { str_name: 'Bench Org', str_document: generateCnpj() });
  const user = em.create(User, {
    str_name: 'Bench Owner',
    str_email: `bench.${randomUUID().slice(0, 12)}@example.com`,
    str_document: generateCpf(),
    str_type: 'PRODUCER',
    bl_admin: false,
    password_hash: await hashPassword(password),
    ts_registration_confirmed_at: new Date(),
    organization_id: null,
  });
  em.persist([org, user]);
  em.persist(em.create(Membership, { user_id: user.id, organization_id: org.id, str_role: role }));
  await em.flush();
  return { org, user };
}

/** One establishment of the organization with one control unit of `type`; answers the unit's id. */
export async function benchUnit(service: Service, organizationId: string, type: string, name: string): Promise<string> {
  const em = service.orm.em.fork();
  const establishmentId = randomUUID();
  const unitId = randomUUID();
  await em.execute(`insert into establishment (id, organization_id, str_name, str_type) values (?, ?, 'Fazenda Bench', 'FARM')`, [establishmentId, organizationId]);
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, ?, ?)`, [unitId, establishmentId, `BENCH-${unitId.slice(0, 8)}`, name, type]);
  return unitId;
}

/**
 * `n` made-up counties in one statement, answered by id in order: IBGE codes 0 + (90000 + i) and a
 * valid check digit (no real code starts with 0, so they clash with nothing an import loads),
 * named `Município Bench <i + 1>`, in the federative units of `ufs` in turn (default: ZB alone).
 */
export async function benchCounties(service: Service, n: number, ufs: readonly string[] = ['ZB']): Promise<string[]> {
  const rows = Array.from({ length: n }, (_, i) => {
    const six = `0${String(90000 + i).padStart(5, '0')}`;
    return { id: randomUUID(), code: `${six}${ibgeCheckDigit(six)}`, uf: ufs[i % ufs.length]!, n: i + 1 };
  });
  await service.orm.em.fork().execute(
    `insert into county (id, str_ibge_code, str_name, str_federative_unit)
     select c.id, c.code, 'Município Bench ' || c.n, c.uf from jsonb_to_recordset(?::jsonb) as c (id uuid, code text, uf text, n int)`,
    [JSON.stringify(rows)],
  );
  return rows.map((r) => r.id);
}

/** How benchHerd stocks units with tagged animals. */
export interface HerdSpec {
  /** SQL selecting the units to stock as (id, quantity, ord): `quantity` animals each, boxes in `ord` order; `?` params in `params`. */
  units: string;
  params: unknown[];
  /** The first tag code (076 + 12 digits, as a number): each unit's box takes the next `quantity` codes. */
  codeBase: number;
  /** Prefix of the boxes' str_code (`<prefix><n>`, n from 0 in `ord` order): unique per call. */
  boxPrefix: string;
  /**
   * Creation order, newest first: `byUnit` takes one unit's animals after another's (in code order);
   * `interleaved` takes every unit's first animal (units in a scrambled order), then every unit's
   * second, and so on, so that a page of the newest animals spans many units, as in real herds.
   */
  order: 'byUnit' | 'interleaved';
  /** Time between two consecutive creations, as an SQL interval (e.g. '1 second'). */
  spacing: string;
  /** At most this many animals (the rest of the codes stay AVAILABLE tags). */
  limit?: number;
}

/**
 * Tags and animals, set-based (INSERT ... SELECT from generate_series): one DEPLETED box per unit
 * holding its range of codes, a tag per code, an animal on each tag (90% ACTIVE, 7% MISSING, 3% DEAD;
 * 5% buffalo; half of them female; distinct creation times `spacing` apart), the tags then APPLIED.
 * Answers the number of animals made.
 */
export async function benchHerd(service: Service, spec: HerdSpec): Promise<number> {
  const em = service.orm.em.fork();
  await em.execute(
    `insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id)
     select gen_random_uuid(), ? || u.n, lpad((?::bigint + u.before)::text, 15, '0'), lpad((?::bigint + u.before + u.quantity - 1)::text, 15, '0'), u.quantity, 'DEPLETED', u.id
       from (select s.id, s.quantity, row_number() over w - 1 as n, coalesce(sum(s.quantity) over (w rows between unbounded preceding and 1 preceding), 0) as before
               from (${spec.units}) s window w as (order by s.ord)) u`,
    [spec.boxPrefix, spec.codeBase, spec.codeBase, ...spec.params],
  );
  await em.execute(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id, ts_created_at, ts_updated_at)
     select gen_random_uuid(), lpad((b.str_begin::bigint + g)::text, 15, '0'), 'AVAILABLE', b.id, b.control_unit_id, now() - interval '400 days', now() - interval '400 days'
       from tags_box b cross join generate_series(0, b.int_quantity - 1) g where starts_with(b.str_code, ?)`,
    [spec.boxPrefix],
  );
  const order = spec.order === 'byUnit' ? 't.str_code' : 't.str_code::bigint - b.str_begin::bigint, md5(b.id::text)';
  const [made] = await em.execute<{ n: number }[]>(
    `with made as (insert into animal (id, str_species, str_gender, str_status, current_tag_id, last_control_unit_id, str_name, str_rod_code,
                         ts_born_date, ts_identified_at, int_weight_kilos_at_identification, ts_created_at, ts_updated_at)
     select gen_random_uuid(), case when s.n % 20 = 0 then 'BUBALINE' else 'BOVINE' end, case when s.n % 2 = 0 then 'FEMALE' else 'MALE' end,
            case when s.n % 100 < 90 then 'ACTIVE' when s.n % 100 < 97 then 'MISSING' else 'DEAD' end,
            s.id, s.unit, 'Animal ' || s.n, 'RFID-' || s.str_code,
            now() - (400 + s.n % 700) * interval '1 day', now() - (s.n % 365) * interval '1 day', 30 + s.n % 400,
            now() - s.n * ?::interval, now() - s.n * ?::interval
       from (select t.id, t.str_code, t.last_control_unit_id as unit, row_number() over (order by ${order}) as n
               from tag t join tags_box b on b.id = t.tags_box_id where starts_with(b.str_code, ?) order by n ${spec.limit === undefined ? '' : `limit ${Math.floor(spec.limit)}`}) s
     returning 1) select count(*)::int as n from made`,
    [spec.spacing, spec.spacing, spec.boxPrefix],
  );
  await em.execute(`update tag set str_status = 'APPLIED', animal_id = a.id, last_control_unit_id = null from animal a where a.current_tag_id = tag.id and tag.str_status = 'AVAILABLE'`);
  return made!.n;
}

/** The service listening on a free port. */
export async function serve(service: Service): Promise<string> {
  const server = await service.listen(0);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface Reply<T> {
  status: number;
  json: T;
  sql: string | null;
  ms: number;
}

export async function postJson<T>(url: string, path: string, body: unknown, token?: string): Promise<Reply<T>> {
  const started = performance.now();
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const json = (await res.json()) as T;
  return { status: res.status, json, sql: res.headers.get('x-sql-statements'), ms: performance.now() - started };
}

/** An access token for the user with `organizationId` active. */
export async function signIn(url: string, email: string, password: string, organizationId: string): Promise<string> {
  type Pair = { data: { str_access_token: string } };
  const login = await postJson<Pair>(url, '/api/login', { str_email: email, str_password: password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.json)}`);
  const switched = await postJson<Pair>(url, '/api/change-org', { organization_id: organizationId }, login.json.data.str_access_token);
  if (switched.status !== 200) throw new Error(`change-org: ${switched.status} ${JSON.stringify(switched.json)}`);
  return switched.json.data.str_access_token;
}

/** Exit when `main` settles: 0, or 1 and the error (open handles would keep the process alive). */
export function exitWhenDone(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
