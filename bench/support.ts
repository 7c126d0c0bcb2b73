import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils';
import { loadConfig } from '../src/config.js';
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
};

export interface Served {
  service: Service;
  url: string;
}

/**
 * `run` on a fresh service over in-memory PGlite, then, when DATABASE_URL is set, over a scratch
 * database `scratch` on that PostgreSQL (created through the admin connection, dropped afterwards).
 */
export async function onEachDatabase(scratch: string, title: (where: string) => string, run: (service: Service) => Promise<void>): Promise<void> {
  await runOn(title('PGlite (in memory)'), undefined, run);
  const pgUrl = process.env.DATABASE_URL;
  if (!pgUrl) return;
  const admin = await openOrm(loadConfig({ ...BENCH_ENV, DATABASE_URL: pgUrl }));
  try {
    await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
    await admin.em.fork().execute(`create database ${scratch}`);
    const url = new URL(pgUrl);
    url.pathname = `/${scratch}`;
    await runOn(title(`PostgreSQL (scratch database ${scratch} on ${url.host})`), url.toString(), run).catch((err: unknown) => {
      console.error(err); // shown here: the drop below would otherwise hide it
      process.exitCode = 1;
    });
  } finally {
    // with (force): a service that failed half-way may still hold a connection to it (PostgreSQL 13+).
    await admin.em.fork().execute(`drop database if exists ${scratch} with (force)`);
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
