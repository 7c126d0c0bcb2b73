import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, ORGANIZATION_REGISTERED } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { paged, toPage, type PageInput } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { Checker, isDocument, normalizeDocument } from '../shared/validation.js';
import type { Actor } from './actor.js';
import { Membership, ROLES, type Role } from './membership.entity.js';
import { Organization } from './organization.entity.js';
import { organizationPolicy } from './organization.policy.js';
import { membersOf, organizationSource } from './organization.reader.js';
import { User } from './user.entity.js';

export interface OrganizationInput {
  id?: string | null;
  str_name?: string | null;
  str_document?: string | null;
  owner_user_id?: string | null;
}

export const ORGANIZATION_SEARCH: SearchSpec = {
  alias: 'o',
  exact: { id: 'uuid', str_name: 'text', str_document: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_document'],
};

/** Where a founder of an organization that already exists is sent instead. */
export const ALREADY_REGISTERED = ORGANIZATION_REGISTERED;

export class OrganizationService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<Organization> {
    return mustFindVisible(em, Organization, 'organization o', organizationPolicy.scope(actor), id, 'organization');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Organization>> {
    return readVisible(db, actor, organizationSource, organizationPolicy.scope(actor), id, 'organization', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Organization>> {
    return readVisiblePage(db, actor, organizationSource, organizationPolicy.scope(actor), ORGANIZATION_SEARCH, filters, page, options);
  }

  /** Any signed-in user may found an organization and becomes its owner; an administrator may name another owner. */
  async create(em: EntityManager, actor: Actor, input: OrganizationInput): Promise<Organization> {
    const check = new Checker().required('str_name', input.str_name).required('str_document', input.str_document);
    const document = input.str_document ? normalizeDocument(input.str_document) : '';
    if (document) check.when(!isDocument(document), 'str_document', 'must be a valid CNPJ or CPF');
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    if (input.owner_user_id) check.when(!isUuid(input.owner_user_id), 'owner_user_id', 'must be a uuid');
    check.throwIfAny();
    if (input.owner_user_id && input.owner_user_id !== actor.userId && !actor.isAdmin) throw DomainError.forbidden('only administrators name another owner');
    const ownerId = input.owner_user_id ?? actor.userId;
    // The owner is part of what was created: another caller sending the same body is not a replay.
    const hash = bodyHash({ ...input, id: undefined, owner_user_id: ownerId });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, Organization, 'organization', 'Organization', 'ORGANIZATION_CREATED', input.id, hash, () => true);
        if (replayed) return replayed;
      }
      // A CNPJ is public (the federal registry): saying it is taken tells nothing about a person.
      if (await tx.count(Organization, { str_document: document })) throw DomainError.conflict('str_document', ALREADY_REGISTERED);
      if (!(await tx.count(User, { id: ownerId }))) throw DomainError.field('owner_user_id', 'no such user');
      const org = tx.create(Organization, { ...(input.id ? { id: input.id } : {}), str_name: input.str_name!.trim(), str_document: document });
      tx.persist(org);
      tx.persist(tx.create(Membership, { user_id: ownerId, organization_id: org.id, str_role: 'OWNER' }));
      await tx.flush();
      await appendEvent(tx, { type: 'ORGANIZATION_CREATED', recordType: 'Organization', recordId: org.id, actorId: actor.userId, payload: { str_name: org.str_name, str_document: document, owner_user_id: ownerId, body_hash: hash } });
      return org;
    });
  }

  async update(em: EntityManager, actor: Actor, id: string, input: OrganizationInput): Promise<Organization> {
    const org = await this.get(em, actor, id);
    organizationPolicy.canManage(actor, await this.roleOf(em, actor.userId, id));
    const check = new Checker();
    if (input.str_name !== undefined) check.when(!input.str_name?.trim(), 'str_name', 'must not be empty');
    const document = input.str_document !== undefined ? normalizeDocument(input.str_document ?? '') : undefined;
    if (document !== undefined) check.when(!isDocument(document), 'str_document', 'must be a valid CNPJ or CPF');
    check.throwIfAny();
    return em.transactional(async (tx) => {
      const changes: Record<string, unknown> = {};
      if (document !== undefined && document !== org.str_document) {
        if (await tx.count(Organization, { str_document: document, id: { $ne: id } })) throw DomainError.conflict('str_document', ALREADY_REGISTERED);
        org.str_document = changes.str_document = document;
      }
      if (input.str_name && input.str_name.trim() !== org.str_name) org.str_name = changes.str_name = input.str_name.trim();
      tx.persist(org);
      await tx.flush();
      if (Object.keys(changes).length) await appendEvent(tx, { type: 'ORGANIZATION_UPDATED', recordType: 'Organization', recordId: id, actorId: actor.userId, payload: { changes } });
      return org;
    });
  }

  /** The members of an organization the caller sees, newest first: a 404 when it does not see it. */
  async members(db: Db, actor: Actor, id: string, pageInput: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Membership>> {
    const { row: organization } = await this.read(db, actor, id, {});
    const page = toPage(pageInput);
    const { rows, related, total } = await membersOf(db, actor, organization.id, page, options);
    return { ...paged(rows, total ?? 0, page), related };
  }

  async addMember(em: EntityManager, actor: Actor, id: string, userId: string | null | undefined, role: string | null | undefined): Promise<Membership> {
    await this.get(em, actor, id);
    const actorRole = await this.roleOf(em, actor.userId, id);
    organizationPolicy.canManage(actor, actorRole);
    const check = new Checker().required('user_id', userId).required('str_role', role);
    if (userId) check.when(!isUuid(userId), 'user_id', 'must be a uuid');
    if (role) check.when(!ROLES.includes(role as Role), 'str_role', `must be one of ${ROLES.join(', ')}`);
    check.throwIfAny();
    organizationPolicy.canGrantRole(actor, actorRole, role as Role);
    return em.transactional(async (tx) => {
      if (!(await tx.count(User, { id: userId! }))) throw DomainError.notFound('user');
      if (await tx.count(Membership, { user_id: userId!, organization_id: id })) throw DomainError.conflict('user_id', 'is already a member');
      const m = tx.create(Membership, { user_id: userId!, organization_id: id, str_role: role as Role });
      tx.persist(m);
      await tx.flush();
      await appendEvent(tx, { type: 'MEMBERSHIP_ADDED', recordType: 'Organization', recordId: id, actorId: actor.userId, payload: { user_id: userId, str_role: role } });
      return m;
    });
  }

  async changeRole(em: EntityManager, actor: Actor, id: string, userId: string, role: string | null | undefined): Promise<Membership> {
    await this.get(em, actor, id);
    const actorRole = await this.roleOf(em, actor.userId, id);
    organizationPolicy.canManage(actor, actorRole);
    if (!role || !ROLES.includes(role as Role)) throw DomainError.field('str_role', `must be one of ${ROLES.join(', ')}`);
    return em.transactional(async (tx) => {
      const m = await this.membership(tx, id, userId);
      if (m.str_role === 'OWNER' || role === 'OWNER') organizationPolicy.canGrantRole(actor, actorRole, 'OWNER');
      if (m.str_role === 'OWNER' && role !== 'OWNER') await this.keepAnOwner(tx, id);
      const from = m.str_role;
      m.str_role = role as Role;
      await tx.flush();
      await appendEvent(tx, { type: 'MEMBERSHIP_ROLE_CHANGED', recordType: 'Organization', recordId: id, actorId: actor.userId, payload: { user_id: userId, from, to: role } });
      return m;
    });
  }

  async removeMember(em: EntityManager, actor: Actor, id: string, userId: string): Promise<void> {
    await this.get(em, actor, id);
    const actorRole = await this.roleOf(em, actor.userId, id);
    if (actor.userId !== userId) organizationPolicy.canManage(actor, actorRole);
    await em.transactional(async (tx) => {
      const m = await this.membership(tx, id, userId);
      if (m.str_role === 'OWNER') {
        if (actor.userId !== userId) organizationPolicy.canGrantRole(actor, actorRole, 'OWNER');
        await this.keepAnOwner(tx, id);
      }
      tx.remove(m);
      await tx.flush();
      await appendEvent(tx, { type: 'MEMBERSHIP_REMOVED', recordType: 'Organization', recordId: id, actorId: actor.userId, payload: { user_id: userId, str_role: m.str_role } });
    });
  }

  private async membership(tx: EntityManager, organizationId: string, userId: string): Promise<Membership> {
    const m = isUuid(userId) ? await tx.findOne(Membership, { organization_id: organizationId, user_id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
    if (!m) throw DomainError.notFound('membership');
    return m;
  }

  private async keepAnOwner(tx: EntityManager, organizationId: string): Promise<void> {
    if ((await tx.count(Membership, { organization_id: organizationId, str_role: 'OWNER' })) <= 1) {
      throw new DomainError('RULE_VIOLATED', { rule: 'ORGANIZATION_NEEDS_AN_OWNER', message: 'an organization keeps at least one owner' });
    }
  }

  private async roleOf(em: EntityManager, userId: string, organizationId: string): Promise<Role | null> {
    return (await em.findOne(Membership, { user_id: userId, organization_id: organizationId }))?.str_role ?? null;
  }
}
