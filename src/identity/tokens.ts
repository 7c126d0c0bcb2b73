import { createHash, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';

export const ACCESS_TTL_SECONDS = 15 * 60;
export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
export const REFRESH_GRACE_MS = 30 * 1000;
const ALGORITHM = 'HS256';

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

  constructor(private readonly s: TokenSettings) {
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
    try {
      const claims = jwt.verify(token, this.key, { algorithms: [ALGORITHM], issuer: this.s.issuer, audience: this.s.audience });
      if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.sid !== 'string') {
        throw new Error('claims missing');
      }
      return claims as unknown as AccessClaims;
    } catch (err) {
      const reason = err instanceof jwt.TokenExpiredError ? 'token expired' : 'invalid token';
      throw DomainError.unauthenticated(reason);
    }
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
