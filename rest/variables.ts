import { getNamedType, isInputObjectType, isListType, isNonNullType, typeFromAST, type GraphQLInputType, type GraphQLSchema, type TypeNode } from 'graphql';
import { DomainError } from '../src/shared/errors.js';

/**
 * Drops body keys the input type does not know (legacy clients send extras) and returns their
 * paths for the Warning header; the rest is left for GraphQL to coerce and the core to validate.
 */
export function stripUnknown(schema: GraphQLSchema, typeNode: TypeNode, value: unknown, unknown: string[], prefix = ''): unknown {
  const type = typeFromAST(schema, typeNode as never) as GraphQLInputType | undefined;
  return type ? strip(type, value, unknown, prefix) : value;
}

function strip(type: GraphQLInputType, value: unknown, unknown: string[], prefix: string): unknown {
  if (isNonNullType(type)) return strip(type.ofType, value, unknown, prefix);
  if (isListType(type)) return Array.isArray(value) ? value.map((v, i) => strip(type.ofType as GraphQLInputType, v, unknown, `${prefix}[${i}]`)) : value;
  const named = getNamedType(type);
  if (!isInputObjectType(named) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = named.getFields();
  const out: Record<string, unknown> = {};
  // Object.keys, not Object.entries: a body of 40,000 unknown keys costs a quarter of the time.
  for (const key of Object.keys(value)) {
    // Own fields only: `constructor` or `__proto__` in a body is an unknown key like any other.
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!field) unknown.push(prefix + key);
    else out[key] = strip(field.type, (value as Record<string, unknown>)[key], unknown, `${prefix}${key}.`);
  }
  return out;
}

/** int_current_page / int_max_results from the query string: digits only; the core checks the ranges. */
export function pageFromQuery(query: Record<string, unknown>): { int_current_page?: number; int_max_results?: number } {
  const page: Record<string, number> = {};
  const fields: Record<string, string[]> = {};
  for (const key of ['int_current_page', 'int_max_results'] as const) {
    const raw = query[key];
    if (raw === undefined) continue;
    if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw)) fields[key] = ['must be a positive integer'];
    else page[key] = Number(raw);
  }
  if (Object.keys(fields).length) throw DomainError.validation(fields);
  return page;
}

/** Query-string filters for index GETs: `true`/`false` read as booleans, every value a single string. */
export function filtersFromQuery(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    if (key === 'int_current_page' || key === 'int_max_results') continue;
    if (typeof raw !== 'string') throw DomainError.field(key, 'must be given once');
    out[key] = raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  return out;
}
