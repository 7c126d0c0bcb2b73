import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { bodyHash, replayCreate } from '../places/replay.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { Invite } from './invite.entity.js';
import { InviteRequest, type InviteRequestStatus } from './invite-request.entity.js';
import { inviteRequestPolicy } from './invite.policy.js';
import { inviteRequestSource } from './invite-request.reader.js';
import { INVITE_TYPES, MOVIMENTATION_TYPES } from './invite.rules.js';

export interface InviteRequestInput {
  id?: string | null;
  control_unit_id?: string | null;
  str_movimentation_type?: string | null;
  str_type?: string | null;
  str_message?: string | null;
}

export const INVITE_REQUEST_SEARCH: SearchSpec = {
  alias: 'r',
  exact: { id: 'uuid', control_unit_id: 'uuid', organization_id: 'uuid', user_id: 'uuid', invite_id: 'uuid', str_movimentation_type: 'text', str_type: 'text', str_status: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_decided_at'],
  query: ['str_message'],
};

export class InviteRequestService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<InviteRequest> {
    return mustFindVisible(em, InviteRequest, 'invite_request r', inviteRequestPolicy.scope(actor), id, 'invite request');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<InviteRequest>> {
    return readVisible(db, actor, inviteRequestSource, inviteRequestPolicy.scope(actor), id, 'invite request', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<InviteRequest>> {
    return readVisiblePage(db, actor, inviteRequestSource, inviteRequestPolicy.scope(actor), INVITE_REQUEST_SEARCH, filters, page, options);
  }

  /** Any signed-in user asks to be invited to a unit (known by its id); a client id makes it idempotent. */
  async create(em: EntityManager, actor: Actor, input: InviteRequestInput): Promise<InviteRequest> {
    const check = new Checker();
    for (const f of ['control_unit_id', 'str_movimentation_type', 'str_type'] as const) check.required(f, input[f]);
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    if (input.control_unit_id) check.when(!isUuid(input.control_unit_id), 'control_unit_id', 'must be a uuid');
    if (input.str_movimentation_type) check.when(!(MOVIMENTATION_TYPES as readonly string[]).includes(input.str_movimentation_type), 'str_movimentation_type', `must be one of ${MOVIMENTATION_TYPES.join(', ')}`);
    if (input.str_type) check.when(!(INVITE_TYPES as readonly string[]).includes(input.str_type), 'str_type', `must be one of ${INVITE_TYPES.join(', ')}`);
    const message = typeof input.str_message === 'string' ? input.str_message.trim() || null : null;
    if (message) check.when(message.length > 2000, 'str_message', 'must be at most 2000 characters');
    check.throwIfAny();
    const unit = await em.findOne(ControlUnit, { id: input.control_unit_id! });
    if (!unit) throw DomainError.field('control_unit_id', 'no such control unit');
    const establishment = await em.findOneOrFail(Establishment, { id: unit.establishment_id });
    const allowed = establishment.lst_invite_movimentation_types;
    if (allowed && allowed.length && !allowed.includes(input.str_movimentation_type!)) throw DomainError.field('str_movimentation_type', `the establishment accepts ${allowed.join(', ')}`);
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, InviteRequest, 'invite_request', 'InviteRequest', 'INVITE_REQUEST_CREATED', input.id, hash, (r) => r.user_id === actor.userId);
        if (replayed) return replayed;
      }
      const row = tx.create(InviteRequest, {
        ...(input.id ? { id: input.id } : {}),
        control_unit_id: unit.id,
        organization_id: establishment.organization_id,
        user_id: actor.userId,
        str_movimentation_type: input.str_movimentation_type!,
        str_type: input.str_type!,
        str_message: message,
        str_status: 'PENDING',
      });
      tx.persist(row);
      await tx.flush();
      await appendEvents(tx, [{ type: 'INVITE_REQUEST_CREATED', recordType: 'InviteRequest', recordId: row.id, actorId: actor.userId, payload: { changes: { str_movimentation_type: row.str_movimentation_type, str_type: row.str_type, str_message: message }, refs: { control_unit_id: unit.id, organization_id: establishment.organization_id }, body_hash: hash } }]);
      return row;
    });
  }

  /** An owner or manager of the unit's organization approves: an accepted invite is created for the requester. */
  approve(em: EntityManager, actor: Actor, id: string): Promise<InviteRequest> {
    return this.decide(em, actor, id, 'APPROVED');
  }

  deny(em: EntityManager, actor: Actor, id: string): Promise<InviteRequest> {
    return this.decide(em, actor, id, 'DENIED');
  }

  async cancel(em: EntityManager, actor: Actor, id: string): Promise<InviteRequest> {
    const request = await this.get(em, actor, id);
    inviteRequestPolicy.canCancel(actor, request);
    return this.transition(em, actor, request, 'CANCELLED');
  }

  private async decide(em: EntityManager, actor: Actor, id: string, to: 'APPROVED' | 'DENIED'): Promise<InviteRequest> {
    const request = await this.get(em, actor, id);
    inviteRequestPolicy.canDecide(actor, request);
    return this.transition(em, actor, request, to);
  }

  private async transition(em: EntityManager, actor: Actor, request: InviteRequest, to: InviteRequestStatus): Promise<InviteRequest> {
    if (request.str_status !== 'PENDING') throw new DomainError('INVALID_STATE', `the request is ${request.str_status}`);
    return em.transactional(async (tx) => {
      // The row lock makes two concurrent decisions meet one PENDING request, not two.
      const locked = await tx.execute<{ str_status: string }[]>('select str_status from invite_request where id = ? for update', [request.id]);
      if (locked[0]?.str_status !== 'PENDING') throw new DomainError('INVALID_STATE', `the request is ${locked[0]?.str_status ?? 'gone'}`);
      const now = new Date();
      const events = [];
      if (to === 'APPROVED') {
        const invite = tx.create(Invite, {
          control_unit_id: request.control_unit_id,
          organization_id: request.organization_id,
          author_user_id: actor.userId,
          user_id: request.user_id,
          str_movimentation_type: request.str_movimentation_type,
          str_type: request.str_type,
          bl_restricted: false,
          bl_accepted: true,
          ts_accepted_at: now,
        });
        tx.persist(invite);
        request.invite_id = invite.id;
        events.push({ type: 'INVITE_CREATED', recordType: 'Invite', recordId: invite.id, actorId: actor.userId, payload: { changes: { user_id: invite.user_id, str_movimentation_type: invite.str_movimentation_type, str_type: invite.str_type, bl_accepted: true }, refs: { control_unit_id: invite.control_unit_id, organization_id: invite.organization_id, invite_request_id: request.id } } });
      }
      request.str_status = to;
      if (to !== 'CANCELLED') {
        request.decided_by_user_id = actor.userId;
        request.ts_decided_at = now;
      }
      tx.persist(request);
      await tx.flush();
      events.push({ type: `INVITE_REQUEST_${to}`, recordType: 'InviteRequest', recordId: request.id, actorId: actor.userId, payload: { changes: { str_status: to, invite_id: request.invite_id }, refs: { control_unit_id: request.control_unit_id, organization_id: request.organization_id } } });
      await appendEvents(tx, events);
      return request;
    });
  }
}
