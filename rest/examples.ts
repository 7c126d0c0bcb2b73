import { existsSync, readFileSync } from 'node:fs';
import type { Middleware } from 'koa';
import { operationsDir } from './operations.js';
import type { Route } from './route.js';

/**
 * The examples of the API documentation: a request and its answer per operation, recorded from the
 * test suite's real exchanges (`npm run docs:examples`) into rest/operations/examples.json, which
 * the OpenAPI document reads at start. A route without an example of its own shows its twin's
 * under the other prefix (`/api/v1/...` and `/api/...`).
 */
export interface Example {
  status: number;
  request?: unknown;
  response?: unknown;
}

export type Examples = Record<string, Example>;

export const EXAMPLES_FILE = 'examples.json';

export const exampleKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method.toUpperCase()} ${route.path}`;

/** The same route under the other prefix: `/api/v1/x` and `/api/x`. */
const twinPath = (path: string): string => (path.startsWith('/api/v1/') ? path.replace(/^\/api\/v1\//, '/api/') : path.replace(/^\/api\//, '/api/v1/'));

/** A route's example: its own, or else its twin's under the other prefix (unless that body lacks what `requiredBody` asks: then none). */
export function exampleOf(examples: Examples, route: Pick<Route, 'method' | 'path' | 'requiredBody'>): Example | undefined {
  const own = examples[exampleKey(route)];
  if (own) return own;
  const twin = examples[exampleKey({ method: route.method, path: twinPath(route.path) })];
  const request = twin?.request as Record<string, unknown> | undefined;
  if (twin && route.requiredBody?.some((f) => request?.[f] === undefined)) return undefined;
  return twin;
}

export function loadExamples(): Examples {
  const file = operationsDir() + EXAMPLES_FILE;
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Examples) : {};
}

const LIST_ITEMS = 2;
const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;

/** A recorded body made short for reading: lists cut to their first items, tokens replaced. */
export function shortened(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, LIST_ITEMS).map(shortened);
  if (typeof value === 'string') return JWT.test(value) ? '<JWT>' : value;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortened(v)]));
  return value;
}

/** Koa middleware (tests only) keeping the first successful JSON exchange of each REST route in `into`. */
export function recordExamples(into: Examples): Middleware {
  return async (ctx, next) => {
    await next();
    const route = ctx.state.restRoute as Route | undefined;
    if (!route || ctx.status < 200 || ctx.status >= 300) return;
    const key = exampleKey(route);
    // A request with fields the service ignored (named in the Warning header) is no example to copy.
    if (into[key] || ctx.response.get('Warning')) return;
    const request = (ctx.request as { body?: unknown }).body;
    const hasBody = request !== undefined && !(request && typeof request === 'object' && Object.keys(request).length === 0);
    const answers = ctx.status !== 204 && ctx.response.is('json');
    into[key] = { status: ctx.status, ...(hasBody ? { request: shortened(request) } : {}), ...(answers ? { response: shortened(ctx.body) } : {}) };
  };
}
