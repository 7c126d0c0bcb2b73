import { createHash } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DomainError } from '../shared/errors.js';

interface Limits {
  perLogin: number;
  perAddress: number;
  windowSeconds: number;
}

/**
 * Login throttling: failed attempts per account and client address, and every attempt per client
 * address. An account is the user however it signs in (e-mail or document: one counter), or the
 * login as typed when there is no such user. Failures from one address slow that address down
 * for that account; the owner signing in from elsewhere is never locked out by a guesser.
 * On PostgreSQL the counters live in the database (`login_throttle`), shared by every instance;
 * on PGlite (one process) in memory.
 */
export class LoginThrottle {
  private readonly perAccount: RateLimiterAbstract;
  private readonly perAddress: RateLimiterAbstract;

  constructor(limits: Limits, pool?: pg.Pool) {
    const make = (keyPrefix: string, points: number) =>
      pool
        ? new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: 'login_throttle', tableCreated: true, clearExpiredByTimeout: false, keyPrefix, points, duration: limits.windowSeconds })
        : new RateLimiterMemory({ keyPrefix, points, duration: limits.windowSeconds });
    this.perAccount = make('account', limits.perLogin);
    this.perAddress = make('addr', limits.perAddress);
  }

  /**
   * Counts this attempt against the account (and the address) before any password is checked, in
   * one atomic step of the store: parallel guesses, on one instance or several, cannot all read a
   * count below the limit. Refuses once either budget is spent. A success clears the account's count.
   */
  async admit(account: string, address: string): Promise<void> {
    const key = keyOf(account, address);
    await spend(this.perAccount, key);
    // Refused for its address: the account's point was not an attempt at the password.
    await spend(this.perAddress, bounded(address)).catch(async (err: unknown) => {
      await this.perAccount.reward(key, 1);
      throw err;
    });
  }

  async succeeded(account: string, address: string): Promise<void> {
    await this.perAccount.delete(keyOf(account, address));
  }
}

async function spend(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (res instanceof RateLimiterRes) throw limited(res);
    throw res;
  }
}

/**
 * A counter's key within login_throttle's varchar(255), the store's own prefix (`account:`) included:
 * a long one (a 255-character login, a long X-Forwarded-For) is its start and its sha256, so two
 * long logins never share a counter and none is a 500.
 */
function bounded(key: string): string {
  return key.length <= 200 ? key : `${key.slice(0, 100)}#${createHash('sha256').update(key).digest('hex')}`;
}

const keyOf = (account: string, address: string) => bounded(`${account}|${address}`);

function limited(res: RateLimiterRes): DomainError {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new DomainError('RATE_LIMITED', `too many login attempts; retry in ${seconds} s`, seconds);
}

/**
 * At most one verification code sent per user per interval, counted like login attempts: in
 * login_throttle on PostgreSQL (every instance shares it), in memory on PGlite.
 */
export class SendThrottle {
  private readonly limiter: RateLimiterAbstract;

  constructor(intervalSeconds: number, pool?: pg.Pool) {
    this.limiter = pool
      ? new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: 'login_throttle', tableCreated: true, clearExpiredByTimeout: false, keyPrefix: 'verify', points: 1, duration: intervalSeconds })
      : new RateLimiterMemory({ keyPrefix: 'verify', points: 1, duration: intervalSeconds });
  }

  async admit(userId: string): Promise<void> {
    try {
      await this.limiter.consume(userId);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      throw new DomainError('RATE_LIMITED', `a verification code was sent moments ago; retry in ${seconds} s`, seconds);
    }
  }
}
