/**
 * This service against two peers, and tenancy's cost, on the same PostgreSQL database, the same data
 * and the same requests, in one run (issue 8, item 6; issue 23): the service asked by three callers
 * (the owner of a big organization, a state's authority, the administrator), PostGraphile 5 (amber
 * preset, its own HTTP server) and a raw node:http + pg handler (one hand-written parameterised SQL
 * statement per request, named, so prepared once per connection like the service's and
 * PostGraphile's, JSON built by PostgreSQL). The peers apply no tenancy (they answer what the
 * administrator sees): the administrator's ratio to them is the service's own cost, and the owner's
 * and the authority's ratio to the administrator is tenancy's.
 * PostgreSQL only (DATABASE_URL): a scratch database `bench_peers` on it, created and dropped
 * afterwards, with the data generated set-based (INSERT ... SELECT from generate_series):
 *   - the owner's organization: 2,000 establishments, 4,000 control units, 100,000 animals (25 a unit)
 *     (a large ranching company, issue 23);
 *   - 9 other organizations: 24,000 establishments, 48,000 control units, one animal each;
 *   - counties in two federative units: ZA holds the owner's establishments and 23,000 others
 *     (50,000 control units: the authority's state), ZB 1,000;
 *   - 10 members per organization, responsible for some units and establishments.
 * Creation times interleave over the units, so that a page of the newest 50 spans many units and
 * establishments (and, for the administrator, organizations).
 *
 * Callers (one access token each, checked by the service as always: signature, then the session,
 * from the actor cache after the first request):
 *   - owner: the OWNER of the big organization, with it active;
 *   - authority: an AUTHORITY living in a county of ZA, without an organization;
 *   - admin: an administrator (no scope); the peers verify its token (the service's own Tokens class:
 *     signature, issuer, audience, expiry) and read without a scope.
 *
 * PostGraphile answers all four at POST /graphql; raw at GET /q/animals, GET /q/animals/:id,
 * GET /api/establishments and POST /api/animals/search. The servers run in this process, each with
 * a pool of 10 connections (the service's default), and autocannon in a worker thread; PostgreSQL
 * shares the machine with them.
 *
 * The four requests, a page of 50 where a list, each in the three forms (the service's REST
 * answers are the peers' GraphQL or raw equivalents of the same data):
 *   a. GraphQL animals(page: {int_max_results: 50}) with current_tag → last_control_unit →
 *      establishment → county;
 *   b. GraphQL animal(id) with the same nesting (an animal of the owner's, which every caller sees);
 *   c. REST GET /api/establishments: Establishment Partial Data (control units with their
 *      responsible users and those users' organizations, county and responsible user fields);
 *   d. REST POST /api/animals/search {"str_species":"BOVINE","str_gender":"FEMALE"}: Animal
 *      Partial Data (tag code, unit code, establishment name) and the total.
 *
 * First each server and caller answers each request once, to check: 200 and rows; the
 * administrator, PostGraphile and raw the same rows (and ids, in the same order), else the run
 * says MISMATCH and exits 1. Then SQL statements per request are counted on one more request each:
 * the service's X-SQL-Statements header; for the peers a wrapper around their pg pool's query
 * (pg_stat_statements is not loaded on a stock server). Then autocannon (in a worker thread, off the
 * servers' event loop), interleaved: after a warm-up, ROUNDS rounds of each request against owner,
 * authority, admin, PostGraphile, raw in turn and back again (A B C C B A; each round starting one
 * target later), DURATION seconds each way with CONNECTIONS connections.
 * Prints req/s (over all rounds), p50 and p99 (median of the rounds' figures), the machine's load
 * average beside each figure (the mean of its rounds' 1-minute figures), and the ratios issue 23
 * sets targets for: owner/admin and authority/admin (>= 0.9), admin/PostGraphile (>= 1.0), admin/raw
 * (>= 0.5; the point read >= 0.35). A ratio is each round's (the two targets measured one after
 * the other within the round, under about the same load), printed per round with its load, and
 * judged by their median: on a shared machine the load moves between rounds, and a ratio of
 * totals over all rounds weighs most the round the machine left the servers most of.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:peers (BENCH_DATABASE names the scratch database)
 * (BENCH_REPLICA_URL=postgres://…:5433/postgres adds `replica`: the administrator at a service with its reads on that streaming replica.)
 * (BENCH_UNCACHED=1 adds `uncached`: the administrator at a second service with ACTOR_CACHE=false, the session statement on every request.)
 * (BENCH_ROUNDS, BENCH_DURATION, BENCH_CONNECTIONS, BENCH_LEAD_IN (seconds of load before each run, not counted; 1) to change the measurement.)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { jsonPgSmartTags } from 'postgraphile/utils';
import { loadConfig } from '../src/config.js';
import { Tokens } from '../src/identity/tokens.js';
import { createService, type Service } from '../src/server.js';
import { BENCH_ENV, benchCounties, benchHerd, benchOwner, exitWhenDone, onPostgres, postJson, serve, signIn } from './support.js';
import { SERVICE_TREE as SERVICE_SELECTION } from './peer-requests.js';

const BIG_ESTABLISHMENTS = 2_000;
const OTHER_ORGANIZATIONS = 9;
/** Every 13th establishment is the big organization's (2,000), every 26th from the 1st is in ZB (1,000), the rest in ZA. */
const ESTABLISHMENTS = 13 * BIG_ESTABLISHMENTS;
const UNITS_PER_ESTABLISHMENT = 2;
const ANIMALS_PER_BIG_UNIT = 25;
const MEMBERS_PER_ORGANIZATION = 10;
const COUNTIES = 300;
const PAGE = 50;
/** Three rounds, each target twice per round (there and back): the median of per-round ratios needs rounds more than seconds. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARM_UP = 1;
/**
 * Each measured run follows a second of the same load, not counted: in the rotation one target
 * always comes right after raw's run (the owner, in every round), and whatever that costs the
 * first requests after a pause of the service fell on it alone.
 */
const LEAD_IN = Number(process.env.BENCH_LEAD_IN ?? 1);
/** Each peer's pool: as many connections as the service's (DB_POOL_MAX's default). */
const POOL_MAX = 10;
/**
 * And kept as long as the service keeps its idle ones (DB_POOL_IDLE_SECONDS's default): with pg's
 * 10 s, a pool idle while the other targets ran started each of its runs on new connections.
 */
const POOL_IDLE_MS = 600_000;
export const PASSWORD = 'bench-password-1';
const DATABASE = process.env.BENCH_DATABASE ?? 'bench_peers';
/**
 * What PostGraphile runs a request without a valid token as: a role that may read nothing (the
 * cluster's; dropped by main). Named after the scratch database, so that two runs on one cluster
 * with different BENCH_DATABASE do not drop each other's role.
 */
const ROLE = `${DATABASE.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_nobody`;
// Codes 076 95x...: a block no other bench uses.
const CODE_BASE = 76_950_000_000_000;

type CallerName = 'owner' | 'authority' | 'admin';

export interface Data {
  /** The callers' e-mails and the organization each signs in with (none for the authority). */
  callers: Record<CallerName, { email: string; organizationId: string | null }>;
  /** An animal of the owner's organization, for animal(id). */
  animalId: string;
}

/** Everything, set-based; prints counts and the time it took. */
export async function generate(service: Service): Promise<Data> {
  const em = service.orm.em.fork();
  const big = await benchOwner(service, PASSWORD);
  const authority = await benchOwner(service, PASSWORD);
  const admin = await benchOwner(service, PASSWORD);
  const started = performance.now();

  const others = Array.from({ length: OTHER_ORGANIZATIONS }, (_, i) => ({ id: randomUUID(), name: `Bench Org ${i + 2}`, document: generateCnpj() }));
  await em.execute(`insert into organization (id, str_name, str_document) select o.id, o.name, o.document from jsonb_to_recordset(?::jsonb) as o (id uuid, name text, document text)`, [JSON.stringify(others)]);
  const organizations = [big.org.id, ...others.map((o) => o.id)];

  // Members of every organization (OPERATORs): the responsible users of some units and establishments.
  const members = organizations.flatMap((organization, k) =>
    Array.from({ length: MEMBERS_PER_ORGANIZATION }, (_, i) => ({ id: randomUUID(), organization, name: `Retireiro ${k + 1}.${i + 1}`, email: `retireiro.${k + 1}.${i + 1}@peers.example.com`, document: generateCpf() })),
  );
  await em.execute(
    `insert into "user" (id, str_name, str_email, str_document, str_type, organization_id, ts_registration_confirmed_at)
     select m.id, m.name, m.email, m.document, 'PRODUCER', m.organization, now() from jsonb_to_recordset(?::jsonb) as m (id uuid, organization uuid, name text, email text, document text)`,
    [JSON.stringify(members)],
  );
  await em.execute(
    `insert into membership (id, user_id, organization_id, str_role) select gen_random_uuid(), m.id, m.organization, 'OPERATOR' from jsonb_to_recordset(?::jsonb) as m (id uuid, organization uuid)`,
    [JSON.stringify(members)],
  );

  // Two of three counties in ZA, one in ZB.
  const counties = await benchCounties(service, COUNTIES, ['ZA', 'ZA', 'ZB']);
  const za = counties.filter((_, i) => i % 3 !== 2);
  const zb = counties.filter((_, i) => i % 3 === 2);

  // One hour apart, the organizations taking turns: each list of the newest mixes them all.
  await em.execute(
    `insert into establishment (id, organization_id, county_id, str_name, str_type, str_status, num_longitude, num_latitude, dec_area, dec_exploration_area,
        str_address, str_code, str_document, str_email, str_neighborhood, str_zip_code, ts_created_at, ts_updated_at)
     select gen_random_uuid(),
        case when g % 13 = 0 then ?::uuid else (?::jsonb ->> (g % ${OTHER_ORGANIZATIONS}))::uuid end,
        case when g % 26 = 1 then (?::jsonb ->> (abs(hashtext('county' || g)) % ${zb.length}))::uuid else (?::jsonb ->> (abs(hashtext('county' || g)) % ${za.length}))::uuid end,
        'Fazenda ' || g, 'FARM', 'ACTIVE',
        -50 + (g % 1000) / 100.0, -15 + (g % 700) / 100.0, 100 + g % 900, 50 + g % 50,
        'Estrada ' || g, 'EST-' || g, ?, 'fazenda' || g || '@example.com', 'Zona rural', '70000000', now() - g * interval '1 hour', now() - g * interval '1 hour'
     from generate_series(1, ${ESTABLISHMENTS}) as g`,
    [big.org.id, JSON.stringify(others.map((o) => o.id)), JSON.stringify(zb), JSON.stringify(za), generateCnpj()],
  );
  await em.execute(
    `insert into control_unit (id, establishment_id, str_code, str_name, str_type, str_predominant_phase, str_predominant_system, ts_created_at, ts_updated_at)
     select gen_random_uuid(), e.id, 'PEERS-' || e.str_code || '-' || u, case u when 1 then 'Retiro' else 'Invernada ' || u end, 'PRODUCTION', 'FULL_CYCLE', 'EXTENSIVE',
        e.ts_created_at + u * interval '1 minute', e.ts_created_at + u * interval '1 minute'
     from establishment e cross join generate_series(1, ${UNITS_PER_ESTABLISHMENT}) as u where e.str_code like 'EST-%'`,
  );
  // A member of the organization answers for a third of the establishments and half of the units.
  const membersK = `(select user_id, organization_id, row_number() over (partition by organization_id order by user_id) - 1 as k from membership where str_role = 'OPERATOR')`;
  await em.execute(
    `update establishment e set responsible_user_id = m.user_id from ${membersK} m
      where m.organization_id = e.organization_id and m.k = abs(hashtext(e.str_code)) % ${MEMBERS_PER_ORGANIZATION} and abs(hashtext(e.str_code)) % 3 = 0`,
  );
  await em.execute(
    `update control_unit cu set responsible_user_id = m.user_id from establishment e, ${membersK} m
      where e.id = cu.establishment_id and m.organization_id = e.organization_id and m.k = abs(hashtext(cu.str_code)) % ${MEMBERS_PER_ORGANIZATION} and abs(hashtext(cu.str_code)) % 2 = 0`,
  );
  // 25 head at each of the owner's units (100,000), one at every other unit, interleaved over the units.
  const animals = await benchHerd(service, {
    units: `select cu.id, case when e.organization_id = ? then ${ANIMALS_PER_BIG_UNIT} else 1 end as quantity, cu.str_code as ord
              from control_unit cu join establishment e on e.id = cu.establishment_id`,
    params: [big.org.id],
    codeBase: CODE_BASE,
    boxPrefix: 'PEERS-BOX-',
    order: 'interleaved',
    spacing: '1 minute',
  });
  // The authority reads its county's federative unit, without an organization; the administrator everything.
  await em.execute(`update "user" set str_type = 'AUTHORITY', county_id = ? where id = ?`, [za[0], authority.user.id]);
  await em.execute('delete from membership where user_id = ?', [authority.user.id]);
  await em.execute('update "user" set bl_admin = true where id = ?', [admin.user.id]);
  const generateMs = performance.now() - started;
  const analyzeAt = performance.now();
  // Vacuumed as well as analyzed, as autovacuum keeps a live database (machines here may run with it
  // off): statistics for the planner and a visibility map, so an index-only scan reads no table page.
  for (const table of ['organization', '"user"', 'membership', 'county', 'establishment', 'control_unit', 'tags_box', 'tag', 'animal']) await em.execute(`vacuum analyze ${table}`);
  const analyzeMs = performance.now() - analyzeAt;

  const [counts] = await em.execute<{ establishments: number; units: number; animals: number; za_establishments: number; za_units: number; all_establishments: number; all_units: number; all_animals: number; units_in_page: number }[]>(
    `with page as (select a.last_control_unit_id from animal a where a.holder_organization_id = ? order by a.ts_created_at desc, a.id desc limit ${PAGE})
     select (select count(*)::int from establishment where organization_id = ?) as establishments,
            (select count(*)::int from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?) as units,
            (select count(*)::int from animal a where a.holder_organization_id = ?) as animals,
            (select count(*)::int from establishment e join county c on c.id = e.county_id where c.str_federative_unit = 'ZA') as za_establishments,
            (select count(*)::int from control_unit cu join establishment e on e.id = cu.establishment_id join county c on c.id = e.county_id where c.str_federative_unit = 'ZA') as za_units,
            (select count(*)::int from establishment) as all_establishments,
            (select count(*)::int from control_unit) as all_units,
            (select count(*)::int from animal) as all_animals,
            (select count(distinct p.last_control_unit_id)::int from page p) as units_in_page`,
    [big.org.id, big.org.id, big.org.id, big.org.id],
  );
  const c = counts!;
  console.log(
    `  data: ${organizations.length} organizations, ${c.all_establishments} establishments, ${c.all_units} control units, ${COUNTIES} counties, ${members.length} responsible members, ` +
      `${c.all_animals} animals on applied tags (${animals} made), generated in ${(generateMs / 1000).toFixed(1)} s (vacuum analyze afterwards ${analyzeMs.toFixed(0)} ms)`,
  );
  console.log(`  the owner's organization: ${c.establishments} establishments, ${c.units} control units, ${c.animals} animals; its newest ${PAGE} animals are at ${c.units_in_page} units`);
  console.log(`  the authority's federative unit ZA: ${c.za_establishments} establishments, ${c.za_units} control units`);
  const [animal] = await em.execute<{ id: string }[]>(`select a.id from animal a where a.holder_organization_id = ? order by a.ts_created_at desc, a.id desc limit 1 offset 1000`, [big.org.id]);
  return {
    callers: {
      owner: { email: big.user.str_email, organizationId: big.org.id },
      authority: { email: authority.user.str_email, organizationId: null },
      admin: { email: admin.user.str_email, organizationId: admin.org.id },
    },
    animalId: animal!.id,
  };
}

// ---------------------------------------------------------------------------------------------
// What PostGraphile needs beyond the tables.

/**
 * An applied tag is where its animal is (Migration0032): PostGraphile reads its place through this
 * computed column (Tag.place), the service through the view tag_with_place.
 */
const PEERS_SQL = `
  do $$ begin
    if not exists (select 1 from pg_roles where rolname = '${ROLE}') then create role ${ROLE} nologin; end if;
  end $$;
  create function public.tag_place(t public.tag) returns public.control_unit language sql stable as $f$
    select cu.* from control_unit cu where cu.id = coalesce(t.last_control_unit_id, (select a.last_control_unit_id from animal a where a.id = t.animal_id))
  $f$;
`;

async function setUpPeers(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(PEERS_SQL);
  } finally {
    await client.end();
  }
}

/** What a peer checks of the access token: the service's own check (signature, issuer, audience, expiry). */
function verified(tokens: Tokens, authorization: string | undefined): boolean {
  try {
    tokens.verifyAccess((authorization ?? '').replace(/^Bearer\s+/i, ''));
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Counting the peers' statements: every query their pg pool's clients send.

interface Counter {
  all: number;
  /** Transaction and settings statements: begin, set_config, commit (PostGraphile's per-request envelope). */
  envelope: number;
}

const ENVELOPE = /^\s*(begin|commit|rollback|savepoint|release)\b|set_config\(/i;

function countingPool(databaseUrl: string, counter: Counter): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_MAX, idleTimeoutMillis: POOL_IDLE_MS });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
      counter.all++;
      if (ENVELOPE.test(text)) counter.envelope++;
      return query(...args);
    };
  });
  return pool;
}

interface Peer {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

// ---------------------------------------------------------------------------------------------
// PostGraphile 5, amber preset, its own node:http server.

async function startPostGraphile(databaseUrl: string, tokens: Tokens, counter: Counter): Promise<Peer> {
  const pool = countingPool(databaseUrl, counter);
  const preset: GraphileConfig.Preset = {
    extends: [PostGraphileAmberPreset],
    plugins: [
      jsonPgSmartTags({
        version: 1,
        config: {
          class: {
            animal: { attribute: { str_species: { tags: { behavior: '+filterBy' } }, str_gender: { tags: { behavior: '+filterBy' } } } },
            user: { attribute: { password_hash: { tags: { behavior: '-*' } } } },
          },
        },
      }),
    ],
    pgServices: [
      makePgService({
        pool,
        schemas: ['public'],
        // No tenancy (the administrator's view); a request without a valid token is refused by a role that may read nothing.
        pgSettings: (requestContext) => (verified(tokens, requestContext.node?.req.headers.authorization) ? {} : { role: ROLE }),
      }),
    ],
    grafserv: { graphqlPath: '/graphql', watch: false },
    grafast: { explain: false },
  };
  const pgl = postgraphile(preset);
  await pgl.getSchema();
  const server = createServer();
  await pgl.createServ(grafserv).addTo(server);
  const url = await listen(server);
  return {
    url,
    close: async () => {
      await closeServer(server);
      await pgl.release();
      await pool.end().catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Raw node:http + pg: one hand-written statement per request, JSON built by PostgreSQL.

const RAW_ANIMAL_TREE = `json_build_object('id', a.id, 'str_species', a.str_species, 'current_tag', json_build_object('id', t.id, 'str_code', t.str_code,
    'last_control_unit', case when cu.id is null then null else json_build_object('id', cu.id, 'str_name', cu.str_name,
      'establishment', case when e.id is null then null else json_build_object('id', e.id, 'str_name', e.str_name,
        'county', case when c.id is null then null else json_build_object('id', c.id, 'str_name', c.str_name) end) end) end))`;
const RAW_ANIMAL_TREE_JOINS = `join tag t on t.id = a.current_tag_id left join control_unit cu on cu.id = coalesce(t.last_control_unit_id, a.last_control_unit_id)
    left join establishment e on e.id = cu.establishment_id left join county c on c.id = e.county_id`;

const RAW_GEO = (alias: string) =>
  `case when ${alias}.num_longitude is null then null else json_build_object('type', 'Point', 'coordinates', json_build_array(${alias}.num_longitude, ${alias}.num_latitude)) end`;

const RAW_META = (total: string, size: string) =>
  `json_build_object('int_current_page', 1, 'int_max_results', ${size}, 'int_total_results', ${total}, 'int_total_pages', ceil(${total} / ${size}::numeric)::int)`;

/** Control Unit Data Without Establishment; the responsible user (a User, with its organizations) left out when there is none. */
const RAW_UNIT = `jsonb_build_object('id', cu.id, 'establishment_id', cu.establishment_id, 'str_code', cu.str_code, 'str_name', cu.str_name, 'str_type', cu.str_type,
      'str_predominant_phase', cu.str_predominant_phase, 'str_predominant_system', cu.str_predominant_system, 'ts_created_at', cu.ts_created_at, 'ts_updated_at', cu.ts_updated_at)
    || case when u.id is null then '{}'::jsonb else jsonb_build_object('responsible_user', jsonb_build_object('id', u.id, 'str_name', u.str_name, 'str_email', u.str_email,
      'str_document', u.str_document, 'str_type', u.str_type, 'bl_admin', u.bl_admin, 'bl_verified', u.bl_verified, 'str_phone', u.str_phone, 'county_id', u.county_id,
      'organization_id', u.organization_id, 'ts_terms_accepted_at', u.ts_terms_accepted_at,
      'organizations', coalesce((select jsonb_agg(jsonb_build_object('id', o.id, 'str_name', o.str_name, 'str_role', m.str_role) order by o.str_name, o.id)
                                   from membership m join organization o on o.id = m.organization_id where m.user_id = u.id), '[]'::jsonb),
      'ts_created_at', u.ts_created_at, 'ts_updated_at', u.ts_updated_at)) end`;

const RAW_ESTABLISHMENT = `json_build_object('id', e.id, 'organization_id', e.organization_id, 'bl_move_with_tag_reading', e.bl_move_with_tag_reading, 'str_name', e.str_name,
      'str_type', e.str_type, 'str_status', e.str_status, 'ts_created_at', e.ts_created_at, 'ts_updated_at', e.ts_updated_at,
      'control_units', coalesce((select json_agg(${RAW_UNIT} order by cu.str_code, cu.id) from control_unit cu left join "user" u on u.id = cu.responsible_user_id
                                  where cu.establishment_id = e.id), '[]'::json),
      'county_id', e.county_id, 'responsible_user_id', e.responsible_user_id, 'dec_area', e.dec_area, 'dec_exploration_area', e.dec_exploration_area,
      'geo_location', ${RAW_GEO('e')}, 'lst_invite_movimentation_types', e.lst_invite_movimentation_types, 'str_address', e.str_address, 'str_car', e.str_car,
      'str_code', e.str_code, 'str_company_code', e.str_company_code, 'str_county_federative_unit', c.str_federative_unit, 'str_county_ibge_uf_code', left(c.str_ibge_code, 2),
      'str_county_name', c.str_name, 'str_document', e.str_document, 'str_email', e.str_email, 'str_neighborhood', e.str_neighborhood,
      'str_responsible_document', ru.str_document, 'str_responsible_user_name', ru.str_name, 'str_socioenvironmental_status', e.str_socioenvironmental_status,
      'str_zip_code', e.str_zip_code)`;

const RAW_ANIMAL_PARTIAL = `json_build_object('current_tag_id', a.current_tag_id, 'str_current_tag_code', t.str_code, 'str_establishment_name', e.str_name,
      'str_last_control_unit_code', cu.str_code, 'id', a.id, 'geo_identification', ${RAW_GEO('a')},
      'int_age_months_at_identification', a.int_age_months_at_identification, 'int_weight_kilos_at_identification', a.int_weight_kilos_at_identification,
      'str_description', a.str_description, 'str_extra_tag', a.str_extra_tag, 'str_gender', a.str_gender, 'str_name', a.str_name, 'str_rod_code', a.str_rod_code,
      'str_socioenvironmental_status', a.str_socioenvironmental_status, 'str_species', a.str_species, 'str_status', a.str_status, 'ts_born_date', a.ts_born_date,
      'ts_identified_at', a.ts_identified_at, 'ts_created_at', a.ts_created_at, 'ts_updated_at', a.ts_updated_at)`;

const RAW_SEARCH = (alias: string) => `($1::text is null or ${alias}.str_species = $1::text) and ($2::text is null or ${alias}.str_gender = $2::text)`;

/** No scope: the administrator's view. */
const RAW_SQL = {
  /** $1 page size. */
  animalsPage: `select json_build_object('data', coalesce(json_agg(${RAW_ANIMAL_TREE} order by a.ts_created_at desc, a.id desc), '[]'::json))::text as body
      from (select a.* from animal a order by a.ts_created_at desc, a.id desc limit $1::int) a
      ${RAW_ANIMAL_TREE_JOINS}`,
  /** $1 the animal's id. */
  animal: `select ${RAW_ANIMAL_TREE}::text as body from animal a ${RAW_ANIMAL_TREE_JOINS} where a.id = $1`,
  /** $1 page size. */
  establishments: `select json_build_object(
      'data', coalesce((select json_agg(${RAW_ESTABLISHMENT} order by e.ts_created_at desc, e.id desc)
                          from (select * from establishment order by ts_created_at desc, id desc limit $1::int) e
                          left join county c on c.id = e.county_id left join "user" ru on ru.id = e.responsible_user_id), '[]'::json),
      'meta', (select ${RAW_META('n', '$1::int')} from (select count(*)::int as n from establishment) total))::text as body`,
  /** $1 str_species or null, $2 str_gender or null, $3 page size. */
  animalsSearch: `select json_build_object(
      'data', coalesce((select json_agg(${RAW_ANIMAL_PARTIAL} order by a.ts_created_at desc, a.id desc)
                          from (select a.* from animal a where ${RAW_SEARCH('a')} order by a.ts_created_at desc, a.id desc limit $3::int) a
                          left join tag t on t.id = a.current_tag_id left join control_unit cu on cu.id = a.last_control_unit_id
                          left join establishment e on e.id = cu.establishment_id), '[]'::json),
      'meta', (select ${RAW_META('n', '$3::int')} from (select count(*)::int as n from animal a where ${RAW_SEARCH('a')}) total))::text as body`,
};

const send = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function handleRaw(pool: pg.Pool, tokens: Tokens, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!verified(tokens, req.headers.authorization)) return send(res, 401, '{"error":"UNAUTHENTICATED"}');
  const url = new URL(req.url ?? '/', 'http://raw');
  const size = Number(url.searchParams.get('int_max_results') ?? PAGE);
  let name: keyof typeof RAW_SQL;
  let params: unknown[];
  const animal = /^\/q\/animals\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'GET' && url.pathname === '/q/animals') [name, params] = ['animalsPage', [size]];
  else if (req.method === 'GET' && animal && UUID.test(animal[1]!)) [name, params] = ['animal', [animal[1]]];
  else if (req.method === 'GET' && url.pathname === '/api/establishments') [name, params] = ['establishments', [size]];
  else if (req.method === 'POST' && url.pathname === '/api/animals/search') {
    const filter = JSON.parse((await readBody(req)) || '{}') as { str_species?: string; str_gender?: string };
    [name, params] = ['animalsSearch', [filter.str_species ?? null, filter.str_gender ?? null, size]];
  } else return send(res, 404, '{"error":"NOT_FOUND"}');
  // A named statement, as the service's readers and PostGraphile use: parsed and planned once per connection.
  const { rows } = await pool.query<{ body: string | null }>({ name: `raw_${name}`, text: RAW_SQL[name], values: params });
  if (!rows[0]?.body) return send(res, 404, '{"error":"NOT_FOUND"}');
  send(res, 200, rows[0].body);
}

async function startRaw(databaseUrl: string, tokens: Tokens, counter: Counter): Promise<Peer> {
  const pool = countingPool(databaseUrl, counter);
  const server = createServer((req, res) => {
    handleRaw(pool, tokens, req, res).catch((err: unknown) => send(res, 500, JSON.stringify({ error: String(err) })));
  });
  const url = await listen(server);
  return {
    url,
    close: async () => {
      await closeServer(server);
      await pool.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The four requests in their three forms.

type ServerName = 'service' | 'PostGraphile' | 'raw';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are walked by the shape functions, which check what they read
type Json = any;

/** What the check compares: rows (the list's or 1), the total where the answer has one, and ids in answer order. */
export interface Shape {
  rows: number;
  total: number | null;
  ids: string[];
  /** What else to print, e.g. the control units an establishments page holds. */
  detail?: string;
}

export interface Form {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  shape(json: Json): Shape;
}

export interface Bench {
  title: string;
  forms: Record<ServerName, Form>;
}

interface TreeKeys {
  id: string;
  tag: string;
  unit: string;
  establishment: string;
  county: string;
}
const SERVICE_TREE: TreeKeys = { id: 'id', tag: 'current_tag', unit: 'last_control_unit', establishment: 'establishment', county: 'county' };
const PGL_TREE: TreeKeys = { id: 'rowId', tag: 'tagByCurrentTagId', unit: 'place', establishment: 'establishmentByEstablishmentId', county: 'countyByCountyId' };

/** An animal's id and those of its tag, unit, establishment and county ('-' where absent). */
function treeIds(a: Json, k: TreeKeys): string[] {
  const tag = a[k.tag];
  const unit = tag?.[k.unit];
  const establishment = unit?.[k.establishment];
  return [a[k.id], tag?.[k.id], unit?.[k.id], establishment?.[k.id], establishment?.[k.county]?.[k.id]].map((id) => id ?? '-');
}

const gql = (query: string, variables?: Record<string, unknown>) => JSON.stringify(variables ? { query, variables } : { query });

function list(data: Json, label: string): Json[] {
  if (!Array.isArray(data)) throw new Error(`${label}: no list in the answer`);
  return data;
}

export function benches(animalId: string): Bench[] {
  const pglTree = 'rowId strSpecies tagByCurrentTagId { rowId strCode place { rowId strName establishmentByEstablishmentId { rowId strName countyByCountyId { rowId strName } } } }';
  const pglOrder = 'orderBy: [TS_CREATED_AT_DESC, ROW_ID_DESC]';
  const establishmentIds = (e: Json, units: Json[], k: { id: string; user: string }) => [e[k.id], ...units.flatMap((u: Json) => [u[k.id], u[k.user]?.[k.id] ?? '-'])];
  const unitCount = (units: number) => `${units} control units`;
  const search = { str_species: 'BOVINE', str_gender: 'FEMALE' };
  // The service's answers and the raw peer's are the same JSON: one reading serves both.
  const establishmentsPage = (j: Json): Shape => {
    const rows = list(j.data, 'establishments');
    const units = rows.flatMap((e) => list(e.control_units, 'control_units'));
    return { rows: rows.length, total: j.meta?.int_total_results ?? null, ids: rows.flatMap((e) => establishmentIds(e, e.control_units, { id: 'id', user: 'responsible_user' })), detail: unitCount(units.length) };
  };
  const animalsSearchPage = (j: Json): Shape => {
    const rows = list(j.data, 'animals');
    return { rows: rows.length, total: j.meta?.int_total_results ?? null, ids: rows.flatMap((a) => [a.id, a.str_current_tag_code, a.str_last_control_unit_code, a.str_establishment_name]) };
  };
  return [
    {
      title: `a. GraphQL animals(page: {int_max_results: ${PAGE}}) { data { ${SERVICE_SELECTION} } }`,
      forms: {
        service: {
          method: 'POST',
          path: '/graphql',
          body: gql(`{ animals(page: {int_max_results: ${PAGE}}) { data { ${SERVICE_SELECTION} } } }`),
          shape: (j) => {
            const rows = list(j.data?.animals?.data, 'animals');
            return { rows: rows.length, total: null, ids: rows.flatMap((a) => treeIds(a, SERVICE_TREE)) };
          },
        },
        PostGraphile: {
          method: 'POST',
          path: '/graphql',
          body: gql(`{ allAnimals(first: ${PAGE}, ${pglOrder}) { nodes { ${pglTree} } } }`),
          shape: (j) => {
            const rows = list(j.data?.allAnimals?.nodes, 'allAnimals');
            return { rows: rows.length, total: null, ids: rows.flatMap((a) => treeIds(a, PGL_TREE)) };
          },
        },
        raw: {
          method: 'GET',
          path: `/q/animals?int_max_results=${PAGE}`,
          shape: (j) => {
            const rows = list(j.data, 'animals');
            return { rows: rows.length, total: null, ids: rows.flatMap((a) => treeIds(a, SERVICE_TREE)) };
          },
        },
      },
    },
    {
      title: 'b. GraphQL animal(id: …) with the same nesting',
      forms: {
        service: {
          method: 'POST',
          path: '/graphql',
          body: gql(`query Animal($id: UUID!) { animal(id: $id) { ${SERVICE_SELECTION} } }`, { id: animalId }),
          shape: (j) => (j.data?.animal ? { rows: 1, total: null, ids: treeIds(j.data.animal, SERVICE_TREE) } : { rows: 0, total: null, ids: [] }),
        },
        PostGraphile: {
          method: 'POST',
          path: '/graphql',
          body: gql(`query Animal($id: UUID!) { animalByRowId(rowId: $id) { ${pglTree} } }`, { id: animalId }),
          shape: (j) => (j.data?.animalByRowId ? { rows: 1, total: null, ids: treeIds(j.data.animalByRowId, PGL_TREE) } : { rows: 0, total: null, ids: [] }),
        },
        raw: { method: 'GET', path: `/q/animals/${animalId}`, shape: (j) => ({ rows: j?.id ? 1 : 0, total: null, ids: j?.id ? treeIds(j, SERVICE_TREE) : [] }) },
      },
    },
    {
      title: `c. REST GET /api/establishments (Establishment Partial Data, a page of ${PAGE})`,
      forms: {
        service: {
          method: 'GET',
          path: '/api/establishments',
          shape: establishmentsPage,
        },
        PostGraphile: {
          method: 'POST',
          path: '/graphql',
          body: gql(`{ allEstablishments(first: ${PAGE}, ${pglOrder}) { totalCount nodes {
              rowId organizationId blMoveWithTagReading strName strType strStatus tsCreatedAt tsUpdatedAt countyId responsibleUserId decArea decExplorationArea
              numLongitude numLatitude lstInviteMovimentationTypes strAddress strCar strCode strCompanyCode strDocument strEmail strNeighborhood
              strSocioenvironmentalStatus strZipCode
              countyByCountyId { strName strFederativeUnit strIbgeCode }
              userByResponsibleUserId { strName strDocument }
              controlUnitsByEstablishmentId(orderBy: [STR_CODE_ASC, ROW_ID_ASC]) { nodes {
                rowId establishmentId strCode strName strType strPredominantPhase strPredominantSystem tsCreatedAt tsUpdatedAt
                userByResponsibleUserId { rowId strName strEmail strDocument strType blAdmin blVerified strPhone countyId organizationId tsTermsAcceptedAt tsCreatedAt tsUpdatedAt
                  membershipsByUserId { nodes { strRole organizationByOrganizationId { rowId strName } } } } } } } } }`),
          shape: (j) => {
            const page = j.data?.allEstablishments;
            const rows = list(page?.nodes, 'allEstablishments');
            const unitsOf = (e: Json) => list(e.controlUnitsByEstablishmentId?.nodes, 'controlUnitsByEstablishmentId');
            return {
              rows: rows.length,
              total: page?.totalCount ?? null,
              ids: rows.flatMap((e) => establishmentIds(e, unitsOf(e), { id: 'rowId', user: 'userByResponsibleUserId' })),
              detail: unitCount(rows.reduce((n, e) => n + unitsOf(e).length, 0)),
            };
          },
        },
        raw: {
          method: 'GET',
          path: '/api/establishments',
          shape: establishmentsPage,
        },
      },
    },
    {
      title: `d. REST POST /api/animals/search ${JSON.stringify(search)} (Animal Partial Data, a page of ${PAGE})`,
      forms: {
        service: {
          method: 'POST',
          path: '/api/animals/search',
          body: JSON.stringify(search),
          shape: animalsSearchPage,
        },
        PostGraphile: {
          method: 'POST',
          path: '/graphql',
          body: gql(
            `query Search($species: String!, $gender: String!) { allAnimals(first: ${PAGE}, ${pglOrder}, condition: {strSpecies: $species, strGender: $gender}) { totalCount nodes {
              rowId currentTagId numLongitude numLatitude intAgeMonthsAtIdentification intWeightKilosAtIdentification strDescription strExtraTag strGender strName
              strRodCode strSocioenvironmentalStatus strSpecies strStatus tsBornDate tsIdentifiedAt tsCreatedAt tsUpdatedAt
              tagByCurrentTagId { strCode } controlUnitByLastControlUnitId { strCode establishmentByEstablishmentId { strName } } } } }`,
            { species: search.str_species, gender: search.str_gender },
          ),
          shape: (j) => {
            const page = j.data?.allAnimals;
            const rows = list(page?.nodes, 'allAnimals');
            return {
              rows: rows.length,
              total: page?.totalCount ?? null,
              ids: rows.flatMap((a) => [a.rowId, a.tagByCurrentTagId?.strCode, a.controlUnitByLastControlUnitId?.strCode, a.controlUnitByLastControlUnitId?.establishmentByEstablishmentId?.strName]),
            };
          },
        },
        raw: {
          method: 'POST',
          path: '/api/animals/search',
          body: JSON.stringify(search),
          shape: animalsSearchPage,
        },
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Check, count, measure.

/** The service by caller (`replica`: the administrator at a service reading from a replica), and the peers. */
type TargetName = CallerName | 'replica' | 'uncached' | 'PostGraphile' | 'raw';

interface Target {
  name: TargetName;
  /** Whose forms of the requests it answers. */
  forms: ServerName;
  url: string;
  token: string;
  /** Its answers must equal the administrator's (the peers apply no tenancy). */
  sameAsAdmin: boolean;
  /** Statements of the last request: the service's header, or the peer's counter. */
  counter: Counter | null;
}

async function call(target: Target, form: Form): Promise<{ status: number; json: Json; sql: string | null }> {
  const send = () => fetch(target.url + form.path, { method: form.method, headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' }, body: form.body });
  // A kept-alive connection the server closed after its 5 s idle timeout (a slow PostGraphile start
  // on a busy machine) resets when reused: once more, on a new connection.
  const res = await send().catch(send);
  const text = await res.text();
  let json: Json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = { unparsable: text.slice(0, 300) };
  }
  return { status: res.status, json, sql: res.headers.get('x-sql-statements') };
}

const describe = (s: Shape) => `${s.rows} row${s.rows === 1 ? '' : 's'}${s.total === null ? '' : ` of ${s.total}`}${s.detail ? ` (${s.detail})` : ''}`;

/** Every target answers every request 200 with rows; the administrator's peers the same rows, total and ids; else MISMATCH and an error (exit 1). */
async function check(targets: Target[], list: Bench[]): Promise<void> {
  const problems: string[] = [];
  console.log("\n  check (one request each): rows per caller and server, then whether the peers' ids match the administrator's");
  for (const bench of list) {
    const shapes = new Map<TargetName, Shape>();
    for (const target of targets) {
      const form = bench.forms[target.forms];
      const res = await call(target, form);
      if (res.status !== 200 || res.json?.errors) {
        problems.push(`${bench.title} — ${target.name}: ${res.status} ${JSON.stringify(res.json).slice(0, 400)}`);
        continue;
      }
      try {
        const shape = form.shape(res.json);
        shapes.set(target.name, shape);
        if (shape.rows === 0) problems.push(`${bench.title} — ${target.name}: no rows: nothing to measure`);
      } catch (err) {
        problems.push(`${bench.title} — ${target.name}: ${(err as Error).message}: ${JSON.stringify(res.json).slice(0, 400)}`);
      }
    }
    const mine = shapes.get('admin');
    const line = targets.map((t) => {
      const s = shapes.get(t.name);
      return `${t.name} ${s ? describe(s) : 'FAILED'}`;
    });
    let same = true;
    for (const t of targets) {
      const s = shapes.get(t.name);
      if (!mine || !s || !t.sameAsAdmin) continue;
      if (s.rows !== mine.rows || s.total !== mine.total || s.detail !== mine.detail) {
        same = false;
        problems.push(`${bench.title} — ${t.name}: ${describe(s)} where the administrator has ${describe(mine)}`);
      } else if (JSON.stringify(s.ids) !== JSON.stringify(mine.ids)) {
        same = false;
        const at = s.ids.findIndex((id, i) => id !== mine.ids[i]);
        problems.push(`${bench.title} — ${t.name}: same counts, other records: first difference at ${at}: ${s.ids[at]} where the administrator has ${mine.ids[at]}`);
      }
    }
    console.log(`    ${bench.title.slice(0, 2)} ${line.join(', ')}: ${same && shapes.size === targets.length ? 'same ids' : 'MISMATCH'}`);
  }
  if (problems.length) {
    for (const p of problems) console.error(`  MISMATCH ${p}`);
    throw new Error(`MISMATCH: ${problems.length} problem(s) above; not measuring`);
  }
}

interface Statements {
  all: number;
  envelope: number;
}

/** One more request each, sequentially: the statements it ran. */
async function countStatements(targets: Target[], list: Bench[]): Promise<Map<string, Statements>> {
  const counted = new Map<string, Statements>();
  for (const [i, bench] of list.entries()) {
    for (const target of targets) {
      const before = target.counter ? { ...target.counter } : null;
      const res = await call(target, bench.forms[target.forms]);
      if (res.status !== 200) throw new Error(`${bench.title} — ${target.name}: ${res.status} while counting statements`);
      const all = target.counter && before ? target.counter.all - before.all : Number(res.sql);
      const envelope = target.counter && before ? target.counter.envelope - before.envelope : 0;
      counted.set(`${i}/${target.name}`, { all, envelope });
    }
  }
  return counted;
}

interface Figures {
  requests: number;
  seconds: number;
  rps: number[];
  p50: number[];
  p99: number[];
  /** The machine's 1-minute load average after each round's run. */
  load: number[];
  non2xx: number;
  errors: number;
}

async function load(target: Target, form: Form, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url + form.path,
    method: form.method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: form.body,
    connections: CONNECTIONS,
    duration,
    // The load generator in a worker thread: the servers' event loop is not shared with it.
    workers: 1,
  });
}

export const medianOf = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

/** The machine's load, printed around the measurement: other processes on it skew every figure. */
export function machineLoad(when: string): void {
  const [one, five] = loadavg();
  const cores = availableParallelism();
  const busy = one! > cores ? ` (above the ${cores} cores: other processes compete with the servers and PostgreSQL; figures are low and noisy, compare ratios)` : '';
  console.log(`  machine ${when}: ${cores} cores, load average ${one!.toFixed(1)} (1 min), ${five!.toFixed(1)} (5 min)${busy}`);
}

async function measure(targets: Target[], list: Bench[]): Promise<Map<string, Figures>> {
  machineLoad('before measuring');
  console.log(`\n  warm-up: ${WARM_UP} s per request and target; then ${ROUNDS} rounds × ${list.length} requests × ${targets.map((t) => t.name).join(', ')} in turn and back (each round starting one later), ${DURATION} s each way after ${LEAD_IN} s not counted, ${CONNECTIONS} connections`);
  for (const bench of list) for (const target of targets) await load(target, bench.forms[target.forms], WARM_UP);
  const figures = new Map<string, Figures>();
  for (let round = 1; round <= ROUNDS; round++) {
    const started = performance.now();
    // Each round starts at the next target: none always runs first after another request's peers.
    const order = targets.map((_, k) => targets[(k + round - 1) % targets.length]!);
    // There and back (A B C C B A): a load that rises or falls through the round weighs on every target alike.
    const sequence = [...order, ...[...order].reverse()];
    for (const [i, bench] of list.entries()) {
      const inRound = new Map<TargetName, { requests: number; seconds: number; p50: number[]; p99: number[]; load: number[] }>();
      for (const target of sequence) {
        if (LEAD_IN > 0) await load(target, bench.forms[target.forms], LEAD_IN);
        const r = await load(target, bench.forms[target.forms], DURATION);
        const f = figures.get(`${i}/${target.name}`) ?? { requests: 0, seconds: 0, rps: [], p50: [], p99: [], load: [], non2xx: 0, errors: 0 };
        f.requests += r.requests.total;
        f.seconds += r.duration;
        f.non2xx += r.non2xx;
        f.errors += r.errors + r.timeouts;
        figures.set(`${i}/${target.name}`, f);
        const part = inRound.get(target.name) ?? { requests: 0, seconds: 0, p50: [], p99: [], load: [] };
        part.requests += r.requests.total;
        part.seconds += r.duration;
        part.p50.push(r.latency.p50);
        part.p99.push(r.latency.p99);
        part.load.push(loadavg()[0]!);
        inRound.set(target.name, part);
      }
      // A round's figure for a target: both of its runs together.
      for (const [name, part] of inRound) {
        const f = figures.get(`${i}/${name}`)!;
        f.rps.push(part.requests / part.seconds);
        f.p50.push(meanOf(part.p50));
        f.p99.push(Math.max(...part.p99));
        f.load.push(meanOf(part.load));
      }
    }
    console.log(`    round ${round} of ${ROUNDS} done (${((performance.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()[0]!.toFixed(1)})`);
  }
  machineLoad('after measuring');
  return figures;
}

/** Issue 23's targets: [numerator, denominator, at least, label]. The point read's raw target is lower (0.35). */
const TARGETS: [TargetName, TargetName, (request: number) => number][] = [
  ['owner', 'admin', () => 0.9],
  ['authority', 'admin', () => 0.9],
  ['admin', 'PostGraphile', () => 1.0],
  ['admin', 'raw', (request) => (request === 1 ? 0.35 : 0.5)],
  // Not a target of the issue: what the actor cache gains (BENCH_UNCACHED=1).
  ['admin', 'uncached', () => 1.0],
];

/** Each round's req/s ratio of two targets, with the mean of the load after each of their runs. */
const roundRatios = (a: Figures, b: Figures): { ratio: number; load: number }[] =>
  a.rps.map((r, k) => ({ ratio: r / b.rps[k]!, load: (a.load[k]! + b.load[k]!) / 2 }));

function report(targets: Target[], list: Bench[], statements: Map<string, Statements>, figures: Map<string, Figures>): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  const num = (s: string, n: number) => s.padStart(n);
  const rps = (i: number, name: TargetName) => {
    const f = figures.get(`${i}/${name}`)!;
    return f.requests / f.seconds;
  };
  console.log(`\n  results: req/s over all rounds [each round], p50/p99 ms the median of the rounds', SQL statements per request, the 1-minute load average during its rounds`);
  for (const [i, bench] of list.entries()) {
    console.log(`\n  ${bench.title}`);
    console.log(`    ${pad('target', 13)}${num('req/s', 9)}  ${pad('[rounds]', 24)}${num('p50', 7)}${num('p99', 7)}  ${pad('load', 6)}SQL/req`);
    for (const target of targets) {
      const f = figures.get(`${i}/${target.name}`)!;
      const s = statements.get(`${i}/${target.name}`)!;
      const sql = s.envelope ? `${s.all} (${s.all - s.envelope} + ${s.envelope} begin/set_config/commit)` : String(s.all);
      const failures = f.non2xx || f.errors ? `  non-2xx ${f.non2xx}, errors ${f.errors}` : '';
      console.log(
        `    ${pad(target.name, 13)}${num(rps(i, target.name).toFixed(1), 9)}  ${pad(`[${f.rps.map((r) => r.toFixed(0)).join(', ')}]`, 24)}` +
          `${num(medianOf(f.p50).toFixed(0), 7)}${num(medianOf(f.p99).toFixed(0), 7)}  ${pad(meanOf(f.load).toFixed(1), 6)}${sql}${failures}`,
      );
    }
    const present = new Set(targets.map((t) => t.name));
    for (const [a, b, at] of TARGETS.filter(([x, y]) => present.has(x) && present.has(y))) {
      const r = roundRatios(figures.get(`${i}/${a}`)!, figures.get(`${i}/${b}`)!);
      const median = medianOf(r.map((x) => x.ratio));
      const rounds = r.map((x) => `×${x.ratio.toFixed(2)} (load ${x.load.toFixed(1)})`).join(', ');
      console.log(`    ${pad(`${a}/${b}`, 19)} median ×${median.toFixed(2)} (target ≥ ${at(i).toFixed(2)}${median >= at(i) ? ', met' : ', NOT met'}); rounds ${rounds}`);
    }
  }
}

async function run(service: Service, databaseUrl: string): Promise<void> {
  const data = await generate(service);
  await setUpPeers(databaseUrl);
  const config = loadConfig({ ...BENCH_ENV });
  const tokens = new Tokens({ secret: config.JWT_SECRET, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const serviceUrl = await serve(service);
  const tokenOf = async (caller: CallerName) => {
    const { email, organizationId } = data.callers[caller];
    if (organizationId) return signIn(serviceUrl, email, PASSWORD, organizationId);
    return (await postJson<{ data: { str_access_token: string } }>(serviceUrl, '/api/login', { str_email: email, str_password: PASSWORD })).json.data.str_access_token;
  };
  const token = { owner: await tokenOf('owner'), authority: await tokenOf('authority'), admin: await tokenOf('admin') };

  const pglCounter: Counter = { all: 0, envelope: 0 };
  const rawCounter: Counter = { all: 0, envelope: 0 };
  const startedAt = performance.now();
  const postgraphileServer = await startPostGraphile(databaseUrl, tokens, pglCounter);
  console.log(`  PostGraphile ready (schema built from the database) in ${(performance.now() - startedAt).toFixed(0)} ms`);
  const raw = await startRaw(databaseUrl, tokens, rawCounter);
  const onReplica = await replicaService(databaseUrl);
  const uncached = process.env.BENCH_UNCACHED === '1' ? await createService(loadConfig({ ...BENCH_ENV, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl, ACTOR_CACHE: 'false' })) : null;
  const uncachedUrl = uncached ? await serve(uncached) : null;
  try {
    const service = (name: CallerName): Target => ({ name, forms: 'service', url: serviceUrl, token: token[name], sameAsAdmin: false, counter: null });
    const targets: Target[] = [
      service('owner'),
      service('authority'),
      service('admin'),
      ...(onReplica ? [{ name: 'replica' as const, forms: 'service' as const, url: onReplica.url, token: token.admin, sameAsAdmin: true, counter: null }] : []),
      ...(uncachedUrl ? [{ name: 'uncached' as const, forms: 'service' as const, url: uncachedUrl, token: token.admin, sameAsAdmin: true, counter: null }] : []),
      { name: 'PostGraphile', forms: 'PostGraphile', url: postgraphileServer.url, token: token.admin, sameAsAdmin: true, counter: pglCounter },
      { name: 'raw', forms: 'raw', url: raw.url, token: token.admin, sameAsAdmin: true, counter: rawCounter },
    ];
    await onReplica?.service.replicas!.settle();
    const list = benches(data.animalId);
    await check(targets, list);
    const statements = await countStatements(targets, list);
    const figures = await measure(targets, list);
    report(targets, list, statements, figures);
  } finally {
    await postgraphileServer.close();
    await raw.close();
    await onReplica?.service.close();
    await uncached?.close();
  }
}

/**
 * BENCH_REPLICA_URL (a streaming replica of DATABASE_URL's server, e.g. `.ci/replica`'s): a second
 * service on the scratch database whose readers go to the replica's copy of it (issue 25's
 * bench:scale, read part). On one machine the replica shares the CPU with the primary: the
 * figure shows what routing costs, not what a replica on its own machine adds.
 */
async function replicaService(databaseUrl: string): Promise<{ service: Service; url: string } | null> {
  const base = process.env.BENCH_REPLICA_URL;
  if (!base) return null;
  const replica = new URL(base);
  replica.pathname = new URL(databaseUrl).pathname;
  const service = await createService(loadConfig({ ...BENCH_ENV, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl, DATABASE_REPLICA_URLS: replica.toString() }));
  if (!service.replicas?.status()[0]?.up) throw new Error(`BENCH_REPLICA_URL: ${replica.toString()} is not a replica that answers`);
  return { service, url: await serve(service) };
}

async function main(): Promise<void> {
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) throw new Error('bench:peers runs on PostgreSQL only: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
  const started = performance.now();
  try {
    await onPostgres(pgUrl, DATABASE, (where) => `${where}: the service (owner, authority, administrator) vs PostGraphile 5 vs raw node:http + pg, same data`, run);
  } finally {
    // The role belongs to the cluster, not to the scratch database: dropped once that database is gone.
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`drop role if exists ${ROLE}`).catch((err: unknown) => console.error(`  could not drop role ${ROLE}: ${String(err)}`));
    await admin.end();
  }
  console.log(`\n  whole run: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

// Run, unless imported (bench:scale reuses its data and requests).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) exitWhenDone(main);
