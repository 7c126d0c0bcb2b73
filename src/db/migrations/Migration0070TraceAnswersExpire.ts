import { Migration } from '@mikro-orm/migrations';

/**
 * The expired trace answers dropped through the answers' index whatever the statistics say
 * (docs/decisions/trace.md, "Expired answers"). The storing statement dropped them itself, joining
 * the expired runs to `trace_answer`; the planner, which knows neither how many runs expire nor
 * (on a server whose autovacuum has not analyzed the churned unlogged table) how many rows it
 * holds, chose between the `(run_id, ord)` index (25 ms for one expired run at 1M) and a scan of
 * the whole table (220-550 ms at 470 MB), one request in a few paying the scan. In a function with
 * `enable_seqscan` off the join always descends the index; the runs' own table is small and has
 * its index on `ts_created_at`. Returns how many answer rows it dropped.
 */
export class Migration0070TraceAnswersExpire extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function trace_answers_expire(p_kept interval) returns integer
language plpgsql set enable_seqscan = off as $fn$
declare
  dropped integer;
begin
  with old as (delete from trace_run where ts_created_at < now() - p_kept returning id)
  delete from trace_answer a where a.run_id in (select o.id from old o);
  get diagnostics dropped = row_count;
  return dropped;
end
$fn$`);
  }
}
