import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { Config } from '../config.js';
import { DomainError } from '../shared/errors.js';

/** What a frontend sends besides the CORS-safelisted headers: the token, JSON bodies, retries, tracing, Apollo's CSRF header. */
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-Read-After', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name'];
/** What a frontend may read from an answer besides the safelisted ones. */
const EXPOSE_HEADERS = ['X-Request-Id', 'Retry-After', 'Warning', 'Idempotent-Replayed', 'X-SQL-Statements', 'X-Read-After'];
const ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `http://localhost[:port]` or `http://127.0.0.1[:port]` exactly (no path, no other host that merely starts so). */
function isLoopbackHttp(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1') && url.origin === origin;
}

/**
 * CORS from the CORS_ORIGINS allow-list (in development without one: the loopback origins, any
 * port), for every path (REST, /graphql, the docs). Credentials are never allowed: the service reads a bearer token, not cookies, so a page of another origin can
 * only act with a token it was given. A preflight from an allowed origin is answered here (204)
 * whatever the path; one from any other origin is a 403 in the contract's shape, so the browser
 * stops before the request is sent. A plain request from another origin runs as without CORS (the
 * browser keeps its answer from the page); Apollo's CSRF prevention still refuses /graphql
 * requests a browser would send without a preflight.
 */
export function corsMiddleware(config: Config): Middleware {
  const any = config.CORS_ORIGINS.includes('*');
  const allowed = new Set(config.CORS_ORIGINS);
  const isAllowed = (origin: string) => any || allowed.has(origin) || (config.corsLoopback && isLoopbackHttp(origin));
  const handler = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return origin && isAllowed(origin) ? (any ? '*' : origin) : '';
    },
    credentials: false,
    allowMethods: ALLOW_METHODS,
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: config.CORS_MAX_AGE_SECONDS,
  });
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    // No Origin (a server-to-server call, most requests): what @koa/cors does then, without its async hop.
    if (origin === '') {
      ctx.vary('Origin');
      return next();
    }
    const preflight = ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '';
    if (preflight && !isAllowed(origin)) {
      ctx.vary('Origin');
      throw new DomainError('FORBIDDEN', `origin ${origin.slice(0, 255)} is not allowed (CORS_ORIGINS)`);
    }
    return handler(ctx, next);
  };
}
