import type { TestApp } from './app.js';
import type { Db, Query } from '../../src/db/sql.js';

/** Rows straight from the database (what a request left behind). */
export const rows = async <T = Record<string, unknown>>(app: TestApp, sql: string, params: unknown[] = []): Promise<T[]> => app.service.orm.em.fork().execute<T[]>(sql, params);

/** `select count(*) from <sql>`: e.g. count(app, 'tag where str_status = ?', ['AVAILABLE']). */
export const count = async (app: TestApp, sql: string, params: unknown[] = []): Promise<number> => (await rows<{ n: number }>(app, `select count(*)::int as n from ${sql}`, params))[0]!.n;

/** The service's database, recording each statement it is given (`seen`), for counting and EXPLAIN. */
export function recording(app: TestApp): { db: Db; seen: Query[] } {
  const seen: Query[] = [];
  const db: Db = { rows: (q) => (seen.push(q), app.service.db.rows(q)), tuples: (q) => (seen.push(q), app.service.db.tuples(q)), csv: (q) => app.service.db.csv(q), binaryParams: app.service.db.binaryParams };
  return { db, seen };
}
