import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { requestScope } from '../shared/request-scope.js';
import { pgCsv, pgliteCsv, type CsvSource } from './copy.js';

/** SQL text with `?` placeholders and its parameters, in text order. Policies' scopes and readers' pieces share it. */
export interface Query {
  sql: string;
  params: unknown[];
}

/**
 * The read side's connection: plain rows from parameterised SQL, never ORM entities
 * (ARCHITECTURE.md, "one core, two doors"). Parameters are bound, not inlined, and each distinct
 * text becomes a named statement on PostgreSQL, so a hot read is parsed and planned once per
 * connection. Never called inside a write transaction: on PGlite (one session) it would wait for it.
 */
export interface Db {
  rows<T>(query: Query): Promise<T[]>;
  /** The same, each row an array in the order of `fields` (a joined read names several rows' columns alike). */
  tuples(query: Query): Promise<Tuples>;
  /** A bulk export: the rows of a SELECT of text columns as CSV, streamed (src/db/copy.ts). */
  csv: CsvSource;
  /**
   * Whether a Buffer parameter goes in binary (node-pg's does; PGlite's do not): then an array
   * parameter may be sent in PostgreSQL's binary array format (src/db/array-param.ts).
   */
  binaryParams: boolean;
  /** With replicas (src/db/replicas.ts): the primary, for a statement that writes (a trace's stored answer). */
  primary?: Db;
  /** With replicas: reads kept off the primary (trace, EUDR, exports), waiting for a replica to replay the caller's last write. */
  bulk?: Db;
}

/** Where a statement that writes runs: the primary (the Db itself without replicas). */
export const primaryOf = (db: Db): Db => db.primary ?? db;
/** Where a bulk read runs: a replica when there is one (the Db itself without replicas). */
export const bulkOf = (db: Db): Db => db.bulk ?? db;

export interface Tuples {
  fields: string[];
  rows: unknown[][];
}

/** `?` → `$1`, `$2`, … once per distinct text. */
const positional = new Map<string, string>();
export function toPositional(sql: string): string {
  let text = positional.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (positional.size < MAX_NAMED) positional.set(sql, text);
  }
  return text;
}

/** Bounds the statements each connection keeps prepared; texts past it run unnamed. */
const MAX_NAMED = 2000;
const names = new Map<string, string>();
function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `r${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

export const counted = (sql: string) => {
  const scope = requestScope.getStore();
  if (scope) {
    scope.statements++;
    scope.texts?.push(sql);
  }
};

/** timestamptz, timestamp and date as Date on PGlite, as `pg`'s default parsers give them (MikroORM's keep strings). */
const toDate = (v: string) => new Date(v);
const PGLITE_PARSERS = { 1082: toDate, 1114: toDate, 1184: toDate };

export function pgDb(pool: pg.Pool): Db {
  return {
    csv: pgCsv(pool),
    binaryParams: true,
    async rows<T>(query: Query): Promise<T[]> {
      const text = toPositional(query.sql);
      counted(query.sql);
      // pg's own parsers (the pool's are MikroORM's, which keep timestamps as strings).
      const result = await pool.query({ text, values: query.params, name: nameOf(text), types: pg.types });
      return result.rows as T[];
    },
    async tuples(query: Query): Promise<Tuples> {
      const text = toPositional(query.sql);
      counted(query.sql);
      const result = await pool.query({ text, values: query.params, name: nameOf(text), types: pg.types, rowMode: 'array' });
      return { fields: result.fields.map((f) => f.name), rows: result.rows as unknown[][] };
    },
  };
}

export function pgliteDb(pglite: PGlite): Db {
  return {
    csv: pgliteCsv(pglite),
    binaryParams: false,
    async rows<T>(query: Query): Promise<T[]> {
      counted(query.sql);
      const result = await pglite.query<T>(toPositional(query.sql), query.params, { parsers: PGLITE_PARSERS });
      return result.rows;
    },
    async tuples(query: Query): Promise<Tuples> {
      counted(query.sql);
      const result = await pglite.query<unknown[]>(toPositional(query.sql), query.params, { parsers: PGLITE_PARSERS, rowMode: 'array' });
      return { fields: result.fields.map((f) => f.name), rows: result.rows };
    },
  };
}

/**
 * MikroORM inlines every parameter into the SQL text, escaping strings a character at a time; a
 * reconciliation's 4 MB of JSON took over a second of CPU so. The same escape (libpq's, as
 * MikroORM ports it: quotes and backslashes doubled, E'' when there is a backslash) in two passes.
 */
export function escapeLiteral(str: string): string {
  const quoted = `'${str.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`;
  return str.includes('\\') ? ` E${quoted}` : quoted;
}
