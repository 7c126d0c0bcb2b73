import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { isUuid, newId } from '../shared/ids.js';
import type { Mailer } from '../shared/mailer.js';
import { bodyHash, lockClientIds } from '../shared/replay.js';
import { Checker, isDocument, isEmail, normalizeDocument, normalizeEmail } from '../shared/validation.js';
import type { Actor } from './actor.js';
import { CONFIRMATION_TTL_MS } from './auth.service.js';
import { ROLES, type Role } from './membership.entity.js';
import { joinOrganization } from './organization-invite.join.js';
import { OrganizationInvite } from './organization-invite.entity.js';
import { Organization } from './organization.entity.js';
import { hashToken, type Tokens } from './tokens.js';
import { USER_TYPES, type UserType } from './user.entity.js';
import { userPolicy } from './user.policy.js';
import type { UserCreateInput } from './user.service.js';

/** The one answer to an invitation, whoever the address or CPF belongs to. */
export interface Invitation {
  str_status: 'INVITED';
  str_email: string;
}

/** Keeps the `statement` below in one place: which value goes to which placeholder. */
interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Invites a person to the caller's organization by e-mail, name and CPF (POST /api/users,
 * CONTRACT.md "Accounts"). The answer, its errors and its work are the same whether the address
 * or CPF has an account: one statement finds the account or creates it inactive, records the
 * invitation, and stores the mail (confirm-registration for an account without a password, an
 * invitation to accept or decline otherwise); one more appends the events. Mail leaves after
 * the answer.
 */
export class OrganizationInviteService {
  constructor(
    private readonly tokens: Tokens,
    private readonly mailer: Mailer,
    private readonly publicUrl: string,
  ) {}

  async invite(em: EntityManager, actor: Actor, input: UserCreateInput): Promise<Invitation> {
    userPolicy.canCreate(actor);
    if (input.bl_admin) userPolicy.canGrantAdmin(actor);
    const check = new Checker().required('str_name', input.str_name).required('str_email', input.str_email).required('str_document', input.str_document);
    const email = input.str_email ? normalizeEmail(input.str_email) : '';
    const document = input.str_document ? normalizeDocument(input.str_document) : '';
    if (email) check.when(!isEmail(email), 'str_email', 'must be an e-mail address');
    if (document) check.when(!isDocument(document), 'str_document', 'must be a valid CPF or CNPJ');
    if (input.str_type) check.when(!USER_TYPES.includes(input.str_type as UserType), 'str_type', `must be one of ${USER_TYPES.join(', ')}`);
    if (input.str_role) check.when(!ROLES.includes(input.str_role as Role), 'str_role', `must be one of ${ROLES.join(', ')}`);
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    check.throwIfAny();
    const role = (input.str_role as Role | undefined) ?? 'OPERATOR';
    if (role === 'OWNER' && !actor.isAdmin && actor.role !== 'OWNER') throw DomainError.forbidden('only an owner grants the OWNER role');
    const answer: Invitation = { str_status: 'INVITED', str_email: email };
    const hash = bodyHash({ ...input, id: undefined });
    const invitationId = input.id ?? newId();
    const confirmToken = this.tokens.newOpaque();
    const inviteToken = this.tokens.newOpaque();
    const expiresAt = new Date(Date.now() + CONFIRMATION_TTL_MS);
    const mailId = newId();
    const sent = await em.transactional(async (tx) => {
      if (input.id && (await this.replayed(tx, actor, input.id, hash))) return null;
      const organization = actor.organizationId ? await tx.findOne(Organization, { id: actor.organizationId }) : null;
      const mails = (to: string) => this.mails({ to, mailId, organization: organization?.str_name ?? null, confirmToken, inviteToken, expiresAt });
      const placeholder = mails(email);
      const statement: Statement = {
        sql: `with found as (
                select id, str_email, ts_registration_confirmed_at is not null as active from "user"
                where lower(str_email) = ? or str_document = ? order by (lower(str_email) = ?) desc, id limit 1),
              created as (
                insert into "user" (id, str_name, str_email, str_document, str_type, bl_admin, str_phone)
                select ?, ?, ?, ?, ?, ?, ? where not exists (select 1 from found)
                on conflict do nothing returning id, str_email, false as active),
              target as (select * from found union all select * from created),
              invite as (
                insert into organization_invite (id, organization_id, user_id, invited_by_user_id, str_role, str_status, bl_joins_on_confirmation, token_hash, ts_expires_at)
                select ?, o.id, t.id, ?, ?, 'PENDING', not t.active, case when t.active then ? end, ? from target t join organization o on o.id = ?::uuid
                on conflict (organization_id, user_id) where str_status = 'PENDING' do update
                  set invited_by_user_id = excluded.invited_by_user_id, str_role = excluded.str_role, bl_joins_on_confirmation = excluded.bl_joins_on_confirmation,
                      token_hash = excluded.token_hash, ts_expires_at = excluded.ts_expires_at, ts_updated_at = now()
                returning id),
              confirm as (
                insert into user_token (id, user_id, str_purpose, token_hash, ts_expires_at)
                select ?, t.id, 'CONFIRM_REGISTRATION', ?, ? from target t where not t.active),
              mail as (
                insert into sent_message (id, str_to, str_subject, str_template, str_body, str_redacted_body, str_status, ts_redact_at)
                select ?, t.str_email, case when t.active then ? else ? end, case when t.active then ? else ? end, case when t.active then ? else ? end,
                       case when t.active then ? else ? end, ?, ? from target t where not t.active or ?::uuid is not null)
              select t.id, t.str_email, t.active, exists (select 1 from created) as created, (select id from invite) as invite_id from target t`,
        params: [
          email, document, email,
          newId(), input.str_name!.trim(), email, document, (input.str_type as UserType | undefined) ?? 'OTHER', input.bl_admin ?? false, input.str_phone ?? null,
          newId(), actor.userId, role, hashToken(inviteToken), expiresAt, actor.organizationId,
          newId(), hashToken(confirmToken), expiresAt,
          mailId, placeholder.invite.kept.str_subject, placeholder.confirm.kept.str_subject, placeholder.invite.kept.str_template, placeholder.confirm.kept.str_template,
          placeholder.invite.kept.str_body, placeholder.confirm.kept.str_body, placeholder.invite.kept.str_redacted_body, placeholder.confirm.kept.str_redacted_body,
          placeholder.confirm.kept.str_status, placeholder.confirm.kept.ts_redact_at, actor.organizationId,
        ],
      };
      // Two senders of one new address at once: the second's insert waits for the first and finds nothing; read again.
      let target = (await tx.execute<TargetRow[]>(statement.sql, statement.params))[0];
      target ??= (await tx.execute<TargetRow[]>(statement.sql, statement.params))[0];
      if (!target) throw DomainError.conflict('str_email', 'is being invited by another request: try again');
      await appendEvents(tx, this.events(actor, invitationId, target, { email, document, role, hash }));
      const mail = mails(target.str_email);
      return target.active ? (actor.organizationId ? mail.invite : null) : mail.confirm;
    });
    // After the answer, as password recovery: SMTP never makes one case slower than the other.
    if (sent) setImmediate(() => void sent.deliver());
    return answer;
  }

  /** Accepts (joins the organization) or declines the invitation the token was mailed with. */
  async decide(em: EntityManager, token: string | null | undefined, accept: boolean): Promise<void> {
    new Checker().required('str_token', token).throwIfAny();
    await em.transactional(async (tx) => {
      const invite = await tx.findOne(OrganizationInvite, { token_hash: hashToken(token!) }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!invite || invite.str_status !== 'PENDING' || invite.ts_expires_at.getTime() < Date.now()) throw DomainError.field('str_token', 'is invalid, used or expired');
      const events = accept ? await joinOrganization(tx, invite) : [];
      if (!accept) {
        invite.str_status = 'DECLINED';
        invite.ts_decided_at = new Date();
        events.push({ type: 'ORGANIZATION_INVITE_DECLINED', recordType: 'OrganizationInvite', recordId: invite.id, actorId: invite.user_id, payload: { organization_id: invite.organization_id } });
      }
      await tx.flush();
      await appendEvents(tx, events);
    });
  }

  /** A create sent again with its client id: the same answer, nothing done twice; CONFLICT for another body or organization. */
  private async replayed(tx: EntityManager, actor: Actor, id: string, hash: string): Promise<boolean> {
    await lockClientIds(tx, [id]);
    const rows = await tx.execute<{ str_payload: string }[]>(`select str_payload from event where str_record_type = 'UserInvitation' and record_id = ? and str_type = 'USER_INVITED' order by seq limit 1`, [id]);
    if (!rows[0]) return false;
    const original = JSON.parse(rows[0].str_payload) as { body_hash?: string; organization_id?: string | null };
    if (original.body_hash === hash && (original.organization_id ?? null) === actor.organizationId) return true;
    throw DomainError.conflict('id', 'is already taken by a record created with another body');
  }

  private events(actor: Actor, invitationId: string, target: TargetRow, o: { email: string; document: string; role: Role; hash: string }): EventInput[] {
    const events: EventInput[] = [
      { type: 'USER_INVITED', recordType: 'UserInvitation', recordId: invitationId, actorId: actor.userId, payload: { str_email: o.email, str_document: o.document, organization_id: actor.organizationId, str_role: o.role, user_id: target.id, organization_invite_id: target.invite_id, body_hash: o.hash } },
    ];
    if (target.created) events.push({ type: 'USER_CREATED', recordType: 'User', recordId: target.id, actorId: actor.userId, payload: { str_email: o.email, str_document: o.document, organization_id: null, str_role: null, as: 'INVITEE' } });
    return events;
  }

  /** Both mails, stored under one id: the statement keeps the one that fits the account. */
  private mails(o: { to: string; mailId: string; organization: string | null; confirmToken: string; inviteToken: string; expiresAt: Date }) {
    const where = o.organization ? ` to ${o.organization}` : '';
    return {
      confirm: this.mailer.prepare({
        id: o.mailId,
        to: o.to,
        subject: 'Confirm your registration',
        template: 'CONFIRM_REGISTRATION',
        secretsExpireAt: o.expiresAt,
        body: `An account was created for you${where ? `, invited${where}` : ''}. Choose your password with this code within 7 days: ${o.confirmToken}\n${this.publicUrl}/confirm-registration?token=${o.confirmToken}`,
        secrets: [o.confirmToken],
      }),
      invite: this.mailer.prepare({
        id: o.mailId,
        to: o.to,
        subject: `You are invited${where}`,
        template: 'ORGANIZATION_INVITE',
        secretsExpireAt: o.expiresAt,
        body: `You are invited${where}. Accept (or decline) with this code within 7 days: ${o.inviteToken}\n${this.publicUrl}/organization-invites?token=${o.inviteToken}`,
        secrets: [o.inviteToken],
      }),
    };
  }
}

interface TargetRow {
  id: string;
  str_email: string;
  active: boolean;
  created: boolean;
  invite_id: string | null;
}
