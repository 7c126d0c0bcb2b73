import { Migration } from '@mikro-orm/migrations';

/**
 * A stored trace answer (`trace_run`) is reused by the same caller's next requests for the same
 * question (the CSV after a JSON page, the next pages) while the data is what it was
 * (docs/decisions/trace.md, "One walk per question and data version"): it carries the question's
 * key (the question and the caller's visibility) and the event log's version when it was walked.
 */
export class Migration0044TraceReuse extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table trace_run add column str_key text null, add column int_event_head bigint null, add column int_event_recent integer null');
    this.addSql('create index trace_run_key on trace_run (str_key, ts_created_at)');
  }
}
