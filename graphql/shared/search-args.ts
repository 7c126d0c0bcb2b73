import type { GraphQLScalarType } from 'graphql';
import { ArgsType, Field, Float, InputType, Int, registerEnumType } from 'type-graphql';
import { orderableFields, type SearchSpec } from '../../src/shared/search.js';
import { DateTime, JSONObject, UUID } from './scalars.js';

/**
 * A list query's search as typed GraphQL arguments, made from the same SearchSpec the core checks
 * filters with, so the two never drift: `where` (each filter with its type: a client gets
 * autocomplete and validation), `orderBy` (a field of an enum and a direction) and the untyped
 * `filter` the REST door still sends (CONTRACT.md's search bodies, deprecated for GraphQL clients).
 * All three become one filter object for the core.
 */
export interface SearchArgs {
  filter?: Record<string, unknown> | null;
  where?: Record<string, unknown> | null;
  orderBy?: { field: string; direction?: string | null } | null;
}

export enum SortDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}
registerEnumType(SortDirection, { name: 'SortDirection' });

type Kind = SearchSpec['exact'][string];
const SCALARS: Record<Kind, GraphQLScalarType | typeof String | typeof Boolean> = { text: String, uuid: UUID, boolean: Boolean, integer: Int, number: Float };

/** A class for type-graphql's decorators, named as the schema will show it. */
function named(name: string): new () => object {
  const type = class {};
  Object.defineProperty(type, 'name', { value: name });
  return type;
}

/**
 * The arguments of `name`'s list query (`Animal` → AnimalFilter, AnimalOrder, AnimalOrderField),
 * for `@Args(searchArgsOf(...))`: made when the resolver's class is, before the schema is built
 * (type-graphql finds an ArgsType registered later too late).
 */
export function searchArgsOf(name: string, spec: SearchSpec): () => new () => object {
  const where = named(`${name}Filter`);
  for (const [field, kind] of [...Object.entries(spec.exact), ...Object.entries(spec.computed ?? {}).map(([f, c]) => [f, c.kind] as const)]) {
    Field(() => SCALARS[kind], { nullable: true })(where.prototype, field);
  }
  for (const range of spec.ranges) {
    Field(() => DateTime, { nullable: true, description: `${range} at or after` })(where.prototype, `${range}_from`);
    Field(() => DateTime, { nullable: true, description: `${range} at or before` })(where.prototype, `${range}_to`);
  }
  Field(() => String, { nullable: true, description: 'Words looked for in the text fields, accents and case ignored' })(where.prototype, 'str_query');
  InputType(`${name}Filter`, { description: `Filters of ${name} lists, all together: a field equals the value given (null: has none), a range bounds a time, str_query looks for words` })(where);

  const fields = Object.fromEntries(orderableFields(spec).map((f) => [f, f]));
  registerEnumType(fields, { name: `${name}OrderField` });
  const orderBy = named(`${name}Order`);
  Field(() => fields)(orderBy.prototype, 'field');
  Field(() => SortDirection, { defaultValue: SortDirection.DESC })(orderBy.prototype, 'direction');
  InputType(`${name}Order`, { description: `Order of ${name} lists (ties broken by id in the same direction); ts_created_at DESC when absent` })(orderBy);

  const args = named(`${name}SearchArgs`);
  Field(() => JSONObject, { nullable: true, deprecationReason: 'Untyped: use where and orderBy', description: 'Filters as a JSON object (CONTRACT.md, "Search bodies")' })(args.prototype, 'filter');
  Field(() => where, { nullable: true })(args.prototype, 'where');
  Field(() => orderBy, { nullable: true })(args.prototype, 'orderBy');
  ArgsType()(args);
  return () => args;
}

/** The one filter object the core reads: `where` and `orderBy` over `filter`; dates as the ISO text a search body carries. */
export function filtersOf(args: SearchArgs): Record<string, unknown> | null {
  if (!args.where && !args.orderBy) return args.filter ?? null;
  const where = Object.fromEntries(Object.entries(args.where ?? {}).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
  const order = args.orderBy ? { str_order_by: args.orderBy.field, str_order: args.orderBy.direction ?? SortDirection.DESC } : {};
  return { ...args.filter, ...where, ...order };
}
