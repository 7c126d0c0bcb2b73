/** A GraphQL enum from the core's list of values: each value its own name (only type-graphql reads the map). */
export const asEnum = <T extends string>(values: readonly T[]): Record<string, T> => Object.fromEntries(values.map((v) => [v, v]));
