import Router from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import type { Context as KoaContext } from 'koa';
import type { Context } from '../graphql/context.js';
import { describeErrors } from '../graphql/errors.js';
import type { Executor } from '../graphql/execute.js';
import { requireActor } from '../graphql/context.js';
import { DomainError } from '../src/shared/errors.js';
import { isUuid } from '../src/shared/ids.js';
import { checkInput } from '../src/shared/input.js';
import type { Logger } from '../src/shared/logger.js';
import { authRoutes } from './auth.routes.js';
import { organizationRoutes, userRoutes } from './identity.routes.js';
import { controlUnitRoutes, countyRoutes, establishmentRoutes } from './places.routes.js';
import { vehicleRoutes } from './transit.routes.js';
import { gtaRoutes } from './movements.routes.js';
import { inviteRequestRoutes, inviteRoutes, sharingRoutes } from './access.routes.js';
import { tagsTransferRoutes } from './tags.routes.js';
import { animalRoutes } from './animals.routes.js';
import { tagsIdentificationRoutes, tagsReservationRoutes } from './tags-identify.routes.js';
import { tagsOutRoutes } from './tags-out.routes.js';
import { animalMovementRoutes } from './animal-movements.routes.js';
import { traceRoutes } from './trace.routes.js';
import { epcisRoutes } from './epcis.routes.js';
import { webhookRoutes } from './webhooks.routes.js';
import { occurrenceRoutes } from './occurrences.routes.js';
import { travelRoutes } from './travels.routes.js';
import { singletonRoutes } from './singletons.routes.js';
import { absentRelationsRemover } from './absent-relations.js';
import { attachmentRoutes } from './attachments.routes.js';
import { integrationQaRoutes, integrationRoutes } from './integration.routes.js';
import { eudrRoutes } from './eudr.routes.js';
import { readMultipart } from './multipart.js';
import { filesOf } from '../graphql/files.js';
import { loadOperations } from './operations.js';
import type { Route } from './route.js';
import { filtersFromQuery, pageFromQuery, stripUnknown } from './variables.js';

/** Every REST endpoint the service answers, in one list (the OpenAPI document is derived from it). */
export const routes: Route[] = [...authRoutes, ...userRoutes, ...organizationRoutes, ...countyRoutes, ...establishmentRoutes, ...controlUnitRoutes, ...vehicleRoutes, ...gtaRoutes, ...integrationRoutes, ...inviteRoutes, ...inviteRequestRoutes, ...sharingRoutes,
  ...tagsTransferRoutes,
  ...tagsReservationRoutes, ...tagsIdentificationRoutes, ...animalRoutes, ...tagsOutRoutes, ...animalMovementRoutes, ...traceRoutes,
  ...occurrenceRoutes, ...travelRoutes, ...singletonRoutes, ...attachmentRoutes, ...integrationQaRoutes, ...epcisRoutes, ...eudrRoutes, ...webhookRoutes];

/** Where a POST may carry multipart/form-data instead of JSON: the upload routes. */
const UPLOAD_PATHS = new Set(routes.filter((r) => r.upload).map((r) => `${r.method} ${r.path}`));
export const isUploadRoute = (method: string, path: string): boolean => UPLOAD_PATHS.has(`${method} ${path}`);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function buildRestRouter(schema: GraphQLSchema, log: Logger, executor: Executor): Router {
  const operations = loadOperations(schema);
  const router = new Router();
  for (const route of routes) {
    const op = operations.get(route.operation);
    if (!op) throw new Error(`route ${route.method} ${route.path}: no operation ${route.operation}`);
    const leaveOutAbsentRelations = absentRelationsRemover(schema, op, route.pick);
    const varType = (name: string) => op.definition.variableDefinitions?.find((v) => v.variable.name.value === name)?.type;

    router[route.method.toLowerCase() as 'get'](route.path, discardingUpload(async (ctx: KoaContext) => {
      const gql = ctx.state.gql as Context;
      ctx.state.restRoute = route;
      if (route.auth) requireActor(gql);
      const variables: Record<string, unknown> = {};
      for (const [param, spec] of Object.entries(route.params ?? {})) {
        const value = ctx.params[param];
        if (spec.uuid && !isUuid(value)) throw new DomainError('BAD_REQUEST', `path parameter ${param} must be a uuid`);
        // Canonical before anything stores, hashes or compares it.
        variables[spec.variable] = spec.uuid ? value.toLowerCase() : value;
      }
      let rawBody = (ctx.request as { body?: unknown }).body;
      if (route.upload) {
        // Read only once the caller is known (401 above): the fields are the body, the file waits in the context.
        const { fields, file } = await readMultipart(ctx, filesOf(gql));
        rawBody = fields;
        gql.upload = file;
      }
      // The parser's `{}` for a request without a body (Object.keys last: a 40,000-key body is not counted).
      const body = rawBody === undefined || (isObject(rawBody) && !ctx.request.length && Object.keys(rawBody).length === 0) ? undefined : rawBody;
      if (body !== undefined && !isObject(body)) throw DomainError.field('body', 'must be a JSON object');
      if (route.body) {
        const unknown: string[] = [];
        const type = varType(route.body)!;
        variables[route.body] = body === undefined ? (route.optionalBody ? null : {}) : stripUnknown(schema, type, body, unknown);
        if (unknown.length) ctx.set('Warning', unknownFieldsWarning(unknown));
      }
      if (route.page) variables[route.page] = pageFromQuery(ctx.query);
      if (route.filter) variables[route.filter.variable] = route.filter.from === 'body' ? (body ?? {}) : filtersFromQuery(ctx.query);
      if (route.queryParameters) Object.assign(variables, route.queryParameters.toVariables(ctx.query));

      // The values a route passes on, past the one input boundary (src/shared/input.ts).
      for (const value of Object.values(variables)) checkInput(value, 'body');
      const run = async (vars: Record<string, unknown>): Promise<Record<string, unknown>> => {
        const result = await executor({ document: op.document, contextValue: gql, variableValues: vars, operationName: route.operation });
        if (result.errors?.length) {
          const described = describeErrors(result.errors, gql.requestId);
          if (described.unexpected) log.error({ err: described.unexpected, requestId: gql.requestId, route: route.operation }, 'unexpected error');
          throw new DomainError(described.code, described.detail, described.retryAfter);
        }
        return (result.data as Record<string, unknown>)[route.pick] as Record<string, unknown>;
      };
      if (route.csv && route.page && ctx.accepts('application/json', 'text/csv') === 'text/csv') {
        // The operation's first row answers the question's errors as JSON (and stores the answer the export reads).
        await run({ ...variables, [route.page]: { int_current_page: 1, int_max_results: 1 } });
        const body = await route.csv.stream(gql, variables);
        body.on('error', (err) => log.error({ err, requestId: gql.requestId, route: route.operation }, 'CSV export failed midway'));
        ctx.status = route.status;
        ctx.type = 'text/csv; charset=utf-8';
        ctx.body = body;
        return;
      }
      if (route.download) {
        const attachment = (await run(variables)) as unknown as { id: string; str_file_name: string; str_content_type: string; int_size_bytes: number };
        const bytes = await filesOf(gql).open(attachment);
        ctx.status = route.status;
        ctx.attachment(attachment.str_file_name);
        ctx.type = attachment.str_content_type;
        ctx.length = attachment.int_size_bytes;
        ctx.body = bytes;
        return;
      }
      const picked = await run(variables);
      ctx.status = route.status;
      if (route.status === 204) return;
      if (route.document) {
        answerDocument(ctx, route.document, picked);
        return;
      }
      leaveOutAbsentRelations(picked);
      ctx.body = route.paged ? { data: picked.data, meta: picked.meta, ...Object.fromEntries((route.extra ?? []).map((f) => [f, picked[f]])) } : { data: picked };
    }));
  }
  return router;
}

/** An uploaded file was moved into the store by a successful create, or is not wanted: either way nothing stays in the incoming folder. */
function discardingUpload(handle: (ctx: KoaContext) => Promise<void>): (ctx: KoaContext) => Promise<void> {
  return async (ctx) => {
    try {
      await handle(ctx);
    } finally {
      const gql = ctx.state.gql as Context;
      if (gql.upload) await filesOf(gql).discard(gql.upload);
    }
  };
}

/** A document by itself (JSON-LD unless the route names another type); the next page, when there is one, in a Link header (EPCIS 2.0's REST binding). */
function answerDocument(ctx: KoaContext, spec: NonNullable<Route['document']>, picked: Record<string, unknown>): void {
  const token = spec.nextPageToken ? picked[spec.nextPageToken] : null;
  if (typeof token === 'string') {
    const query = new URLSearchParams(ctx.querystring);
    query.set('nextPageToken', token);
    ctx.set('Link', `<${ctx.path}?${query.toString()}>; rel="next"`);
  }
  if (spec.link) ctx.append('Link', typeof spec.link === 'function' ? spec.link(ctx.path) : spec.link);
  if (!spec.contentType) {
    ctx.set('GS1-EPCIS-Version', '2.0.0');
    ctx.set('GS1-CBV-Version', '2.0.0');
  }
  // The type first: Koa keeps a type already set when the body is an object.
  ctx.type = spec.contentType ?? 'application/ld+json';
  const value = spec.field ? picked[spec.field] : picked;
  ctx.body = spec.text ? spec.text(value) : value;
}

/** At most this many names in the Warning header: a hostile body cannot grow it without bound. */
const WARNING_NAMES = 20;

function unknownFieldsWarning(unknown: string[]): string {
  const names = unknown.slice(0, WARNING_NAMES).map((n) => n.slice(0, 64).replace(/[^\x20-\x7e]|["\\]/g, '?'));
  const more = unknown.length > WARNING_NAMES ? ` and ${unknown.length - WARNING_NAMES} more` : '';
  return `199 - "unknown fields ignored: ${names.join(', ')}${more}"`;
}
