import {
  getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLField, type GraphQLInputType, type GraphQLNamedType, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import { DOWNLOAD_TYPES } from '../graphql/files.js';
import { STATUS_OF } from './errors.js';
import { exampleOf, type Examples } from './examples.js';
import { answerSchemas } from './openapi-answers.js';
import { loadOperations } from './operations.js';
import type { Route } from './route.js';

type Json = Record<string, unknown>;

const SCALARS: Record<string, Json> = {
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  ID: { type: 'string' },
  UUID: { type: 'string', format: 'uuid' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object' },
};

const DESCRIPTIONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 400: 'Bad request', 401: 'Unauthenticated', 403: 'Forbidden',
  404: 'Not found', 413: 'Payload too large', 422: 'Unprocessable', 428: 'Precondition required (accept the terms)', 429: 'Too many requests', 500: 'Internal error', 503: 'Unavailable',
};

/**
 * The license the service's API is published under: package.json's `UNLICENSED`, which is not an
 * SPDX identifier; SPDX writes a license of its own as `LicenseRef-<name>`.
 */
export const API_LICENSE = { name: 'Proprietary (UNLICENSED): all rights reserved', identifier: 'LicenseRef-Proprietary' } as const;

const API_DESCRIPTION = [
  'The REST door of the livestock traceability service: the paths of the published interface (`docs/interface.md`), for state agencies, slaughterhouses and legacy systems. Frontends use GraphQL at `/graphql` (an IDE opens there in a browser); both doors run one schema over one core, so they answer the same.',
  '',
  '**Signing in.** `POST /api/login` with `str_email` (or `str_document`) and `str_password` answers `data.str_access_token`; send it as `Authorization: Bearer <token>` (the *Authorize* button here). A new administrator has no organization: establishment calls answer 403 until one is created (`POST /api/organizations`) and chosen (`POST /api/change-org`, which answers a new token).',
  '',
  '**Answers.** A record is `{"data": ...}`, a page `{"data": [...], "meta": {int_current_page, int_max_results, int_total_results, int_total_pages}}`; every error is `{"error": CODE, "detail": ...}` (the codes and their statuses: `x-error-statuses`). A `Warning` header names body fields that were ignored. POSTs accept an `Idempotency-Key`.',
].join('\n');

/** An operation's description: what it needs, what it answers, and the GraphQL operation it runs. */
function describe(route: Route): string {
  const lines = [`${route.summary}.`];
  lines.push(route.auth ? 'Needs `Authorization: Bearer <str_access_token>` (401 without it).' : 'Open to anyone: no token needed.');
  if (route.document) lines.push(`Answers the ${route.document.contentType ? 'document' : 'JSON-LD document'} itself (\`${route.document.contentType ?? 'application/ld+json'}\`), not \`{data}\`; errors are JSON as everywhere.`);
  if (route.download) lines.push('Answers the bytes themselves with their content type and `Content-Disposition: attachment`, not JSON (errors are JSON).');
  if (route.paged) lines.push('Answers a page, `{data, meta}`: `int_current_page` (from 1) and `int_max_results` (at most 500) in the query string.');
  if (route.filter) lines.push(route.filter.from === 'body' ? 'The JSON body holds the search filters (an unknown filter is a 422 naming it).' : 'Query-string parameters besides the page ones are filters (an unknown one is a 422 naming it).');
  if (route.upload) lines.push('The body is multipart/form-data: the file as the part `file`, the other values as text fields (fields the schema does not know are ignored and named in the `Warning` header).');
  else if (route.body) lines.push(`The JSON body is \`${route.body}\`${route.optionalBody ? ' (optional)' : ''}: fields the schema does not know are ignored and named in the \`Warning\` header.`);
  lines.push(`Runs the GraphQL operation \`${route.operation}\` (\`rest/operations/\`): GraphQL answers the same.`);
  return lines.join(' ');
}

/**
 * Every error status a route can answer (CONTRACT.md's error table): a request can be malformed (a
 * body, a path id, a URL past Node's limit: 400) and a body too large (413); a path names a record
 * that may not exist (404); a signed-in caller may be refused (403) or asked to accept the terms
 * first (428, TERMS_REQUIRED);
 * any request can fail validation (422), the database can be away (503), and 500 is never excluded.
 * A route adds the statuses its own rules answer (`errors`: 429 for login, ...).
 */
function errorStatusesOf(route: Route): number[] {
  const takesBody = route.method !== 'GET' && route.method !== 'DELETE';
  const statuses = new Set([...(route.errors ?? []), 400, 422, 500, 503]);
  if (takesBody) statuses.add(413);
  if (route.params) statuses.add(404);
  if (route.auth) [401, 403, 428].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

/** A recorded exchange as the operation's request and answer examples (the JSON ones). */
function withExample(operation: Json, example: Examples[string]): void {
  const json = (holder: unknown) => (holder as { content?: Record<string, Json> } | undefined)?.content?.['application/json'];
  const request = json(operation.requestBody);
  if (request && example.request !== undefined) request.example = example.request;
  const response = json((operation.responses as Record<string, unknown>)[String(example.status)]);
  if (response && example.response !== undefined) response.example = example.response;
}

/** An upload's form: the input's fields as text fields, and the part "file". */
function multipartSchema(input: GraphQLInputType): Json {
  const named = getNamedType(input);
  const fields = isInputObjectType(named) ? Object.values(named.getFields()) : [];
  return {
    type: 'object',
    properties: { ...Object.fromEntries(fields.map((f) => [f.name, { type: 'string', ...(f.description ? { description: f.description } : {}) }])), file: { type: 'string', format: 'binary', description: 'PDF, JPEG, PNG or WebP (decided by its bytes), at most 10 MiB' } },
    required: ['file'],
  };
}

/** A PUBLIC_URL on this machine (the default) tells a reader elsewhere nothing the relative server does not. */
const isLoopback = (url: string): boolean => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);

/** The OpenAPI 3.1 document: every REST route, its body and response types derived from the GraphQL schema. */
export function buildOpenApi(routes: Route[], schema: GraphQLSchema, options: { publicUrl?: string; examples?: Examples } = {}): Json {
  const components: Record<string, Json> = {
    ErrorResponse: { type: 'object', properties: { error: { type: 'string' }, detail: {} }, required: ['error', 'detail'] },
  };

  const ref = (named: GraphQLNamedType): Json => {
    if (isScalarType(named)) return SCALARS[named.name] ?? { type: 'string' };
    if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((v) => v.value) };
    if (!components[named.name]) {
      components[named.name] = {};
      const fields = (isObjectType(named) || isInputObjectType(named) ? Object.values(named.getFields()) : []) as { name: string; type: GraphQLInputType | GraphQLOutputType; description?: string | null }[];
      components[named.name] = {
        type: 'object',
        properties: Object.fromEntries(fields.map((f) => [f.name, typeOf(f.type)])),
        required: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
      };
    }
    return { $ref: `#/components/schemas/${named.name}` };
  };
  const typeOf = (t: GraphQLInputType | GraphQLOutputType, nullable = true): Json => {
    const type = t as GraphQLOutputType;
    if (isNonNullType(type)) return typeOf(type.ofType as GraphQLOutputType, false);
    const inner = isListType(type) ? { type: 'array', items: typeOf(type.ofType as GraphQLOutputType) } : ref(getNamedType(type));
    return nullable ? { anyOf: [inner, { type: 'null' }] } : inner;
  };

  const operations = loadOperations(schema);
  const answerOf = answerSchemas(schema, operations.values(), components, (named) => ref(named));
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const rootType = route.method === 'GET' ? schema.getQueryType() : schema.getMutationType() ?? schema.getQueryType();
    const field: GraphQLField<unknown, unknown> | undefined = schema.getQueryType()?.getFields()[route.pick] ?? rootType?.getFields()[route.pick] ?? schema.getMutationType()?.getFields()[route.pick];
    const parameters: Json[] = Object.keys(route.params ?? {}).map((name) => ({ name, in: 'path', required: true, schema: route.params![name]!.uuid ? SCALARS.UUID : { type: 'string' } }));
    if (route.page) {
      parameters.push({ name: 'int_current_page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } });
      parameters.push({ name: 'int_max_results', in: 'query', schema: { type: 'integer', minimum: 1, maximum: route.csv?.pageSize ?? 500, default: 50 } });
    }
    for (const name of route.queryParameters?.names ?? []) parameters.push({ name, in: 'query', schema: { type: 'string' } });
    const responses: Json = {};
    if (route.status === 204) responses['204'] = { description: DESCRIPTIONS[204] };
    else if (route.document) {
      const { contentType = 'application/ld+json', description = 'GS1 EPCIS 2.0 JSON-LD (https://ref.gs1.org/standards/epcis/2.0.0/)' } = route.document;
      responses[String(route.status)] = { description: `${DESCRIPTIONS[route.status]}: ${route.document.contentType ? 'a document' : 'a JSON-LD document'} by itself, not wrapped in data`, content: { [contentType]: { schema: { type: 'object', description } } } };
    }
    else if (route.download) {
      const binary = { schema: { type: 'string', format: 'binary' } };
      responses[String(route.status)] = { description: `${DESCRIPTIONS[route.status]}: the bytes, as a download`, content: Object.fromEntries(DOWNLOAD_TYPES.map((t) => [t, binary])) };
    } else if (field) {
      const answer = answerOf(operations.get(route.operation)!, route.pick);
      if (!answer) throw new Error(`OpenAPI: ${route.operation} selects no ${route.pick}`);
      const properties: Json = route.paged ? Object.fromEntries(['data', 'meta', ...(route.extra ?? [])].map((f) => [f, answer.part(f)])) : { data: answer.whole };
      const content: Json = { 'application/json': { schema: { type: 'object', properties, required: Object.keys(properties) } } };
      if (route.csv) content['text/csv'] = { schema: { type: 'string', description: `The whole answer, one row per line: ${route.csv.header.join(', ')}` } };
      responses[String(route.status)] = { description: DESCRIPTIONS[route.status], content };
    }
    for (const status of errorStatusesOf(route)) {
      const codes = Object.keys(STATUS_OF).filter((code) => STATUS_OF[code as keyof typeof STATUS_OF] === status);
      const schema = { allOf: [{ $ref: '#/components/schemas/ErrorResponse' }, { properties: { error: { enum: codes } } }] };
      responses[String(status)] = { description: DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema } } };
    }
    const arg = route.body ? field?.args.find((a) => a.name === route.body) : undefined;
    const operation: Json = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: route.summary,
      description: describe(route),
      tags: [route.tag],
      'x-graphql-operation': route.operation,
      security: route.auth ? [{ bearer: [] }] : [],
      parameters,
      responses,
    };
    if (arg && route.upload) operation.requestBody = { required: true, content: { 'multipart/form-data': { schema: multipartSchema(arg.type) } } };
    else if (arg) {
      const input = typeOf(arg.type, false);
      const schema = route.requiredBody ? { allOf: [input, { required: route.requiredBody }] } : input;
      operation.requestBody = { required: !route.optionalBody, content: { 'application/json': { schema } } };
    }
    else if (route.filter?.from === 'body') operation.requestBody = { required: false, content: { 'application/json': { schema: { type: 'object', description: 'Filters (CONTRACT.md, Search bodies)' } } } };
    const example = options.examples ? exampleOf(options.examples, route) : undefined;
    if (example) withExample(operation, example);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Livestock traceability service', version: '0.1.0', description: API_DESCRIPTION, license: API_LICENSE },
    // Relative first: "Try it out" calls the server the document was read from, wherever it runs.
    servers: [{ url: '/', description: 'The server this document was read from' }, ...(options.publicUrl && !isLoopback(options.publicUrl) ? [{ url: options.publicUrl, description: 'PUBLIC_URL' }] : [])],
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
    'x-error-statuses': STATUS_OF,
  };
}
