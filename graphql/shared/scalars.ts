import { GraphQLScalarType } from 'graphql';
import { DateTimeISOResolver, JSONObjectResolver, UUIDResolver } from 'graphql-scalars';

/** Canonical uuids, as the database gives them: everything else takes graphql-scalars' own path (and its errors). */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * graphql-scalars' DateTimeISO, serializing a valid Date straight to its ISO string (what its own
 * serialize answers, after two calls and a check per value); anything else takes its own path.
 */
export const DateTime = new GraphQLScalarType({
  ...DateTimeISOResolver.toConfig(),
  serialize: (value) => {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
    return DateTimeISOResolver.serialize(value);
  },
});
export const JSONObject = JSONObjectResolver;

/** A uuid, canonical (lower case) before anything stores, hashes or compares it. */
export const UUID = new GraphQLScalarType({
  ...UUIDResolver.toConfig(),
  // A read's ids are canonical: one compiled test, where graphql-scalars builds a regex per value.
  serialize: (value) => (typeof value === 'string' && CANONICAL_UUID.test(value) ? value : UUIDResolver.serialize(value)),
  parseValue: (value) => String(UUIDResolver.parseValue(value)).toLowerCase(),
  parseLiteral: (ast, variables) => String(UUIDResolver.parseLiteral(ast, variables)).toLowerCase(),
});
