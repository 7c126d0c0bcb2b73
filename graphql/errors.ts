import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { DomainError, fromConcurrentWrite, fromConstraintViolation, fromUnavailable, type ErrorCode } from '../src/shared/errors.js';

export interface DescribedError {
  code: ErrorCode;
  detail: unknown;
  retryAfter?: number;
  /** Unexpected: to be logged with its stack, never shown. */
  unexpected?: unknown;
}

/**
 * The body field a path inside a variable names: through list items down to the first plain field
 * (`animals[3].int_weight_kilos_at_identification`, `geo_location` for `geo_location.coordinates[0]`:
 * the field the client sent, not a part of its value); a trailing list index is dropped (`lst_tag_codes`).
 */
function bodyField(path: string): string {
  const named: string[] = [];
  for (const segment of path.split('.')) {
    named.push(segment);
    if (!/\[\d+\]$/.test(segment)) return named.join('.');
  }
  return named.join('.').replace(/\[\d+\]$/, '');
}

/** Names the field a GraphQL variable-coercion message is about, so bad input answers 422 naming it. */
function coercionField(message: string): { field: string; reason: string } | null {
  if (!message.startsWith('Variable "$')) return null;
  const reason = message.includes('; ') ? message.slice(message.indexOf('; ') + 2) : message;
  const at = /at "([^"]+)"/.exec(message);
  // The path without the variable's own name: the body's fields.
  const inside = at ? at[1]!.split('.').slice(1).join('.') : '';
  const required = /Field "(\w+)" of required type "([^"]+)" was not provided/.exec(message);
  if (required) return { field: inside ? bodyField(`${inside}.${required[1]!}`) : required[1]!, reason: 'is required' };
  if (at) return { field: inside ? bodyField(inside) : at[1]!, reason };
  const variable = /^Variable "\$(\w+)"/.exec(message)!;
  return { field: variable[1]!, reason: message.includes('was not provided') ? 'is required' : reason };
}

/** One reading of any error, for both doors: a contract code, its detail, and whether it was unexpected. */
export function describeError(error: unknown, requestId: string): DescribedError {
  const original = unwrapResolverError(error);
  if (original instanceof DomainError) return { code: original.code, detail: original.detail, retryAfter: original.retryAfter };
  if (original instanceof GraphQLError) {
    // Variable coercion wraps the real reason as originalError: read the field from the outer message first.
    const field = coercionField(original.message);
    if (field) return { code: 'VALIDATION_FAILED', detail: { fields: { [field.field]: [field.reason] } } };
    if (original.originalError) return describeError(original.originalError, requestId);
    return { code: 'BAD_REQUEST', detail: original.message };
  }
  const constraint = fromConstraintViolation(original) ?? fromConcurrentWrite(original) ?? fromUnavailable(original);
  if (constraint) return { code: constraint.code, detail: constraint.detail, retryAfter: constraint.retryAfter };
  return { code: 'INTERNAL', detail: { request_id: requestId }, unexpected: original };
}

/** Several errors of one request: input problems are merged into one field list, anything else wins alone. */
export function describeErrors(errors: readonly unknown[], requestId: string): DescribedError {
  const described = errors.map((e) => describeError(e, requestId));
  const other = described.find((d) => d.code !== 'VALIDATION_FAILED');
  if (other) return other;
  const fields: Record<string, string[]> = Object.create(null); // user-named keys: `constructor` is a field, not Object's
  for (const d of described) {
    for (const [k, v] of Object.entries((d.detail as { fields?: Record<string, string[]> })?.fields ?? {})) (fields[k] ??= []).push(...v);
  }
  return described.length === 1 ? described[0]! : { code: 'VALIDATION_FAILED', detail: { fields } };
}

/** Apollo's own request-level codes, which GraphQL clients handle: kept as they are. */
const REQUEST_CODES = ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE'];

export function toFormatted(d: DescribedError, base: GraphQLFormattedError): GraphQLFormattedError {
  const code = base.extensions?.code;
  if (typeof code === 'string' && REQUEST_CODES.includes(code)) return { message: base.message, locations: base.locations, extensions: { code } };
  const message = d.code === 'INTERNAL' ? 'internal error' : typeof d.detail === 'string' ? d.detail : base.message;
  return { message, locations: base.locations, path: base.path, extensions: { code: d.code, detail: d.detail } };
}

/** graphql-js's hints at names ("Did you mean the enum value "OWNER"?", "Did you mean "whoami"?"). */
const SUGGESTION = /Did you mean [^?]*\?/g;
const SUGGESTION_MASK = '[Suggestion hidden]';

const maskSuggestions = (value: unknown): unknown => {
  if (typeof value === 'string') return value.replace(SUGGESTION, SUGGESTION_MASK).trim();
  if (Array.isArray(value)) return value.map(maskSuggestions);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSuggestions(v)]));
  return value;
};

/**
 * Where introspection is off (production), no answer names what the schema holds: graphql-armor
 * masks field and argument suggestions of validation only; enum values and coercion of variables
 * (which never reach validation) are masked here, in message and detail alike.
 */
export function hideSuggestions(formatted: GraphQLFormattedError): GraphQLFormattedError {
  return { ...formatted, message: maskSuggestions(formatted.message) as string, ...(formatted.extensions ? { extensions: maskSuggestions(formatted.extensions) as GraphQLFormattedError['extensions'] } : {}) };
}
