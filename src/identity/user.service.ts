import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import type { SearchSpec } from '../shared/search.js';
import { County } from '../places/county.entity.js';
import { Checker, isDocument, isEmail, normalizeDocument, normalizeEmail } from '../shared/validation.js';
import type { Actor } from './actor.js';
import type { AuthService } from './auth.service.js';
import { Membership } from './membership.entity.js';
import { userPolicy } from './user.policy.js';
import { USER_TYPES, User, type UserType } from './user.entity.js';
import { userSource, type UserRow } from './user.reader.js';

export interface UserCreateInput {
  id?: string | null;
  str_document?: string | null;
  str_email?: string | null;
  str_name?: string | null;
  bl_admin?: boolean | null;
  str_phone?: string | null;
  str_type?: string | null;
  str_role?: string | null;
}

export interface UserUpdateInput {
  county_id?: string | null;
  org_id?: string | null;
  organization_id?: string | null;
  str_document?: string | null;
  str_email?: string | null;
  str_name?: string | null;
  str_phone?: string | null;
  str_type?: string | null;
  bl_admin?: boolean | null;
  str_current_password?: string | null;
  str_new_password?: string | null;
}

export const USER_SEARCH: SearchSpec = {
  alias: 'u',
  exact: { id: 'uuid', str_name: 'text', str_email: 'text', str_document: 'text', str_type: 'text', bl_admin: 'boolean', bl_verified: 'boolean', str_phone: 'text', county_id: 'uuid', organization_id: 'uuid' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_email', 'str_document'],
};

export class UserService {
  constructor(private readonly auth: AuthService) {}

  async get(em: EntityManager, actor: Actor, id: string): Promise<User> {
    return mustFindVisible(em, User, '"user" u', userPolicy.scope(actor), id, 'user');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<UserRow>> {
    return readVisible(db, actor, userSource, userPolicy.scope(actor), id, 'user', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<UserRow>> {
    return readVisiblePage(db, actor, userSource, userPolicy.scope(actor), USER_SEARCH, filters, page, options);
  }

  /** Used by first start and the CLI: an administrator with a password, confirmed at once. */
  async createAdministrator(em: EntityManager, input: { email: string; password: string; name: string; document?: string }, passwordHash: string): Promise<User> {
    return em.transactional(async (tx) => {
      const email = normalizeEmail(input.email);
      const document = input.document ? normalizeDocument(input.document) : `ADMIN-${email}`;
      await this.assertUnique(tx, email, document);
      const user = tx.create(User, { str_name: input.name, str_email: email, str_document: document, str_type: 'OTHER', bl_admin: true, bl_verified: true, password_hash: passwordHash, ts_registration_confirmed_at: new Date() });
      tx.persist(user);
      await tx.flush();
      await appendEvent(tx, { type: 'USER_CREATED', recordType: 'User', recordId: user.id, actorId: null, payload: { str_email: email, bl_admin: true } });
      return user;
    });
  }

  async update(em: EntityManager, actor: Actor, id: string, input: UserUpdateInput): Promise<User> {
    const target = await this.get(em, actor, id);
    const targetRole = actor.organizationId ? ((await em.findOne(Membership, { user_id: id, organization_id: actor.organizationId }))?.str_role ?? null) : null;
    userPolicy.canUpdate(actor, target, targetRole);
    if (input.bl_admin !== undefined && input.bl_admin !== null && input.bl_admin !== target.bl_admin) userPolicy.canGrantAdmin(actor);
    if ((input.str_type !== undefined || input.str_document !== undefined) && actor.userId === id && !actor.isAdmin) {
      const changes = (input.str_type && input.str_type !== target.str_type) || (input.str_document && normalizeDocument(input.str_document) !== target.str_document);
      if (changes) throw DomainError.forbidden('a user does not change its own type or document');
    }
    return this.apply(em, actor, target, input);
  }

  /** PUT /api/self-update: what a user may change about itself, and its password. */
  async selfUpdate(em: EntityManager, actor: Actor, input: UserUpdateInput): Promise<User> {
    const target = await em.findOneOrFail(User, { id: actor.userId });
    const allowed: UserUpdateInput = { str_name: input.str_name, str_phone: input.str_phone, str_email: input.str_email, county_id: input.county_id };
    const passwordChange = input.str_current_password !== undefined || input.str_new_password !== undefined;
    return this.apply(em, actor, target, allowed, passwordChange ? input : undefined);
  }

  private async apply(em: EntityManager, actor: Actor, user: User, input: UserUpdateInput, password?: UserUpdateInput): Promise<User> {
    const check = new Checker();
    const changes: Record<string, unknown> = {};
    const set = <K extends keyof User>(key: K, value: User[K]) => {
      if (user[key] !== value) {
        changes[key as string] = value;
        user[key] = value;
      }
    };
    let email: string | undefined;
    let document: string | undefined;
    if (input.str_name !== undefined) check.when(!input.str_name?.trim(), 'str_name', 'must not be empty');
    if (input.str_email !== undefined) {
      email = normalizeEmail(input.str_email ?? '');
      check.when(!isEmail(email), 'str_email', 'must be an e-mail address');
    }
    if (input.str_document !== undefined) {
      document = normalizeDocument(input.str_document ?? '');
      check.when(!isDocument(document), 'str_document', 'must be a valid CPF or CNPJ');
    }
    if (input.str_type !== undefined) check.when(!USER_TYPES.includes(input.str_type as UserType), 'str_type', `must be one of ${USER_TYPES.join(', ')}`);
    if (input.county_id) check.when(!isUuid(input.county_id), 'county_id', 'must be a uuid');
    const orgId = input.organization_id ?? input.org_id;
    if (orgId) check.when(!isUuid(orgId), 'organization_id', 'must be a uuid');
    check.throwIfAny();
    return em.transactional(async (tx) => {
      user = await tx.findOneOrFail(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (email !== undefined && email !== user.str_email) await this.assertUnique(tx, email, '', user.id);
      if (document !== undefined && document !== user.str_document) await this.assertUnique(tx, '', document, user.id);
      if (orgId && (await tx.count(Membership, { user_id: user.id, organization_id: orgId })) === 0) throw DomainError.field('organization_id', 'the user is not a member of this organization');
      if (input.county_id && input.county_id !== user.county_id && (await tx.count(County, { id: input.county_id })) === 0) throw DomainError.field('county_id', 'no such county');
      if (input.str_name) set('str_name', input.str_name.trim());
      if (email !== undefined) set('str_email', email);
      if (document !== undefined) set('str_document', document);
      if (input.str_type) set('str_type', input.str_type as UserType);
      if (input.str_phone !== undefined) set('str_phone', input.str_phone);
      if (input.county_id !== undefined) set('county_id', input.county_id);
      if (orgId) set('organization_id', orgId);
      if (input.bl_admin !== undefined && input.bl_admin !== null) set('bl_admin', input.bl_admin);
      if (password) {
        await this.auth.changePassword(tx, user, actor, password.str_current_password, password.str_new_password);
        changes.password = 'changed';
      }
      await tx.flush();
      if (Object.keys(changes).length) await appendEvent(tx, { type: 'USER_UPDATED', recordType: 'User', recordId: user.id, actorId: actor.userId, payload: { changes } });
      return user;
    });
  }

  private async assertUnique(tx: EntityManager, email: string, document: string, exceptId?: string): Promise<void> {
    const rows = await tx.execute<{ str_email: string; str_document: string }[]>(
      'select str_email, str_document from "user" where (lower(str_email) = ? or str_document = ?) and id <> ?',
      [email, document, exceptId ?? '00000000-0000-0000-0000-000000000000'],
    );
    const fields: Record<string, string[]> = {};
    if (email && rows.some((r) => r.str_email.toLowerCase() === email)) fields.str_email = ['is already taken'];
    if (document && rows.some((r) => r.str_document === document)) fields.str_document = ['is already taken'];
    if (Object.keys(fields).length) throw new DomainError('CONFLICT', { fields });
  }
}
