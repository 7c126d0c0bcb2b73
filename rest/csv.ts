import type { Readable } from 'node:stream';
import type { Context } from '../graphql/context.js';

/**
 * A paged answer also as CSV (`Accept: text/csv`): a bulk export, streamed from PostgreSQL by the
 * core (ARCHITECTURE.md: the one exception to "REST runs GraphQL documents"; src/db/copy.ts).
 */
export interface CsvExport {
  /** The columns, in order (the OpenAPI document names them). */
  header: string[];
  /** The list's largest page (the JSON pages' bound). */
  pageSize: number;
  /** The whole answer's CSV for the request's variables (checked first by the operation's first page). */
  stream: (gql: Context, variables: Record<string, unknown>) => Promise<Readable>;
}
