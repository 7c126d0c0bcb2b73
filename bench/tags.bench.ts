/**
 * A supplier's tags ingress and its evaluation over HTTP: one box of 10,000 codes (and, for
 * comparison, one of 10), each size RUNS times on fresh code ranges; prints the median wall time
 * of the create (POST /api/tags-ingress) and of the evaluation (POST /api/tags-ingress/:id/evaluate)
 * and the SQL statements each ran (X-SQL-Statements). On in-memory PGlite, and, when DATABASE_URL
 * is set, on a scratch database `bench_tags_<pid>` on that PostgreSQL (created through the admin
 * connection, dropped afterwards). Run: npm run bench:tags
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
import { codeAt } from '../src/tags/tag.rules.js';
import { createService, type Service } from '../src/server.js';

const SIZES = [10, Number(process.env.BENCH_TAGS ?? 10_000)];
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PASSWORD = 'bench-password-1';
const pgUrl = process.env.DATABASE_URL;
const base = {
  LOG_LEVEL: 'silent',
  EXPOSE_SQL_STATEMENTS: 'true',
  LOGIN_LIMIT_PER_LOGIN: '1000000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
};

/** An organization, its owner, one establishment and control unit. */
async function generate(service: Service): Promise<{ email: string; organizationId: string; unitId: string }> {
  const em = service.orm.em.fork();
  const org = em.create(Organization, { str_name: 'Bench Org', str_document: generateCnpj() });
  const user = em.create(User, {
    str_name: 'Bench Owner',
    str_email: `bench.${randomUUID().slice(0, 12)}@example.com`,
    str_document: generateCpf(),
    str_type: 'PRODUCER',
    bl_admin: false,
    password_hash: await hashPassword(PASSWORD),
    ts_registration_confirmed_at: new Date(),
    organization_id: null,
  });
  em.persist([org, user]);
  em.persist(em.create(Membership, { user_id: user.id, organization_id: org.id, str_role: 'OWNER' }));
  await em.flush();
  const establishmentId = randomUUID();
  const unitId = randomUUID();
  await em.execute(`insert into establishment (id, organization_id, str_name, str_type) values (?, ?, 'Fazenda Bench', 'FARM')`, [establishmentId, org.id]);
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Estoque', 'TAG_STOCK')`, [unitId, establishmentId, `BENCH-${unitId.slice(0, 8)}`]);
  return { email: user.str_email, organizationId: org.id, unitId };
}

/** What the bench reads of the answers it gets (login, change-org, an ingress). */
interface Answer {
  data: { id: string; str_access_token: string; tags_boxes: { id: string }[] };
}

async function call(url: string, path: string, body: unknown, token?: string): Promise<{ status: number; json: Answer; sql: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const json = (await res.json()) as Answer;
  return { status: res.status, json, sql: Number(res.headers.get('x-sql-statements')), ms: performance.now() - started };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function run(title: string, databaseUrl: string | undefined): Promise<void> {
  console.log(`\n${title}:`);
  const service = await createService(loadConfig({ ...base, DATA_DIR: ':memory:', DATABASE_URL: databaseUrl }));
  try {
    const owner = await generate(service);
    const server = await service.listen(0);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const login = await call(url, '/api/login', { str_email: owner.email, str_password: PASSWORD });
    const switched = await call(url, '/api/change-org', { organization_id: owner.organizationId }, login.json.data.str_access_token);
    const token: string = switched.json.data.str_access_token;
    // Ranges one after another from a block this run owns: never overlapping, never reused.
    let next = `076${String(Math.floor(Math.random() * 900) + 100)}000000000`;
    for (const size of SIZES) {
      const creates: number[] = [];
      const evaluations: number[] = [];
      const sql = new Set<string>();
      for (let i = 0; i < RUNS + 1; i++) {
        const begin = next;
        next = codeAt(begin, size);
        const created = await call(url, '/api/tags-ingress', { to_control_unit_id: owner.unitId, tags_boxes: [{ str_begin: begin, str_finish: codeAt(begin, size - 1) }] }, token);
        if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.json)}`);
        const ingress = created.json.data;
        const body = { tags_boxes: ingress.tags_boxes.map((b) => ({ id: b.id, str_status: 'ACCEPTED' })) };
        const evaluated = await call(url, `/api/tags-ingress/${ingress.id}/evaluate`, body, token);
        if (evaluated.status !== 200) throw new Error(`evaluate: ${evaluated.status} ${JSON.stringify(evaluated.json)}`);
        if (i === 0) continue; // warm-up, not reported
        creates.push(created.ms);
        evaluations.push(evaluated.ms);
        sql.add(`${created.sql} + ${evaluated.sql}`);
      }
      console.log(
        `  ${String(size).padStart(6)} tags: create median ${median(creates).toFixed(1)} ms, evaluate median ${median(evaluations).toFixed(1)} ms, ` +
          `together ${median(creates.map((c, i) => c + evaluations[i]!)).toFixed(1)} ms (${RUNS} runs); SQL statements create + evaluate: ${[...sql].join(', ')}`,
      );
    }
    const [{ n }] = await service.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from tag where last_control_unit_id = ?`, [owner.unitId]);
    console.log(`  tags at the unit afterwards: ${n}`);
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  await run(`PGlite (in memory), ${RUNS} runs per size`, undefined);
  if (!pgUrl) return;

  const scratch = `bench_tags_${process.pid}`;
  const admin = await openOrm(loadConfig({ ...base, DATABASE_URL: pgUrl }));
  try {
    await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
    await admin.em.fork().execute(`create database ${scratch}`);
    const url = new URL(pgUrl);
    url.pathname = `/${scratch}`;
    await run(`PostgreSQL (scratch database on ${url.host}), ${RUNS} runs per size`, url.toString()).catch((err: unknown) => {
      console.error(err); // shown here: the drop below would otherwise hide it
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
