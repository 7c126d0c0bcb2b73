import { Migration } from '@mikro-orm/migrations';

/**
 * A stored trace answer without the foreign key to its run (docs/decisions/trace.md, "The first
 * page, part by part"): storing an answer checked the key row by row (40 ms of a 1-hop first
 * page's 5,443 rows at 100,000 animals), and it bought nothing: the statement that stores a run
 * inserts its answer in the same statement, and the one that drops expired runs drops their
 * answers itself.
 */
export class Migration0060TraceAnswerUnkeyed extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table trace_answer drop constraint if exists trace_answer_run_id_fkey');
  }
}
