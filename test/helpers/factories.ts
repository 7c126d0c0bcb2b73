import { randomUUID } from 'node:crypto';
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils';
import type { TestApp } from './app.js';
import { Membership, type Role } from '../../src/identity/membership.entity.js';
import { Organization } from '../../src/identity/organization.entity.js';
import { hashPassword } from '../../src/identity/passwords.js';
import { User, type UserType } from '../../src/identity/user.entity.js';
import { SentMessage } from '../../src/shared/sent-message.entity.js';

export const PASSWORD = 'correct horse battery';
let passwordHash: Promise<string> | null = null;

export const cpf = (): string => generateCpf();
export const cnpj = (): string => generateCnpj();
export const email = (label = 'user'): string => `${label}.${randomUUID().slice(0, 12)}@example.com`;

export interface Person {
  user: User;
  email: string;
  document: string;
  password: string;
}

/** A confirmed user with a known password, written straight to the database (set-up, not the thing under test). */
export async function makeUser(app: TestApp, o: { admin?: boolean; type?: UserType; confirmed?: boolean; organizationId?: string } = {}): Promise<Person> {
  passwordHash ??= hashPassword(PASSWORD);
  const em = app.service.orm.em.fork();
  const user = em.create(User, {
    str_name: 'Test User',
    str_email: email(),
    str_document: cpf(),
    str_type: o.type ?? 'PRODUCER',
    bl_admin: o.admin ?? false,
    password_hash: await passwordHash,
    ts_registration_confirmed_at: o.confirmed === false ? null : new Date(),
    organization_id: o.organizationId ?? null,
  });
  await em.persist(user).flush();
  return { user, email: user.str_email, document: user.str_document, password: PASSWORD };
}

/** A fresh organization per test, so test files can share one database. */
export async function makeOrganization(app: TestApp, members: { person: Person; role: Role }[] = []): Promise<Organization> {
  const em = app.service.orm.em.fork();
  const org = em.create(Organization, { str_name: `Org ${randomUUID().slice(0, 8)}`, str_document: cnpj() });
  em.persist(org);
  for (const m of members) em.persist(em.create(Membership, { user_id: m.person.user.id, organization_id: org.id, str_role: m.role }));
  await em.flush();
  return org;
}

export interface Session {
  access: string;
  refresh: string;
}

export async function login(app: TestApp, person: Person, organizationId?: string): Promise<Session> {
  const res = await app.call('POST', '/api/login', { body: { str_email: person.email, str_password: person.password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  let session: Session = { access: res.body.data.str_access_token, refresh: res.body.data.str_refresh_token };
  if (organizationId) {
    const switched = await app.call('POST', '/api/change-org', { token: session.access, body: { organization_id: organizationId } });
    if (switched.status !== 200) throw new Error(`change-org failed: ${switched.status} ${JSON.stringify(switched.body)}`);
    session = { access: switched.body.data.str_access_token, refresh: switched.body.data.str_refresh_token };
  }
  return session;
}

/** A member of a fresh organization, signed in with it active. */
export async function member(app: TestApp, role: Role = 'OWNER', org?: Organization, type?: UserType): Promise<Person & Session & { org: Organization }> {
  const person = await makeUser(app, { type });
  const organization = org ?? (await makeOrganization(app));
  const em = app.service.orm.em.fork();
  await em.persist(em.create(Membership, { user_id: person.user.id, organization_id: organization.id, str_role: role })).flush();
  return { ...person, ...(await login(app, person, organization.id)), org: organization };
}

/** An AUTHORITY (or INTEGRATION) user living in a county, signed in without an organization. */
export async function official(app: TestApp, countyId: string, type: UserType = 'AUTHORITY'): Promise<Person & Session> {
  const person = await makeUser(app, { type });
  await app.service.orm.em.fork().execute('update "user" set county_id = ? where id = ?', [countyId, person.user.id]);
  return { ...person, ...(await login(app, person)) };
}

/** The last message mailed to an address (the mailer keeps every message in sent_message). */
export async function lastMail(app: TestApp, to: string): Promise<SentMessage | null> {
  const [msg] = await app.service.orm.em.fork().find(SentMessage, { str_to: to.toLowerCase() }, { orderBy: { ts_created_at: 'desc' }, limit: 1 });
  return msg ?? null;
}

/** The token a mail carries ("...code...: <token>"). */
export const tokenIn = (mail: SentMessage | null): string => /: ([A-Za-z0-9_-]{20,})\n/.exec(mail?.str_body ?? '')?.[1] ?? '';
