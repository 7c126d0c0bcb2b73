import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import type { Mailer } from '../shared/mailer.js';
import type { SmsSender } from '../shared/sms.js';
import { Checker } from '../shared/validation.js';
import type { Actor } from './actor.js';
import type { SendThrottle } from './throttle.js';

export const VERIFICATION_CHANNELS = ['EMAIL', 'SMS'] as const;
export type VerificationChannel = (typeof VERIFICATION_CHANNELS)[number];

/** DOMAIN.md, "Singletons": 6 digits, 10 minutes, 5 attempts. */
export const CODE_TTL_MS = 10 * 60_000;
export const MAX_ATTEMPTS = 5;

export interface UserVerificationSendInput {
  str_channel?: string | null;
}

/** User Verification Verify Code (interface.md). */
export interface UserVerificationVerifyInput {
  str_verification_code?: string | null;
  user_id?: string | null;
}

export interface VerificationSent {
  user_id: string;
  str_channel: VerificationChannel;
  /** Where it went, masked. */
  str_destination: string;
  ts_expires_at: Date;
  int_attempts_left: number;
}

export interface VerificationResult {
  user_id: string;
  bl_verified: boolean;
}

interface CodeRow {
  str_channel: VerificationChannel;
  str_code_hash: string;
  int_attempts: number;
  ts_expires_at: Date | string;
}

/**
 * User Verification: a 6-digit code by e-mail (the mailer) or SMS (the sender), one live code per
 * user (a new one replaces it), kept as an HMAC-SHA256 under a server-side pepper: a million
 * possible codes make a slow hash pointless against someone holding the table, a key they do not
 * hold is not. Sends are throttled per user; a code takes MAX_ATTEMPTS guesses, then a new one is needed.
 */
export class UserVerificationService {
  constructor(
    private readonly mailer: Mailer,
    /** Public so a deployment (or a test) can plug in another sender. */
    public sms: SmsSender,
    private readonly pepper: string,
    private readonly throttle: SendThrottle,
    private readonly log: Logger,
  ) {}

  async send(em: EntityManager, actor: Actor, input: UserVerificationSendInput): Promise<VerificationSent> {
    const check = new Checker();
    check.required('str_channel', input.str_channel);
    const channel = input.str_channel as VerificationChannel;
    if (input.str_channel) check.when(!VERIFICATION_CHANNELS.includes(channel), 'str_channel', `must be one of ${VERIFICATION_CHANNELS.join(', ')}`);
    check.throwIfAny();
    const [user] = await em.execute<{ str_email: string; str_phone: string | null; bl_verified: boolean }[]>('select str_email, str_phone, bl_verified from "user" where id = ?', [actor.userId]);
    if (!user) throw DomainError.unauthenticated('the user no longer exists');
    if (user.bl_verified) throw new DomainError('INVALID_STATE', { bl_verified: true, message: 'the user is already verified' });
    if (channel === 'SMS' && !user.str_phone) throw DomainError.field('str_channel', 'SMS needs a str_phone on the user (PUT /api/self-update)');
    await this.throttle.admit(actor.userId);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
    const destination = channel === 'EMAIL' ? user.str_email : user.str_phone!;
    const deliver = await em.transactional(async (tx) => {
      await tx.execute(
        `insert into user_verification_code (user_id, str_channel, str_code_hash, int_attempts, ts_expires_at, ts_created_at) values (?, ?, ?, 0, ?, ?)
         on conflict (user_id) do update set str_channel = excluded.str_channel, str_code_hash = excluded.str_code_hash, int_attempts = 0, ts_expires_at = excluded.ts_expires_at, ts_created_at = excluded.ts_created_at`,
        [actor.userId, channel, this.hash(actor.userId, code), expiresAt, now],
      );
      await appendEvents(tx, [{ type: 'USER_VERIFICATION_SENT', recordType: 'User', recordId: actor.userId, actorId: actor.userId, occurredAt: now, payload: { str_channel: channel, ts_expires_at: expiresAt.toISOString() } }]);
      const text = `Your verification code is ${code}. It expires in 10 minutes.`;
      if (channel === 'EMAIL') {
        const mail = this.mailer.queue(tx, { to: destination, subject: 'Your verification code', template: 'USER_VERIFICATION', body: text, secrets: [code], secretsExpireAt: expiresAt });
        await tx.flush();
        return mail;
      }
      return () => this.sms.send(destination, text).catch((err: unknown) => this.log.error({ err }, 'SMS delivery failed'));
    });
    await deliver();
    return { user_id: actor.userId, str_channel: channel, str_destination: mask(channel, destination), ts_expires_at: expiresAt, int_attempts_left: MAX_ATTEMPTS };
  }

  /**
   * The right code sets bl_verified and ends the code; a wrong one spends an attempt (committed,
   * then refused). Once the user is verified no code is pending, so every code (the used one
   * included) is refused as a wrong code: a 200 would tell a guesser nothing but let a stale
   * client believe a code it never checked.
   */
  async verify(em: EntityManager, actor: Actor, input: UserVerificationVerifyInput): Promise<VerificationResult> {
    const userId = input.user_id?.toLowerCase() ?? actor.userId;
    const check = new Checker();
    check.required('str_verification_code', input.str_verification_code);
    const code = input.str_verification_code?.trim() ?? '';
    if (input.str_verification_code) check.when(!/^\d{6}$/.test(code), 'str_verification_code', 'must be 6 digits');
    if (input.user_id) check.when(!isUuid(input.user_id), 'user_id', 'must be a uuid');
    check.throwIfAny();
    if (userId !== actor.userId) throw DomainError.forbidden('a user verifies itself: user_id must be the caller');
    const outcome = await em.transactional(async (tx) => {
      const [user] = await tx.execute<{ bl_verified: boolean }[]>('select bl_verified from "user" where id = ? for update', [userId]);
      if (!user) throw DomainError.unauthenticated('the user no longer exists');
      if (user.bl_verified) return { verified: false, left: null } as const;
      const [row] = await tx.execute<CodeRow[]>('select str_channel, str_code_hash, int_attempts, ts_expires_at from user_verification_code where user_id = ? for update', [userId]);
      if (!row) throw new DomainError('INVALID_STATE', { message: 'no verification code is pending: request one (POST /api/user-verification)' });
      if (new Date(row.ts_expires_at).getTime() <= Date.now()) throw new DomainError('INVALID_STATE', { message: 'the verification code expired: request a new one' });
      if (row.int_attempts >= MAX_ATTEMPTS) throw new DomainError('INVALID_STATE', { int_attempts: row.int_attempts, message: `the code took ${MAX_ATTEMPTS} wrong attempts: request a new one` });
      const now = new Date();
      if (!this.matches(row.str_code_hash, userId, code)) {
        const attempts = row.int_attempts + 1;
        await tx.execute('update user_verification_code set int_attempts = ? where user_id = ?', [attempts, userId]);
        await appendEvents(tx, [{ type: 'USER_VERIFICATION_FAILED', recordType: 'User', recordId: userId, actorId: actor.userId, occurredAt: now, payload: { str_channel: row.str_channel, int_attempts: attempts } }]);
        return { verified: false, left: MAX_ATTEMPTS - attempts } as const;
      }
      await tx.execute('delete from user_verification_code where user_id = ?', [userId]);
      await tx.execute('update "user" set bl_verified = true, ts_updated_at = ? where id = ?', [now, userId]);
      await appendEvents(tx, [{ type: 'USER_VERIFIED', recordType: 'User', recordId: userId, actorId: actor.userId, occurredAt: now, payload: { changes: { bl_verified: { from: false, to: true } }, str_channel: row.str_channel } }]);
      return { verified: true } as const;
    });
    if (!outcome.verified && outcome.left === null) throw DomainError.field('str_verification_code', 'is wrong; the user is already verified, no code is pending');
    if (!outcome.verified) {
      const more = outcome.left > 0 ? `${outcome.left} attempt${outcome.left === 1 ? '' : 's'} left` : 'no attempts left: request a new code';
      throw DomainError.field('str_verification_code', `is wrong; ${more}`);
    }
    return { user_id: userId, bl_verified: true };
  }

  private hash(userId: string, code: string): string {
    return createHmac('sha256', this.pepper).update(`${userId}:${code}`).digest('hex');
  }

  private matches(stored: string, userId: string, code: string): boolean {
    const a = Buffer.from(stored, 'hex');
    const b = Buffer.from(this.hash(userId, code), 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** j***@example.com, *******4321: enough for the user to know where to look. */
export function mask(channel: VerificationChannel, to: string): string {
  if (channel === 'SMS') return to.length <= 4 ? '*'.repeat(to.length) : `${'*'.repeat(to.length - 4)}${to.slice(-4)}`;
  const at = to.indexOf('@');
  return at <= 1 ? `*${to.slice(Math.max(at, 0))}` : `${to[0]}***${to.slice(at)}`;
}
