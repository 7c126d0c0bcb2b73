import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../shared/errors.js';

/**
 * Login throttling: failed attempts per login, and every attempt per client address.
 * Kept in process memory: one instance per process (see README, "Scaling out").
 */
export class LoginThrottle {
  private readonly perLogin: RateLimiterMemory;
  private readonly perAddress: RateLimiterMemory;

  constructor(limits: { perLogin: number; perAddress: number; windowSeconds: number }) {
    this.perLogin = new RateLimiterMemory({ keyPrefix: 'login', points: limits.perLogin, duration: limits.windowSeconds });
    this.perAddress = new RateLimiterMemory({ keyPrefix: 'addr', points: limits.perAddress, duration: limits.windowSeconds });
  }

  /** Refuses before any password is checked when either budget is spent; spends one address point. */
  async admit(login: string, address: string): Promise<void> {
    const blocked = await this.perLogin.get(login);
    if (blocked && blocked.remainingPoints <= 0) throw limited(blocked);
    try {
      await this.perAddress.consume(address);
    } catch (res) {
      if (res instanceof RateLimiterRes) throw limited(res);
      throw res;
    }
  }

  async failed(login: string): Promise<void> {
    await this.perLogin.penalty(login, 1);
  }

  async succeeded(login: string): Promise<void> {
    await this.perLogin.delete(login);
  }
}

function limited(res: RateLimiterRes): DomainError {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new DomainError('RATE_LIMITED', `too many login attempts; retry in ${seconds} s`, seconds);
}
