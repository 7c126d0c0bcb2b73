import type { Readable } from 'node:stream';
import { requireActor, type Context } from '../context.js';
import type { TraceInput } from '../../src/trace/trace.service.js';

/**
 * The trace's CSV for REST's `Accept: text/csv` (ARCHITECTURE.md: a bulk export streams from
 * PostgreSQL, the one exception to "REST runs GraphQL documents"): the answer the request's first
 * page stored, as the core streams it.
 */
export function traceCsv(ctx: Context, variables: Record<string, unknown>): Promise<Readable> {
  return ctx.core.trace.csv(ctx.db, requireActor(ctx), variables.input as TraceInput);
}
