import { createHash, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { systemClock, type Clock } from '../shared/clock.js';

export const ACCESS_TTL_SECONDS = 15 * 60;
export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
export const REFRESH_GRACE_MS = 30 * 1000;
const ALGORITHM = 'HS256';
/** Tokens kept verified: one per signed-in client this process serves within 15 minutes, about 600 bytes each. */
export const VERIFIED_TOKENS_MAX = 10_000;

export interface AccessClaims {
  sub: string;
  org?: string;
  /** The login session (refresh family): revoking it denies its access tokens at once. */
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface TokenSettings {
  secret: string;
  issuer: string;
  audience: string;
}

export class Tokens {
  /** Built once: given a string, jsonwebtoken tries it as a public key on every call before making a secret key of it. */
  private readonly key: KeyObject;
  /**
   * The claims of tokens jsonwebtoken verified, by the exact token string: a client sends the same
   * token for its 15 minutes, and its signature, issuer and audience do not change in that time
   * (jsonwebtoken's verify was 7% of a point read's CPU). Its expiry does: checked on every hit.
   * Revocation is the session's check after this (AuthService.authenticate), never this cache's.
   */
  private readonly verified = new LRUCache<string, AccessClaims>({ max: VERIFIED_TOKENS_MAX });

  /** `clock`: when a token expires, as jsonwebtoken judges it (the wall clock; tests pass one they hold). */
  constructor(
    private readonly s: TokenSettings,
    private readonly clock: Clock = systemClock,
  ) {
    this.key = createSecretKey(Buffer.from(s.secret, 'utf8'));
  }

  /** Deterministic for the same claims, which is what lets a grace-window retry get the same token. */
  signAccess(c: { sub: string; org: string | null; sid: string; jti?: string; iat?: number }): { token: string; jti: string; iat: number } {
    const iat = c.iat ?? Math.floor(Date.now() / 1000);
    const jti = c.jti ?? newId();
    const payload: Record<string, unknown> = { sub: c.sub, sid: c.sid, jti, iat, exp: iat + ACCESS_TTL_SECONDS, iss: this.s.issuer, aud: this.s.audience };
    if (c.org) payload.org = c.org;
    // Not noTimestamp: jsonwebtoken would delete the iat claim; without it, the iat given here is kept.
    return { token: jwt.sign(payload, this.key, { algorithm: ALGORITHM }), jti, iat };
  }

  verifyAccess(token: string): AccessClaims {
    // jsonwebtoken's own test: expired from the second `exp` names.
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const known = this.verified.get(token);
    if (known) {
      if (now < known.exp) return known;
      this.verified.delete(token);
      throw DomainError.unauthenticated('token expired');
    }
    let claims: AccessClaims;
    try {
      const verified = jwt.verify(token, this.key, { algorithms: [ALGORITHM], issuer: this.s.issuer, audience: this.s.audience, clockTimestamp: now });
      if (typeof verified !== 'object' || typeof verified.sub !== 'string' || typeof verified.jti !== 'string' || typeof verified.sid !== 'string' || typeof verified.exp !== 'number') {
        throw new Error('claims missing');
      }
      claims = Object.freeze(verified) as unknown as AccessClaims;
    } catch (err) {
      const reason = err instanceof jwt.TokenExpiredError ? 'token expired' : 'invalid token';
      throw DomainError.unauthenticated(reason);
    }
    this.verified.set(token, claims);
    return claims;
  }

  /** How many verified tokens are kept (bounded by VERIFIED_TOKENS_MAX). */
  get verifiedSize(): number {
    return this.verified.size;
  }

  newOpaque(): string {
    return randomBytes(32).toString('base64url');
  }

  /** The successor of a refresh token is derived from it, so a retried refresh yields the same one without storing it. */
  successorOf(refreshToken: string): string {
    return createHmac('sha256', this.s.secret).update(`rotate:${refreshToken}`).digest('base64url');
  }
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
