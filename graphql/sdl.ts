import { lexicographicSortSchema, printSchema } from 'graphql';
import { getSchema } from './schema.js';

/** The SDL as checked in at graphql/schema.graphql; a test fails when the code drifts from it. */
export async function printSchemaSdl(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await getSchema()))}\n`;
}
