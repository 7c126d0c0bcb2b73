import { Migration } from '@mikro-orm/migrations';
import { traceSql } from '../../trace/sql/trace-sql.js';

/**
 * `trace_runs` as src/trace/sql/trace_runs.sql defines it: a contact's `via_animal_id` names an animal
 * that was at the place at `ts_via` (docs/decisions/trace.md, "Via: an animal that was there"). From
 * here on the trace's SQL functions are defined in src/trace/sql/, one file each, and a migration
 * applies the file it changes ("The SQL functions in one place").
 */
export class Migration0072TraceViaPresent extends Migration {
  override async up(): Promise<void> {
    this.addSql(traceSql('trace_runs'));
  }
}
