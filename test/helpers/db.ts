import type { TestApp } from './app.js';

/** Rows straight from the database (what a request left behind). */
export const rows = async <T = Record<string, unknown>>(app: TestApp, sql: string, params: unknown[] = []): Promise<T[]> => app.service.orm.em.fork().execute<T[]>(sql, params);

/** `select count(*) from <sql>`: e.g. count(app, 'tag where str_status = ?', ['AVAILABLE']). */
export const count = async (app: TestApp, sql: string, params: unknown[] = []): Promise<number> => (await rows<{ n: number }>(app, `select count(*)::int as n from ${sql}`, params))[0]!.n;
