import { GraphQLScalarType } from 'graphql';
import { DateTimeISOResolver, JSONObjectResolver, UUIDResolver } from 'graphql-scalars';

export const DateTime = DateTimeISOResolver;
export const JSONObject = JSONObjectResolver;

/** A uuid, canonical (lower case) before anything stores, hashes or compares it. */
export const UUID = new GraphQLScalarType({
  ...UUIDResolver.toConfig(),
  parseValue: (value) => String(UUIDResolver.parseValue(value)).toLowerCase(),
  parseLiteral: (ast, variables) => String(UUIDResolver.parseLiteral(ast, variables)).toLowerCase(),
});
