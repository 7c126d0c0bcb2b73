import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 25, item 3: the event log (`event`) and its subject lists (`event_subject`) partitioned by
 * time, PostgreSQL's declarative partitioning (docs/decisions/partitioning.md).
 *
 * The key is `seq` (the primary key stays `seq`, the relay and every history orders by it), and a
 * year's range of seq is `[year × 10^12, (year + 1) × 10^12)`: `event.seq`'s default,
 * `event_next_seq()`, jumps the sequence to the current UTC year's base at the first insert of a
 * year whose partition exists, so a partition holds the events written in its year. The subject rows
 * follow their event's seq into the same year. A year whose partition is missing keeps numbering in
 * the previous year's range (10^12 values a year): no insert fails for want of a partition.
 *
 * The conversion attaches the existing tables as the partitions `event_legacy` and
 * `event_subject_legacy` (`FROM (MINVALUE) TO (this year's base)`): no row is copied, PostgreSQL
 * scans each once to check the range. Indexes, unique constraints and triggers are read from the
 * catalog at migration time and declared again on the partitioned table (PostgreSQL attaches the
 * legacy table's matching indexes instead of building new ones), so indexes or triggers added by
 * earlier migrations are kept whatever they are. A unique constraint without the partition key
 * (`event_id_key`) cannot be declared on the parent: it stays on each partition
 * (`log_partition_local_unique`, applied by `event_log_partitions`).
 *
 * `event_log_partitions(ahead)` creates this year's and the next `ahead` years' partitions (run at
 * every start, after the migrations, and by `cli events:partitions`). `event_log_detach(name)`
 * detaches the oldest year, keeping each record's last hash in `event_chain_anchor` so that
 * appends chain on from it and `events:verify` checks what is left.
 */
export class Migration0052EventLogPartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table log_partition_local_unique (
        str_parent text not null,
        str_definition text not null,
        primary key (str_parent, str_definition)
      )`);
    this.addSql(`create table event_chain_anchor (
        str_record_type text not null,
        record_id uuid not null,
        seq bigint not null,
        str_hash text not null,
        primary key (str_record_type, record_id)
      )`);
    // One partitioned table from an existing one, its definition read from the catalog.
    this.addSql(`create function log_partition_convert(t text, k text, base bigint) returns void language plpgsql as $$
declare
  keynum smallint := (select attnum from pg_attribute where attrelid = t::regclass and attname = k);
  trgs text[] := array(select pg_get_triggerdef(oid) from pg_trigger where tgrelid = t::regclass and not tgisinternal order by tgname);
  cons record;
  idx record;
  d text;
begin
  if exists (select 1 from pg_constraint where conrelid = t::regclass and contype in ('f', 'x')) then
    raise exception 'log_partition_convert: % has a foreign key or exclusion constraint: convert it by hand', t;
  end if;
  if exists (select 1 from pg_constraint where confrelid = t::regclass) then
    raise exception 'log_partition_convert: a foreign key references %', t;
  end if;
  create temp table log_convert_constraint on commit drop as
    select conname, pg_get_constraintdef(oid) as def, keynum = any(conkey) as keyed
      from pg_constraint where conrelid = t::regclass and contype in ('p', 'u');
  create temp table log_convert_index on commit drop as
    select c.relname, pg_get_indexdef(i.indexrelid) as def, i.indisunique and not (keynum = any(i.indkey)) as local_unique
      from pg_index i join pg_class c on c.oid = i.indexrelid
     where i.indrelid = t::regclass and not exists (select 1 from pg_constraint x where x.conindid = i.indexrelid and x.conrelid = t::regclass);
  if exists (select 1 from log_convert_index where local_unique) then
    raise exception 'log_partition_convert: % has a unique index without %: convert it by hand', t, k;
  end if;
  for d in select tgname from pg_trigger where tgrelid = t::regclass and not tgisinternal loop
    execute format('drop trigger %I on %I', d, t);
  end loop;
  for idx in select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = t::regclass loop
    execute format('alter index %I rename to %I', idx.relname, idx.relname || '_legacy');
  end loop;
  execute format('alter table %I rename to %I', t, t || '_legacy');
  execute format('create table %I (like %I including defaults including constraints including storage including comments) partition by range (%I)', t, t || '_legacy', k);
  execute format('alter table %I attach partition %I for values from (minvalue) to (%s)', t, t || '_legacy', base);
  for cons in select * from log_convert_constraint loop
    if cons.keyed then
      execute format('alter table %I add constraint %I %s', t, cons.conname, cons.def);
    else
      insert into log_partition_local_unique (str_parent, str_definition) values (t, cons.def);
    end if;
  end loop;
  for idx in select * from log_convert_index loop
    execute idx.def;
  end loop;
  foreach d in array trgs loop
    execute d;
  end loop;
  drop table log_convert_constraint, log_convert_index;
end $$`);
    const base = 'extract(year from now() at time zone \'UTC\')::bigint * 1000000000000';
    this.addSql(`do $$ begin
      perform log_partition_convert('event', 'seq', ${base});
      perform log_partition_convert('event_subject', 'event_seq', ${base});
    end $$`);
    this.addSql('drop function log_partition_convert(text, text, bigint)');
    this.addSql(`create function event_next_seq() returns bigint language plpgsql volatile as $$
declare
  s bigint := nextval('event_seq_seq');
  y int := extract(year from now() at time zone 'UTC');
  base bigint := y::bigint * 1000000000000;
begin
  if s >= base or to_regclass('event_y' || y) is null then
    return s;
  end if;
  -- The year's first insert: one session moves the sequence (past any row the year has already,
  -- should it ever have been set back), the others then draw past it.
  perform pg_advisory_xact_lock(hashtext('event:year'), 0);
  s := nextval('event_seq_seq');
  if s < base then
    perform setval('event_seq_seq', coalesce((select max(e.seq) from event e where e.seq >= base and e.seq < base + 1000000000000), base - 1));
    s := nextval('event_seq_seq');
  end if;
  return s;
end $$`);
    this.addSql('alter table event_legacy alter column seq drop default');
    this.addSql('alter table event alter column seq set default event_next_seq()');
    this.addSql('alter sequence event_seq_seq owned by event.seq');
    this.addSql(`create function event_log_partitions(ahead int default 1) returns setof text language plpgsql as $$
declare
  y int;
  t text;
  part text;
  u record;
  first int := extract(year from now() at time zone 'UTC');
begin
  for y in first .. first + ahead loop
    foreach t in array array['event', 'event_subject'] loop
      part := t || '_y' || y;
      continue when to_regclass(part) is not null;
      execute format('create table %I partition of %I for values from (%s) to (%s)', part, t, y::bigint * 1000000000000, (y + 1)::bigint * 1000000000000);
      for u in select str_definition from log_partition_local_unique where str_parent = t loop
        execute format('alter table %I add %s', part, u.str_definition);
      end loop;
      return next part;
    end loop;
  end loop;
end $$`);
    this.addSql(`create function event_log_detach(part text) returns void language plpgsql as $$
declare
  suffix text := substring(part from '^event_(y[0-9]+|legacy)$');
  oldest text;
begin
  if suffix is null then
    raise exception 'event_log_detach: % is not a partition of event', part;
  end if;
  select c.relname into oldest
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
   where i.inhparent = 'event'::regclass
   order by case when pg_get_expr(c.relpartbound, c.oid) like '%MINVALUE%' then 0 else 1 end, pg_get_expr(c.relpartbound, c.oid)
   limit 1;
  if oldest is distinct from part then
    raise exception 'event_log_detach: detach the oldest partition first (%)', oldest;
  end if;
  lock table event in share row exclusive mode;
  execute format($q$
    insert into event_chain_anchor (str_record_type, record_id, seq, str_hash)
    select distinct on (str_record_type, record_id) str_record_type, record_id, seq, str_hash
      from %I where bl_record_chain order by str_record_type, record_id, seq desc
    on conflict (str_record_type, record_id) do update set seq = excluded.seq, str_hash = excluded.str_hash
     where excluded.seq > event_chain_anchor.seq$q$, part);
  -- The service-wide chain of the events written before record streams: under the nil record.
  execute format($q$
    insert into event_chain_anchor (str_record_type, record_id, seq, str_hash)
    select '', '00000000-0000-0000-0000-000000000000', seq, str_hash from %I where not bl_record_chain order by seq desc limit 1
    on conflict (str_record_type, record_id) do update set seq = excluded.seq, str_hash = excluded.str_hash
     where excluded.seq > event_chain_anchor.seq$q$, part);
  execute format('alter table event detach partition %I', part);
  execute format('alter table event_subject detach partition %I', 'event_subject_' || suffix);
end $$`);
    // event_append starts a record's chain from its anchor when its events before are detached.
    this.addSql(`do $$
declare
  d text := pg_get_functiondef('event_append(bigint[], jsonb, jsonb)'::regprocedure);
  was text := 'coalesce(r.head, repeat(''0'', 64))';
begin
  if position(was in d) = 0 then
    raise exception 'Migration0052: event_append no longer reads its head as %: add the anchor by hand', was;
  end if;
  execute replace(d, was, 'coalesce(r.head, (select a.str_hash from event_chain_anchor a where a.str_record_type = r.rt and a.record_id = r.rid), repeat(''0'', 64))');
end $$`);
    this.addSql('select event_log_partitions(1)');
  }
}
