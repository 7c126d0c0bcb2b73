import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
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

  /**
   * Every request's token, verified every time: HS256 only, the signature (HMAC-SHA256 with the
   * key, compared in constant time), then `nbf`, `exp`, the audience and the issuer, as
   * jsonwebtoken's `verify` checks them with these options (its order, its 'token expired' case),
   * in straight-line code: jsonwebtoken's option handling, callbacks and three decodings of the
   * token took 7% of a point read's CPU in the service (bench:peers' profile). Signing stays jsonwebtoken's.
   */
  verifyAccess(token: string): AccessClaims {
    const claims = this.checked(token);
    if (claims === 'expired') throw DomainError.unauthenticated('token expired');
    if (!claims || typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.sid !== 'string') throw DomainError.unauthenticated('invalid token');
    return claims as unknown as AccessClaims;
  }

  private checked(token: string): Record<string, unknown> | 'expired' | null {
    if (typeof token !== 'string' || !JWS.test(token)) return null;
    const signed = token.lastIndexOf('.');
    const [encodedHeader, encodedPayload] = token.slice(0, signed).split('.') as [string, string];
    const header = parsedObject(encodedHeader);
    if (!header || header.alg !== ALGORITHM) return null;
    const expected = Buffer.from(createHmac('sha256', this.key).update(token.slice(0, signed)).digest('base64url'));
    const given = Buffer.from(token.slice(signed + 1));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const claims = parsedObject(encodedPayload);
    if (!claims) return null;
    const now = Math.floor(Date.now() / 1000);
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now)) return null;
    if (claims.exp !== undefined) {
      if (typeof claims.exp !== 'number') return null;
      if (now >= claims.exp) return 'expired';
    }
    const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(this.s.audience)) return null;
    if (claims.iss !== this.s.issuer) return null;
    return claims;
  }

  newOpaque(): string {
    return randomBytes(32).toString('base64url');
  }

  /** The successor of a refresh token is derived from it, so a retried refresh yields the same one without storing it. */
  successorOf(refreshToken: string): string {
    return createHmac('sha256', this.s.secret).update(`rotate:${refreshToken}`).digest('base64url');
  }
}

/** A compact JWS as jws (jsonwebtoken's) accepts one: three base64url parts, the signature's possibly empty. */
const JWS = /^[a-zA-Z0-9\-_]+?\.[a-zA-Z0-9\-_]+?\.([a-zA-Z0-9\-_]+)?$/;

/** A base64url part's JSON when it is an object (jsonwebtoken's test), else null. */
function parsedObject(encoded: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
