/**
 * Tags leaving service in bulk: wall time and SQL statements of one POST /api/tags-writeoffs for
 * 5 and 500 unused tags, for 500 applied tags whose animals die, and of one POST
 * /api/tags-replacements for 500 animals. The statement counts must not grow with the tags. On
 * in-memory PGlite, and, when DATABASE_URL is set, on a scratch database `bench_tags_writeoff` on
 * that PostgreSQL (created through the admin connection, dropped afterwards).
 * Run: npm run build && node dist/bench/tags-writeoff.bench.js
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils';
import { loadConfig } from '../src/config.js';
import { openOrm } from '../src/db/orm.js';
import { Membership } from '../src/identity/membership.entity.js';
import { Organization } from '../src/identity/organization.entity.js';
import { hashPassword } from '../src/identity/passwords.js';
import { User } from '../src/identity/user.entity.js';
import { createService, type Service } from '../src/server.js';

const PASSWORD = 'bench-password-1';
const pgUrl = process.env.DATABASE_URL;
const base = { LOG_LEVEL: 'silent', EXPOSE_SQL_STATEMENTS: 'true', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00' };
let nextBlock = 100_000;

interface Place {
  email: string;
  organizationId: string;
  unitId: string;
}

async function generate(service: Service): Promise<Place> {
  const em = service.orm.em.fork();
  const org = em.create(Organization, { str_name: 'Bench Org', str_document: generateCnpj() });
  const user = em.create(User, {
    str_name: 'Bench Operator',
    str_email: `bench.${randomUUID().slice(0, 12)}@example.com`,
    str_document: generateCpf(),
    str_type: 'PRODUCER',
    bl_admin: false,
    password_hash: await hashPassword(PASSWORD),
    ts_registration_confirmed_at: new Date(),
    organization_id: null,
  });
  em.persist([org, user]);
  em.persist(em.create(Membership, { user_id: user.id, organization_id: org.id, str_role: 'OPERATOR' }));
  await em.flush();
  const establishmentId = randomUUID();
  const unitId = randomUUID();
  await em.execute(`insert into establishment (id, organization_id, str_name, str_type) values (?, ?, 'Fazenda Bench', 'FARM')`, [establishmentId, org.id]);
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Retiro', 'PRODUCTION')`, [unitId, establishmentId, `BENCH-${unitId.slice(0, 8)}`]);
  return { email: user.str_email, organizationId: org.id, unitId };
}

/** A box of n AVAILABLE tags at the unit, set-based; with animals, each tag APPLIED on an ACTIVE animal. */
async function stock(service: Service, unitId: string, n: number, animals: boolean): Promise<string[]> {
  const em = service.orm.em.fork();
  const begin = `076${String(nextBlock++).padStart(9, '0')}000`;
  const boxId = randomUUID();
  await em.execute(`insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, ?, lpad((?::bigint + ? - 1)::text, 15, '0'), ?, 'IN_STOCK', ?)`, [
    boxId, `BOX-${begin}`, begin, begin, n, n, unitId,
  ]);
  const rows = await em.execute<{ str_code: string }[]>(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id)
       select gen_random_uuid(), lpad((?::bigint + g)::text, 15, '0'), 'AVAILABLE', ?, ? from generate_series(0, ? - 1) g returning str_code`,
    [begin, boxId, unitId, n],
  );
  if (animals) {
    await em.transactional(async (tx) => {
      await tx.execute(
        `insert into animal (id, str_species, str_gender, last_control_unit_id, current_tag_id) select gen_random_uuid(), 'BOVINE', 'FEMALE', ?, t.id from tag t where t.tags_box_id = ?`,
        [unitId, boxId],
      );
      await tx.execute(`update tag set str_status = 'APPLIED', animal_id = a.id from animal a where a.current_tag_id = tag.id and tag.tags_box_id = ?`, [boxId]);
    });
  }
  return rows.map((r) => r.str_code).sort();
}

/** What the bench reads of an answer: a token pair's access token. */
type Answer = { data: { str_access_token: string } } & Record<string, unknown>;

async function post(url: string, path: string, body: unknown, token?: string): Promise<{ status: number; json: Answer; sql: string | null; ms: number }> {
  const started = performance.now();
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const json = (await res.json()) as Answer;
  return { status: res.status, json, sql: res.headers.get('x-sql-statements'), ms: performance.now() - started };
}

async function run(title: string, databaseUrl: string | undefined): Promise<void> {
  console.log(`\n${title}:`);
  const service = await createService(loadConfig({ ...base, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl }));
  try {
    const place = await generate(service);
    const server = await service.listen(0);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const login = await post(url, '/api/login', { str_email: place.email, str_password: PASSWORD });
    const token: string = (await post(url, '/api/change-org', { organization_id: place.organizationId }, login.json.data.str_access_token)).json.data.str_access_token;

    const report = (label: string, r: Awaited<ReturnType<typeof post>>) => {
      if (r.status !== 201) throw new Error(`${label}: ${r.status} ${JSON.stringify(r.json).slice(0, 500)}`);
      console.log(`  ${label.padEnd(44)} ${r.ms.toFixed(0).padStart(5)} ms, ${r.sql} SQL statements`);
    };
    for (const n of [5, 500]) {
      const codes = await stock(service, place.unitId, n, false);
      report(`writeoff of ${n} unused tags (DEFECTIVE)`, await post(url, '/api/tags-writeoffs', { control_unit_id: place.unitId, str_reason: 'DEFECTIVE', tags: codes.map((str_code) => ({ str_code })) }, token));
    }
    for (const n of [5, 500]) {
      const codes = await stock(service, place.unitId, n, true);
      report(`writeoff of ${n} applied tags (ANIMAL_DEATH)`, await post(url, '/api/tags-writeoffs', { control_unit_id: place.unitId, str_reason: 'ANIMAL_DEATH', tags: codes.map((str_code) => ({ str_code })) }, token));
    }
    for (const n of [5, 500]) {
      const olds = await stock(service, place.unitId, n, true);
      const news = await stock(service, place.unitId, n, false);
      const tags = olds.map((c, i) => ({ str_tag_code: c, str_new_tag_code: news[i], str_reason: 'LOST' }));
      report(`replacement of ${n} animals' tags`, await post(url, '/api/tags-replacements', { control_unit_id: place.unitId, tags }, token));
    }
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  await run('PGlite (in memory)', undefined);
  if (!pgUrl) return;
  const scratch = 'bench_tags_writeoff';
  const admin = await openOrm(loadConfig({ ...base, DATABASE_URL: pgUrl }));
  try {
    await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
    await admin.em.fork().execute(`create database ${scratch}`);
    const url = new URL(pgUrl);
    url.pathname = `/${scratch}`;
    await run(`PostgreSQL (scratch database ${scratch} on ${url.host})`, url.toString()).catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
  } finally {
    await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
    await admin.close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
