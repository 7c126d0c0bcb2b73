import type { Db } from '../db/sql.js';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { appendEvent, appendEvents } from '../shared/events.js';
import type { Mailer } from '../shared/mailer.js';
import { Checker, checkPassword, isEmail, normalizeDocument, normalizeEmail } from '../shared/validation.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { Actor } from './actor.js';
import { ActorCache, type ActorRow } from './actor-cache.js';
import type { Role } from './membership.entity.js';
import { Membership } from './membership.entity.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { AuthSession, RefreshToken, UserToken, type UserTokenPurpose } from './session.entity.js';
import type { LoginThrottle } from './throttle.js';
import { ACCESS_TTL_SECONDS, REFRESH_GRACE_MS, REFRESH_TTL_MS, hashToken, type Tokens } from './tokens.js';
import { User } from './user.entity.js';
import { joinOnConfirmation } from './organization-invite.join.js';
import { TERMS_PENDING_SQL } from './privacy-terms.reader.js';
import { MAY_BE_GRANTED_SQL } from '../access/sharing.policy.js';

export interface TokenPair {
  str_access_token: string;
  str_refresh_token: string;
  str_token_type: 'Bearer';
  int_expires_in: number;
  user: User;
}

export interface LoginInput {
  str_email?: string | null;
  str_document?: string | null;
  str_password?: string | null;
}

const RECOVERY_TTL_MS = 3600 * 1000;
export const CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;

export class AuthService {
  constructor(
    private readonly tokens: Tokens,
    private readonly throttle: LoginThrottle,
    private readonly mailer: Mailer,
    private readonly publicUrl: string,
    /** TERMS_REQUIRED: authenticate also says whether the user still has to accept the current terms. */
    private readonly termsRequired = false,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The actors this process has authenticated (issue 23): a request on a session seen before runs
   * no statement. On only while its change listener is connected (src/identity/actor-listener.ts).
   */
  readonly actors = new ActorCache();

  /**
   * Resolves the bearer token to an actor: from the cache, or in one statement (named: parsed and
   * planned once per connection) on the read side. A revoked session or a deleted user is a 401.
   */
  async authenticate(db: Db, bearer: string): Promise<Actor> {
    const claims = this.tokens.verifyAccess(bearer);
    const key = ActorCache.key(claims.sub, claims.sid, claims.org);
    let row = await this.actors.lookup(key);
    if (!row) {
      const mark = this.actors.mark();
      const rows = await db.rows<ActorRow & { str_type: Actor['userType']; str_role: Role | null }>({
        sql: `select u.bl_admin, u.str_type, u.county_id, uc.str_federative_unit as str_county_federative_unit, m.str_role, s.ts_revoked_at,
                     ${MAY_BE_GRANTED_SQL} as bl_may_be_granted${this.termsRequired ? `, ${TERMS_PENDING_SQL} as bl_terms_pending` : ''}
                from auth_session s
                join "user" u on u.id = s.user_id
                left join county uc on uc.id = u.county_id
                left join membership m on m.user_id = u.id and m.organization_id = ?::uuid
               where s.id = ? and u.id = ?`,
        params: [claims.org ?? null, claims.org ?? null, claims.sid, claims.sub],
      });
      row = rows[0];
      if (row) this.actors.store(key, claims.sub, row, mark);
    }
    if (!row || row.ts_revoked_at) throw DomainError.unauthenticated('token revoked');
    const organizationId = claims.org && row.str_role ? claims.org : null;
    return {
      userId: claims.sub,
      isAdmin: row.bl_admin,
      userType: row.str_type as Actor['userType'],
      countyId: row.county_id,
      federativeUnit: row.str_county_federative_unit ?? null,
      organizationId,
      role: organizationId ? (row.str_role as Role) : null,
      sessionId: claims.sid,
      jti: claims.jti,
      tokenExpiresAt: claims.exp,
      now: this.clock.now(),
      mayBeGranted: row.bl_may_be_granted ?? true,
      ...(row.bl_terms_pending ? { termsPending: true } : {}),
    };
  }

  async login(em: EntityManager, input: LoginInput, address: string): Promise<TokenPair> {
    const check = new Checker();
    if (!input.str_email && !input.str_document) check.add('str_email', 'str_email or str_document is required');
    if (!input.str_password) check.add('str_password', 'is required');
    check.throwIfAny();
    const login = input.str_email ? normalizeEmail(input.str_email) : normalizeDocument(input.str_document!);
    const user = input.str_email
      ? await em.findOne(User, { str_email: login })
      : await em.findOne(User, { str_document: login });
    // One counter per account, whichever login names it.
    const account = user ? `user:${user.id}` : `login:${login}`;
    await this.throttle.admit(account, address);
    const ok = await verifyPassword(user?.password_hash ?? null, input.str_password!);
    // The attempt was counted by admit: a failure leaves it counted, the right password clears the count.
    if (!user || !ok) throw new DomainError('INVALID_CREDENTIALS', 'wrong login or password');
    await this.throttle.succeeded(account, address);
    if (!user.ts_registration_confirmed_at) throw DomainError.forbidden('registration not confirmed');
    return em.transactional(async (tx) => {
      const session = tx.create(AuthSession, { user_id: user.id });
      tx.persist(session);
      const org = user.organization_id && (await this.isMember(tx, user.id, user.organization_id)) ? user.organization_id : null;
      const pair = this.issue(tx, user, session.id, org);
      await tx.flush();
      await appendEvent(tx, { type: 'SESSION_STARTED', recordType: 'User', recordId: user.id, actorId: user.id, payload: { session_id: session.id, address } });
      return pair;
    });
  }

  async refresh(em: EntityManager, refreshToken: string | null | undefined): Promise<TokenPair> {
    if (!refreshToken) throw DomainError.field('refresh_token', 'is required');
    return em.transactional(async (tx) => {
      const row = await tx.findOne(RefreshToken, { token_hash: hashToken(refreshToken) }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!row) throw DomainError.unauthenticated('invalid refresh token');
      const session = await tx.findOne(AuthSession, { id: row.session_id });
      if (!session || session.ts_revoked_at) throw DomainError.unauthenticated('refresh token revoked');
      const user = await tx.findOneOrFail(User, { id: session.user_id });
      const now = Date.now();
      if (row.ts_used_at) {
        if (now - row.ts_used_at.getTime() <= REFRESH_GRACE_MS && row.next_jti && row.next_iat) {
          // A field app that lost the response retries: give it the very same pair again.
          return this.pair(user, this.tokens.successorOf(refreshToken), this.tokens.signAccess({ sub: user.id, org: row.organization_id, sid: session.id, jti: row.next_jti, iat: row.next_iat }).token);
        }
        session.ts_revoked_at = new Date();
        session.str_revoke_reason = 'REFRESH_TOKEN_REUSE';
        await tx.flush();
        await appendEvent(tx, { type: 'SESSION_REVOKED', recordType: 'User', recordId: user.id, actorId: null, payload: { session_id: session.id, reason: 'REFRESH_TOKEN_REUSE' } });
        // The revocation must survive the error: commit it, then refuse.
        return null;
      }
      if (row.ts_expires_at.getTime() < now) throw DomainError.unauthenticated('refresh token expired');
      const access = this.tokens.signAccess({ sub: user.id, org: row.organization_id, sid: session.id });
      row.ts_used_at = new Date(now);
      row.next_jti = access.jti;
      row.next_iat = access.iat;
      const successor = this.tokens.successorOf(refreshToken);
      tx.persist(tx.create(RefreshToken, { session_id: session.id, token_hash: hashToken(successor), organization_id: row.organization_id, ts_expires_at: new Date(now + REFRESH_TTL_MS) }));
      await tx.flush();
      return this.pair(user, successor, access.token);
    }).then((pair) => {
      if (!pair) throw DomainError.unauthenticated('refresh token reused; the session is revoked');
      return pair;
    });
  }

  async logout(em: EntityManager, actor: Actor): Promise<void> {
    await em.transactional(async (tx) => {
      await this.revokeSessions(tx, actor.userId, 'LOGOUT', actor.sessionId);
      await appendEvent(tx, { type: 'SESSION_REVOKED', recordType: 'User', recordId: actor.userId, actorId: actor.userId, payload: { session_id: actor.sessionId, reason: 'LOGOUT' } });
    });
  }

  async changeOrg(em: EntityManager, actor: Actor, organizationId: string | null | undefined): Promise<TokenPair> {
    if (!organizationId) throw DomainError.field('organization_id', 'is required');
    return em.transactional(async (tx) => {
      if (!(await this.isMember(tx, actor.userId, organizationId))) throw DomainError.notFound('organization');
      return this.switchProfile(tx, actor, organizationId);
    });
  }

  resetProfile(em: EntityManager, actor: Actor): Promise<TokenPair> {
    return em.transactional((tx) => this.switchProfile(tx, actor, null));
  }

  async changePassword(tx: EntityManager, user: User, actor: Actor, current: string | null | undefined, next: string | null | undefined): Promise<void> {
    const check = new Checker();
    if (!current) check.add('str_current_password', 'is required to change the password');
    checkPassword(check, 'str_new_password', next);
    check.throwIfAny();
    if (!(await verifyPassword(user.password_hash, current!))) throw DomainError.field('str_current_password', 'does not match');
    user.password_hash = await hashPassword(next!);
    await this.revokeSessions(tx, user.id, 'PASSWORD_CHANGED', undefined, actor.sessionId);
  }

  /**
   * Always the same work, known address or not (no account enumeration by timing): a token and its
   * mail are made either way, and one statement stores them only when the address is a user's. The
   * known address's delivery runs after the answer (SMTP never delays it), the unknown's not at all.
   */
  async requestRecovery(em: EntityManager, email: string | null | undefined): Promise<void> {
    if (!email || !isEmail(normalizeEmail(email))) throw DomainError.field('str_email', 'must be an e-mail address');
    const address = normalizeEmail(email);
    const token = this.tokens.newOpaque();
    const expiresAt = new Date(Date.now() + RECOVERY_TTL_MS);
    const mail = this.mailer.prepare({
      to: address,
      subject: 'Password recovery',
      template: 'PASSWORD_RECOVERY',
      body: `Use this code within one hour to choose a new password: ${token}\n${this.publicUrl}/recover-password?token=${token}`,
      secrets: [token],
      secretsExpireAt: expiresAt,
    });
    const m = mail.kept;
    const known = await em.execute<{ id: string }[]>(
      `with u as (select id, str_email from "user" where lower(str_email) = ?),
            t as (insert into user_token (id, user_id, str_purpose, token_hash, ts_expires_at) select ?, u.id, 'RECOVER_PASSWORD', ?, ? from u),
            m as (insert into sent_message (id, str_to, str_subject, str_template, str_body, str_redacted_body, str_status, ts_redact_at) select ?, u.str_email, ?, ?, ?, ?, ?, ? from u)
       select id from u`,
      [address, newId(), hashToken(token), expiresAt, m.id, m.str_subject, m.str_template, m.str_body, m.str_redacted_body, m.str_status, m.ts_redact_at],
    );
    if (known.length) setImmediate(() => void mail.deliver());
  }

  recoverPassword(em: EntityManager, token: string | null | undefined, password: string | null | undefined): Promise<void> {
    return this.redeem(em, 'RECOVER_PASSWORD', token, password);
  }

  confirmRegistration(em: EntityManager, token: string | null | undefined, password: string | null | undefined): Promise<void> {
    return this.redeem(em, 'CONFIRM_REGISTRATION', token, password);
  }

  /** Issues a confirm-registration token for a user someone else created; the caller commits and then delivers the mail. */
  inviteToConfirm(tx: EntityManager, user: User): () => Promise<void> {
    const token = this.issueUserToken(tx, user.id, 'CONFIRM_REGISTRATION', CONFIRMATION_TTL_MS);
    return this.mailer.queue(tx, {
      to: user.str_email,
      subject: 'Confirm your registration',
      template: 'CONFIRM_REGISTRATION',
      secretsExpireAt: new Date(Date.now() + CONFIRMATION_TTL_MS),
      body: `An account was created for you. Choose your password with this code within 7 days: ${token}\n${this.publicUrl}/confirm-registration?token=${token}`,
      secrets: [token],
    });
  }

  private async redeem(em: EntityManager, purpose: UserTokenPurpose, token: string | null | undefined, password: string | null | undefined): Promise<void> {
    const check = new Checker().required('str_token', token);
    checkPassword(check, 'str_password', password);
    check.throwIfAny();
    await em.transactional(async (tx) => {
      const row = await tx.findOne(UserToken, { token_hash: hashToken(token!), str_purpose: purpose }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!row || row.ts_used_at || row.ts_expires_at.getTime() < Date.now()) throw DomainError.field('str_token', 'is invalid, used or expired');
      const user = await tx.findOneOrFail(User, { id: row.user_id });
      row.ts_used_at = new Date();
      user.password_hash = await hashPassword(password!);
      if (purpose === 'CONFIRM_REGISTRATION') user.ts_registration_confirmed_at ??= new Date();
      await this.revokeSessions(tx, user.id, 'PASSWORD_CHANGED');
      // An account created by an invitation joins its organization now (its consent).
      const joined = purpose === 'CONFIRM_REGISTRATION' ? await joinOnConfirmation(tx, user.id) : [];
      await tx.flush();
      await appendEvents(tx, [{ type: purpose === 'CONFIRM_REGISTRATION' ? 'USER_REGISTRATION_CONFIRMED' : 'USER_PASSWORD_RECOVERED', recordType: 'User', recordId: user.id, actorId: user.id, payload: {} }, ...joined]);
    });
  }

  private issueUserToken(tx: EntityManager, userId: string, purpose: UserTokenPurpose, ttlMs: number): string {
    const token = this.tokens.newOpaque();
    tx.persist(tx.create(UserToken, { user_id: userId, str_purpose: purpose, token_hash: hashToken(token), ts_expires_at: new Date(Date.now() + ttlMs) }));
    return token;
  }

  private async switchProfile(tx: EntityManager, actor: Actor, organizationId: string | null): Promise<TokenPair> {
    const user = await tx.findOneOrFail(User, { id: actor.userId });
    user.organization_id = organizationId;
    // The old pair stops working: the caller continues on the new one.
    await this.revokeSessions(tx, actor.userId, 'PROFILE_CHANGED', actor.sessionId);
    const session = tx.create(AuthSession, { user_id: user.id });
    tx.persist(session);
    const pair = this.issue(tx, user, session.id, organizationId);
    await tx.flush();
    return pair;
  }

  /** Revokes one session (only), or every session of the user except one. */
  private async revokeSessions(tx: EntityManager, userId: string, reason: string, only?: string, except?: string): Promise<void> {
    const where: Record<string, unknown> = { user_id: userId, ts_revoked_at: null };
    if (only) where.id = only;
    if (except) where.id = { $ne: except };
    await tx.nativeUpdate(AuthSession, where, { ts_revoked_at: new Date(), str_revoke_reason: reason });
  }

  private issue(tx: EntityManager, user: User, sessionId: string, organizationId: string | null): TokenPair {
    const refresh = this.tokens.newOpaque();
    tx.persist(tx.create(RefreshToken, { session_id: sessionId, token_hash: hashToken(refresh), organization_id: organizationId, ts_expires_at: new Date(Date.now() + REFRESH_TTL_MS) }));
    const access = this.tokens.signAccess({ sub: user.id, org: organizationId, sid: sessionId });
    return this.pair(user, refresh, access.token);
  }

  private pair(user: User, refresh: string, access: string): TokenPair {
    return { str_access_token: access, str_refresh_token: refresh, str_token_type: 'Bearer', int_expires_in: ACCESS_TTL_SECONDS, user };
  }

  private async isMember(em: EntityManager, userId: string, organizationId: string): Promise<boolean> {
    return (await em.count(Membership, { user_id: userId, organization_id: organizationId })) > 0;
  }
}
