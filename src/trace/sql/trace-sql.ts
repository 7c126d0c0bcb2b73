import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The trace's SQL functions, each defined in full in its own file here (docs/decisions/trace.md, "The SQL functions in one place"). */
export const TRACE_SQL_FUNCTIONS = ['trace_runs', 'trace_run_state_load'] as const;
export type TraceSqlFunction = (typeof TRACE_SQL_FUNCTIONS)[number];

/** This folder: beside the module in the source tree; from dist/src/trace/sql, the source tree's (the image copies it). */
function folder(): string {
  for (const rel of ['./', '../../../../src/trace/sql/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}trace_runs.sql`)) return dir;
  }
  throw new Error('src/trace/sql/*.sql not found beside the code');
}

/** The `create or replace function` statement of `name`, as its file holds it (without the closing semicolon). */
export function traceSql(name: TraceSqlFunction): string {
  return readFileSync(`${folder()}${name}.sql`, 'utf8').trim().replace(/;$/, '');
}
