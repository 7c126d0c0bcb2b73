import { Migration } from '@mikro-orm/migrations';

/**
 * The change log that keeps the trace's in-memory graph exactly fresh (docs/decisions/trace.md,
 * "The graph kept fresh"; src/trace/graph/trace-graph.store.ts). Every statement that changes what an
 * animal's `GraphStay` rows read (its stays; the status of an egress that closed one of them; the
 * travel it embarked on) writes, once per statement, one row per distinct animal it touched, with
 * the writer's top-level transaction id. A reader that last read the stays under snapshot S reads
 * again the animals of the rows whose transaction S did not see.
 *
 * Statement-level triggers with transition tables: one insert of the distinct animals per statement,
 * not one per row (a 5,000-head reception closes and opens 10,000 stays in two statements). On the
 * partitioned `animal_stay` they sit on the parent; an UPDATE that moves a row between partitions
 * (closing a stay) is seen in the parent's update transition tables.
 *
 * `trace_change_cutoff.xid`: every change row below it may have been purged (trace_change_purge), so
 * a reader whose snapshot's xmin is below it must read everything again.
 */
/**
 * The animals of the stays an egress closed, by the index on `animals_egress_id` (`offset 0` keeps it
 * a lookup per egress: joined, the planner knows nothing of a transition table's rows and scanned
 * every stay, 0.2 s at 500,000 stays).
 */
const STAYS_OF = (egress: string) => `select s.animal_id, s.xmin from animal_stay s where s.animals_egress_id = ${egress} offset 0`;

export class Migration0071TraceChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table trace_change (
      xid xid8 not null,
      animal_id uuid not null,
      ts_changed_at timestamptz not null default now()
    )`);
    this.addSql('create index trace_change_xid on trace_change (xid)');
    // The purge's range (rows are appended in about the order of their time): a block range index costs the writers next to nothing.
    this.addSql('create index trace_change_at on trace_change using brin (ts_changed_at)');
    this.addSql(`create table trace_change_cutoff (
      is_one boolean primary key default true check (is_one),
      xid xid8 not null
    )`);
    this.addSql(`insert into trace_change_cutoff (xid) values ('0')`);

    this.addSql(`create function trace_change_stays() returns trigger language plpgsql as $fn$
begin
  if tg_op = 'INSERT' then
    insert into trace_change (xid, animal_id) select pg_current_xact_id(), a.animal_id from (select distinct animal_id from new_rows) a;
  elsif tg_op = 'DELETE' then
    insert into trace_change (xid, animal_id) select pg_current_xact_id(), a.animal_id from (select distinct animal_id from old_rows) a;
  else
    insert into trace_change (xid, animal_id)
      select pg_current_xact_id(), a.animal_id from (select animal_id from old_rows union select animal_id from new_rows) a;
  end if;
  return null;
end
$fn$`);
    this.addSql('create trigger trace_change_stay_insert after insert on animal_stay referencing new table as new_rows for each statement execute function trace_change_stays()');
    this.addSql('create trigger trace_change_stay_update after update on animal_stay referencing old table as old_rows new table as new_rows for each statement execute function trace_change_stays()');
    this.addSql('create trigger trace_change_stay_delete after delete on animal_stay referencing old table as old_rows for each statement execute function trace_change_stays()');

    // Only a status change into or out of FINISHED/RECEIVED changes the vehicle its stays were left on.
    // A stay this very transaction wrote (an egress's finish closes its stays first) was logged by the
    // stays' trigger already: not again (written in a subtransaction, its xmin differs: logged twice, harmless).
    this.addSql(`create function trace_change_egresses() returns trigger language plpgsql as $fn$
begin
  insert into trace_change (xid, animal_id)
    select pg_current_xact_id(), a.animal_id from (
      select distinct s.animal_id
        from new_rows n join old_rows o on o.id = n.id
        cross join lateral (${STAYS_OF('n.id')}) s
       where s.xmin <> pg_current_xact_id()::xid and (o.str_status in ('FINISHED', 'RECEIVED')) is distinct from (n.str_status in ('FINISHED', 'RECEIVED'))) a;
  return null;
end
$fn$`);
    this.addSql('create trigger trace_change_egress_status after update on animals_egress referencing old table as old_rows new table as new_rows for each statement execute function trace_change_egresses()');

    // An embark gives its egress's stays their travel; released, the egress itself again.
    this.addSql(`create function trace_change_embarks() returns trigger language plpgsql as $fn$
begin
  if tg_op = 'INSERT' then
    insert into trace_change (xid, animal_id)
      select pg_current_xact_id(), a.animal_id from (select distinct s.animal_id from new_rows n cross join lateral (${STAYS_OF('n.animals_egress_id')}) s) a;
  elsif tg_op = 'DELETE' then
    insert into trace_change (xid, animal_id)
      select pg_current_xact_id(), a.animal_id from (select distinct s.animal_id from old_rows o cross join lateral (${STAYS_OF('o.animals_egress_id')}) s) a;
  else
    insert into trace_change (xid, animal_id)
      select pg_current_xact_id(), a.animal_id from (
        select distinct s.animal_id
          from (select o.animals_egress_id as egress from old_rows o join new_rows n on n.id = o.id
                 where (o.travel_id, o.animals_egress_id, o.ts_released_at is null) is distinct from (n.travel_id, n.animals_egress_id, n.ts_released_at is null)
                union select n.animals_egress_id from old_rows o join new_rows n on n.id = o.id
                 where (o.travel_id, o.animals_egress_id, o.ts_released_at is null) is distinct from (n.travel_id, n.animals_egress_id, n.ts_released_at is null)) e
          cross join lateral (${STAYS_OF('e.egress')}) s) a;
  end if;
  return null;
end
$fn$`);
    this.addSql('create trigger trace_change_embark_insert after insert on travel_embark referencing new table as new_rows for each statement execute function trace_change_embarks()');
    this.addSql('create trigger trace_change_embark_update after update on travel_embark referencing old table as old_rows new table as new_rows for each statement execute function trace_change_embarks()');
    this.addSql('create trigger trace_change_embark_delete after delete on travel_embark referencing old table as old_rows for each statement execute function trace_change_embarks()');

    // Drops the change rows older than p_kept and raises the cutoff past the newest one dropped. Returns how many.
    // Only rows below the xmin of its own snapshot: while a transaction older than them runs (in any
    // database of the cluster), every reader's horizon is at or below it too, and would have to read
    // everything again if they went.
    this.addSql(`create function trace_change_purge(p_kept interval) returns integer language plpgsql as $fn$
declare
  dropped integer;
  newest xid8;
begin
  with gone as (delete from trace_change where ts_changed_at < now() - p_kept and xid < pg_snapshot_xmin(pg_current_snapshot()) returning xid)
  select count(*), max(xid::text::numeric)::text::xid8 into dropped, newest from gone;
  if dropped > 0 then
    update trace_change_cutoff set xid = greatest(xid::text::numeric, newest::text::numeric + 1)::text::xid8;
  end if;
  return dropped;
end
$fn$`);
  }
}
