import { TRACE_SQL_FUNCTIONS, traceSql } from '../src/trace/sql/trace-sql.js';
import { useApp } from './helpers/app.js';

/**
 * The trace's SQL functions are read in src/trace/sql/, one file each (docs/decisions/trace.md, "The
 * SQL functions in one place"): after the migrations, the database holds exactly each file's body. A
 * file changed without a migration that applies it fails here.
 */
const app = useApp();

describe('src/trace/sql', () => {
  test.each(TRACE_SQL_FUNCTIONS)("%s: the database's body is its file's", async (name) => {
    const text = traceSql(name);
    expect(text).toMatch(new RegExp(`^(--.*\\n)*create or replace function ${name}\\(`));
    const body = /\$fn\$([\s\S]*)\$fn\$$/.exec(text)?.[1];
    expect(body).toBeDefined();
    const rows = await app.service.orm.em.fork().execute<{ prosrc: string }[]>('select prosrc from pg_proc where proname = ?', [name]);
    expect(rows.map((r) => r.prosrc)).toEqual([body]);
  });
});
