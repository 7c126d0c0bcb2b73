import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import type { AuthService } from '../identity/auth.service.js';
import { User } from '../identity/user.entity.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { Gta } from '../movements/gta.entity.js';
import { gtaPolicy } from '../movements/gta.policy.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { bodyHash, replayCreate } from '../places/replay.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { findVisible, mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { Checker, isDocument, isEmail, normalizeDocument, normalizeEmail } from '../shared/validation.js';
import { Invite } from './invite.entity.js';
import { invitePolicy } from './invite.policy.js';
import { inviteSource } from './invite.reader.js';
import { INVITE_TYPES, MOVIMENTATION_TYPES, inviteStatus, parseDate } from './invite.rules.js';

export interface InviteToUserInput {
  str_email?: string | null;
  str_name?: string | null;
  str_document?: string | null;
}

export interface InviteInput {
  id?: string | null;
  control_unit_id?: string | null;
  establishment_id?: string | null;
  gta_id?: string | null;
  user_id?: string | null;
  to_user?: InviteToUserInput | null;
  str_movimentation_type?: string | null;
  str_type?: string | null;
  bl_restricted?: boolean | null;
  bl_accepted?: boolean | null;
  ts_expires_at?: string | null;
}

export const INVITE_SEARCH: SearchSpec = {
  alias: 'i',
  exact: { id: 'uuid', control_unit_id: 'uuid', organization_id: 'uuid', user_id: 'uuid', gta_id: 'uuid', str_movimentation_type: 'text', str_type: 'text', bl_accepted: 'boolean', bl_restricted: 'boolean' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_expires_at'],
  query: ['str_type', 'str_movimentation_type'],
};

const AUTHOR_FIELDS = ['bl_restricted', 'gta_id', 'str_movimentation_type', 'str_type', 'ts_expires_at', 'user_id'] as const;
type AuthorField = (typeof AUTHOR_FIELDS)[number];

const invalidState = (message: string) => new DomainError('INVALID_STATE', message);

export class InviteService {
  constructor(private readonly auth: AuthService) {}

  async get(em: EntityManager, actor: Actor, id: string): Promise<Invite> {
    return mustFindVisible(em, Invite, 'invite i', invitePolicy.scope(actor), id, 'invite');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Invite>> {
    return readVisible(db, actor, inviteSource, invitePolicy.scope(actor), id, 'invite', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Invite>> {
    return readVisiblePage(db, actor, inviteSource, invitePolicy.scope(actor), INVITE_SEARCH, filters, page, options);
  }

  /**
   * Invites a user (by id, or by e-mail through `to_user`: found, or registered awaiting
   * confirm-registration) to a control unit. `establishment_id` alone is refused: the unit is the
   * invitation's object; when both are given they must agree. A client id makes it idempotent.
   */
  async create(em: EntityManager, actor: Actor, input: InviteInput): Promise<Invite> {
    const check = new Checker();
    check.required('control_unit_id', input.control_unit_id);
    check.required('str_movimentation_type', input.str_movimentation_type);
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    for (const f of ['control_unit_id', 'establishment_id', 'gta_id', 'user_id'] as const) if (input[f]) check.when(!isUuid(input[f]), f, 'must be a uuid');
    if (!input.user_id && !input.to_user) check.add('user_id', 'user_id or to_user is required');
    if (input.user_id && input.to_user) check.add('to_user', 'give user_id or to_user, not both');
    const to = input.to_user ? normalizeToUser(check, input.to_user) : null;
    const values = normalize(check, input);
    if (input.bl_accepted) check.add('bl_accepted', 'is set by the invitee');
    if (values.bl_restricted && !values.gta_id) check.add('gta_id', 'is required when bl_restricted');
    if (values.ts_expires_at && values.ts_expires_at.getTime() <= Date.now()) check.add('ts_expires_at', 'must be in the future');
    check.throwIfAny();
    const unit = await findVisible(em, ControlUnit, 'control_unit cu', controlUnitPolicy.scope(actor), input.control_unit_id!);
    if (!unit) throw DomainError.field('control_unit_id', 'no such control unit');
    if (input.establishment_id && input.establishment_id !== unit.establishment_id) throw DomainError.field('establishment_id', 'is not the establishment of control_unit_id');
    const establishment = await em.findOneOrFail(Establishment, { id: unit.establishment_id });
    invitePolicy.canInvite(actor, establishment.organization_id);
    checkMovimentationType(establishment, values.str_movimentation_type!);
    await checkGtaSeen(em, actor, values.gta_id);
    const hash = bodyHash({ ...input, id: undefined });
    let deliver: () => Promise<void> = async () => {};
    const invite = await em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, Invite, 'invite', 'Invite', 'INVITE_CREATED', input.id, hash, (r) => r.organization_id === establishment.organization_id);
        if (replayed) return replayed;
      }
      const events: EventInput[] = [];
      let userId = values.user_id ?? null;
      if (userId) {
        if (!(await tx.count(User, { id: userId }))) throw DomainError.field('user_id', 'no such user');
      } else {
        const found = await this.findOrRegister(tx, actor, to!, events);
        userId = found.user.id;
        deliver = found.deliver;
      }
      const row = tx.create(Invite, {
        ...(input.id ? { id: input.id } : {}),
        control_unit_id: unit.id,
        organization_id: establishment.organization_id,
        author_user_id: actor.userId,
        user_id: userId,
        gta_id: values.gta_id ?? null,
        str_movimentation_type: values.str_movimentation_type!,
        str_type: values.str_type ?? 'VIEWER',
        bl_restricted: values.bl_restricted ?? false,
        bl_accepted: false,
        ts_expires_at: values.ts_expires_at ?? null,
      });
      tx.persist(row);
      await tx.flush();
      events.push({
        type: 'INVITE_CREATED',
        recordType: 'Invite',
        recordId: row.id,
        actorId: actor.userId,
        payload: { changes: { user_id: row.user_id, str_movimentation_type: row.str_movimentation_type, str_type: row.str_type, bl_restricted: row.bl_restricted, gta_id: row.gta_id, ts_expires_at: row.ts_expires_at }, refs: { control_unit_id: unit.id, organization_id: establishment.organization_id }, body_hash: hash },
      });
      await appendEvents(tx, events);
      return row;
    });
    await deliver();
    return invite;
  }

  /** interface.md's PUT/PATCH: the invitee only accepts; the author changes the rest while PENDING. */
  async update(em: EntityManager, actor: Actor, id: string, input: InviteInput): Promise<Invite> {
    const invite = await this.get(em, actor, id);
    const given = (AUTHOR_FIELDS as readonly string[]).filter((f) => input[f as AuthorField] !== undefined && input[f as AuthorField] !== null);
    const accepting = input.bl_accepted !== undefined && input.bl_accepted !== null;
    const isInvitee = invite.user_id === actor.userId;
    const isAuthor = invitePolicy.isAuthor(actor, invite);
    if (accepting && !isInvitee) throw DomainError.forbidden('only the invitee accepts an invite');
    if (given.length && !isAuthor) throw DomainError.forbidden(`only the invite's author changes ${given.join(', ')}`);
    if (!isInvitee && !isAuthor) throw DomainError.forbidden("only the invitee and the invite's author change an invite");
    const check = new Checker();
    const values = normalize(check, input);
    if (accepting) check.when(input.bl_accepted !== true, 'bl_accepted', 'can only be set to true');
    const restricted = values.bl_restricted ?? invite.bl_restricted;
    const gtaId = values.gta_id !== undefined ? values.gta_id : invite.gta_id;
    if (restricted && !gtaId) check.add('gta_id', 'is required when bl_restricted');
    if (values.ts_expires_at && values.ts_expires_at.getTime() <= Date.now()) check.add('ts_expires_at', 'must be in the future');
    check.throwIfAny();
    const status = inviteStatus(invite);
    if (status === 'REVOKED' || status === 'ACCEPTED') throw invalidState(`the invite is ${status}`);
    if (accepting && status === 'EXPIRED') throw invalidState('the invite is EXPIRED');
    if (values.str_movimentation_type) {
      const unit = await em.findOneOrFail(ControlUnit, { id: invite.control_unit_id });
      checkMovimentationType(await em.findOneOrFail(Establishment, { id: unit.establishment_id }), values.str_movimentation_type);
    }
    if (values.gta_id && values.gta_id !== invite.gta_id) await checkGtaSeen(em, actor, values.gta_id);
    return em.transactional(async (tx) => {
      if (values.user_id && values.user_id !== invite.user_id && !(await tx.count(User, { id: values.user_id }))) throw DomainError.field('user_id', 'no such user');
      const changes: Record<string, unknown> = {};
      const row = invite as unknown as Record<string, unknown>;
      for (const f of AUTHOR_FIELDS) {
        const v = values[f];
        if (v === undefined || v === null) continue;
        const same = v instanceof Date ? (row[f] as Date | null)?.getTime() === v.getTime() : row[f] === v;
        if (same) continue;
        row[f] = v;
        changes[f] = v;
      }
      if (accepting) {
        invite.bl_accepted = true;
        invite.ts_accepted_at = new Date();
        changes.bl_accepted = true;
      }
      if (!Object.keys(changes).length) return invite;
      tx.persist(invite);
      await tx.flush();
      await appendEvents(tx, [{ type: accepting ? 'INVITE_ACCEPTED' : 'INVITE_UPDATED', recordType: 'Invite', recordId: invite.id, actorId: actor.userId, payload: { changes, refs: { control_unit_id: invite.control_unit_id, organization_id: invite.organization_id } } }]);
      return invite;
    });
  }

  /** The author withdraws the invite (pending or accepted); the access it gave ends. */
  async revoke(em: EntityManager, actor: Actor, id: string): Promise<Invite> {
    const invite = await this.get(em, actor, id);
    if (!invitePolicy.isAuthor(actor, invite)) throw DomainError.forbidden("only the invite's author revokes it");
    if (invite.ts_revoked_at) throw invalidState('the invite is REVOKED');
    return em.transactional(async (tx) => {
      invite.ts_revoked_at = new Date();
      tx.persist(invite);
      await tx.flush();
      await appendEvents(tx, [{ type: 'INVITE_REVOKED', recordType: 'Invite', recordId: invite.id, actorId: actor.userId, payload: { refs: { control_unit_id: invite.control_unit_id, organization_id: invite.organization_id } } }]);
      return invite;
    });
  }

  private async findOrRegister(tx: EntityManager, actor: Actor, to: Required<InviteToUserInput>, events: EventInput[]): Promise<{ user: User; deliver: () => Promise<void> }> {
    const rows = await tx.execute<Record<string, unknown>[]>('select * from "user" where lower(str_email) = ?', [to.str_email]);
    if (rows[0]) return { user: tx.map(User, rows[0] as never), deliver: async () => {} };
    const check = new Checker().required('to_user.str_name', to.str_name).required('to_user.str_document', to.str_document);
    check.throwIfAny();
    if (await tx.count(User, { str_document: to.str_document! })) throw DomainError.conflict('to_user.str_document', 'belongs to a user with another e-mail');
    const user = tx.create(User, { str_name: to.str_name!, str_email: to.str_email!, str_document: to.str_document!, str_type: 'PRODUCER' });
    tx.persist(user);
    const deliver = this.auth.inviteToConfirm(tx, user);
    events.push({ type: 'USER_CREATED', recordType: 'User', recordId: user.id, actorId: actor.userId, payload: { str_email: user.str_email, str_document: user.str_document, organization_id: null, str_role: null, as: 'INVITEE' } });
    return { user, deliver };
  }
}

interface Values {
  gta_id?: string | null;
  user_id?: string | null;
  str_movimentation_type?: string | null;
  str_type?: string | null;
  bl_restricted?: boolean | null;
  ts_expires_at?: Date | null;
}

function normalize(check: Checker, input: InviteInput): Values {
  const out: Values = {};
  if (input.gta_id !== undefined) {
    if (input.gta_id !== null && !isUuid(input.gta_id)) check.add('gta_id', 'must be a uuid');
    else out.gta_id = input.gta_id;
  }
  if (input.user_id !== undefined && input.user_id !== null) {
    if (!isUuid(input.user_id)) check.add('user_id', 'must be a uuid');
    else out.user_id = input.user_id;
  }
  if (input.str_movimentation_type !== undefined && input.str_movimentation_type !== null) {
    if ((MOVIMENTATION_TYPES as readonly string[]).includes(input.str_movimentation_type)) out.str_movimentation_type = input.str_movimentation_type;
    else check.add('str_movimentation_type', `must be one of ${MOVIMENTATION_TYPES.join(', ')}`);
  }
  if (input.str_type !== undefined && input.str_type !== null) {
    if ((INVITE_TYPES as readonly string[]).includes(input.str_type)) out.str_type = input.str_type;
    else check.add('str_type', `must be one of ${INVITE_TYPES.join(', ')}`);
  }
  if (input.bl_restricted !== undefined && input.bl_restricted !== null) out.bl_restricted = input.bl_restricted;
  if (input.ts_expires_at !== undefined && input.ts_expires_at !== null) {
    const d = parseDate(input.ts_expires_at);
    if (!d) check.add('ts_expires_at', 'must be a date-time');
    else out.ts_expires_at = d;
  }
  return out;
}

function normalizeToUser(check: Checker, to: InviteToUserInput): Required<InviteToUserInput> {
  check.required('to_user.str_email', to.str_email);
  const str_email = to.str_email ? normalizeEmail(to.str_email) : null;
  if (str_email) check.when(!isEmail(str_email), 'to_user.str_email', 'must be an e-mail address');
  const str_document = to.str_document ? normalizeDocument(to.str_document) : null;
  if (str_document) check.when(!isDocument(str_document), 'to_user.str_document', 'must be a valid CPF or CNPJ');
  return { str_email, str_name: to.str_name?.trim() || null, str_document };
}

function checkMovimentationType(establishment: Establishment, type: string): void {
  const allowed = establishment.lst_invite_movimentation_types;
  if (allowed && allowed.length && !allowed.includes(type)) throw DomainError.field('str_movimentation_type', `the establishment accepts ${allowed.join(', ')}`);
}

/** An invite names a GTA the author sees; any other id is "no such GTA", as an unknown one. */
async function checkGtaSeen(em: EntityManager, actor: Actor, gtaId: string | null | undefined): Promise<void> {
  if (gtaId && !(await findVisible(em, Gta, 'gta g', gtaPolicy.scope(actor), gtaId.toLowerCase()))) throw DomainError.field('gta_id', 'no such GTA');
}
