import { Migration } from '@mikro-orm/migrations';

/**
 * Every way the stays change reaches the trace's graph or marks it stale (issue 37, item 3;
 * docs/decisions/trace.md, "Never wrong"). The row triggers of Migration0071TraceChanges name the
 * animals a statement touched; what names no animal (a TRUNCATE, a partition detached or attached,
 * a bulk load with the triggers off) writes a stale mark instead: a change row for the nil uuid,
 * which no animal has. A graph whose horizon did not see the mark's transaction finds it among its
 * unseen change rows and is read again whole (src/trace/graph/trace-graph.source.ts). A mark is
 * exact where raising `trace_change_cutoff` is not: the cutoff is compared with a horizon's xmin,
 * so while any older transaction stayed open (a dump, a long report) every graph loaded after the
 * mark would still be below it, and would reload at every refresh until that transaction ended.
 *
 * - `trace_graph_stale()`: the mark, for operators (`cli trace:stale`) and bulk writers; it also
 *   puts the TRUNCATE trigger on any partition of the stays that lacks it (one attached by hand).
 * - TRUNCATE of `animal_stay`, of any of its partitions (statement triggers are not inherited: each
 *   partition has its own, new blocks get it from `animal_stay_partitions`), of `animals_egress` and
 *   of `travel_embark` (the stays' vehicles) writes the mark.
 * - `animal_stay_detach` (`cli stays:detach`) writes it with the detach. No event trigger catches a
 *   hand-written `ALTER TABLE animal_stay ATTACH/DETACH PARTITION`: event triggers need a superuser,
 *   which a managed PostgreSQL does not give the service; `cli trace:stale` after one (operations.md).
 *
 * Migration0068's `animal_stay_partitions` and `animal_stay_detach` are kept whole under new names
 * (`animal_stay_blocks`, `animal_stay_detach_block`) and wrapped.
 */
const STALE_MARK = '00000000-0000-0000-0000-000000000000';

export class Migration0075TraceGraphStale extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function trace_change_truncated() returns trigger language plpgsql as $fn$
begin
  insert into trace_change (xid, animal_id) values (pg_current_xact_id(), '${STALE_MARK}');
  return null;
end
$fn$`);
    this.addSql(`create function trace_change_truncate_guard() returns void language plpgsql as $fn$
declare
  r record;
begin
  for r in select t.relid from pg_partition_tree('animal_stay'::regclass) t
            where not exists (select 1 from pg_trigger g where g.tgrelid = t.relid and g.tgname = 'trace_change_stay_truncate') loop
    execute format('create trigger trace_change_stay_truncate after truncate on %s for each statement execute function trace_change_truncated()', r.relid::regclass);
  end loop;
end
$fn$`);
    this.addSql(`create function trace_graph_stale() returns void language plpgsql as $fn$
begin
  insert into trace_change (xid, animal_id) values (pg_current_xact_id(), '${STALE_MARK}');
  perform trace_change_truncate_guard();
end
$fn$`);
    this.addSql('select trace_change_truncate_guard()');
    this.addSql('create trigger trace_change_egress_truncate after truncate on animals_egress for each statement execute function trace_change_truncated()');
    this.addSql('create trigger trace_change_embark_truncate after truncate on travel_embark for each statement execute function trace_change_truncated()');

    this.addSql('alter function animal_stay_partitions(int) rename to animal_stay_blocks');
    this.addSql(`create function animal_stay_partitions(ahead int default 1) returns setof text language plpgsql as $fn$
begin
  return query select animal_stay_blocks(ahead);
  perform trace_change_truncate_guard();
end
$fn$`);
    this.addSql('alter function animal_stay_detach(text) rename to animal_stay_detach_block');
    this.addSql(`create function animal_stay_detach(part text) returns void language plpgsql as $fn$
begin
  perform animal_stay_detach_block(part);
  perform trace_graph_stale();
end
$fn$`);
  }
}
