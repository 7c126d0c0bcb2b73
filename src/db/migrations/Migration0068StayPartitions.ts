import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 25, item 3: the stays (`animal_stay`) partitioned by when they ended, key
 * `coalesce(ts_to, 'infinity')` (docs/decisions/partitioning.md, "The stays").
 *
 * Few partitions, because every read of one animal's whole path pays one index descent per
 * partition: `animal_stay_current` (`FROM ('infinity') TO (MAXVALUE)`, exactly the open stays: one
 * per living animal, the hot set) and the closed stays in blocks of five calendar years (UTC)
 * starting at a multiple of five, `animal_stay_y2030_2034` holding the stays that ended in 2030 to
 * 2034. Closing a stay moves its row from the open partition to its block (an UPDATE moves rows).
 *
 * The conversion copies only the open stays: the existing table becomes `animal_stay_legacy`, the
 * partition of every stay that ended before the next block's first day, attached as it is once its
 * open stays are moved out (PostgreSQL scans it once to check the range). Indexes, constraints and
 * triggers are read from the catalog at migration time, so what earlier migrations added (another
 * engineer's index) is kept whatever it is; PostgreSQL attaches the legacy table's matching indexes
 * instead of building them. PostgreSQL 15 allows no identity column on a partitioned table and no
 * unique key without the partition key: `id` takes a sequence default and is unique per partition
 * (`log_partition_local_unique`, as the event log's `id`); a unique index on the open stays
 * (`... where ts_to is null`) goes to the open partition alone, where it is global since every open
 * stay is there ("one open stay per animal"). Another unique index, an exclusion constraint or a
 * foreign key that references a stay stops the migration with a message.
 *
 * `animal_stay_partitions(ahead)` creates the blocks of this year to `ahead` years on (run at every
 * start with the event log's, and by `cli stays:partitions`); `animal_stay_detach(name)` detaches
 * the oldest block (cold storage).
 */
export class Migration0068StayPartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$
declare
  t regclass := 'animal_stay'::regclass;
  trgs text[] := array(select pg_get_triggerdef(oid) from pg_trigger where tgrelid = t and not tgisinternal order by tgname);
  fks text[] := array(select format('alter table animal_stay add constraint %I %s', conname, pg_get_constraintdef(oid)) from pg_constraint where conrelid = t and contype = 'f' order by conname);
  y int := extract(year from now() at time zone 'UTC');
  last_end int;
  boundary timestamptz;
  r record;
  d text;
begin
  if exists (select 1 from pg_constraint where conrelid = t and contype = 'x') then
    raise exception 'Migration0068: animal_stay has an exclusion constraint: convert it by hand';
  end if;
  if exists (select 1 from pg_constraint where confrelid = t) then
    raise exception 'Migration0068: a foreign key references animal_stay (a stay''s id is unique per partition only): convert it by hand';
  end if;
  create temp table stay_convert_unique on commit drop as
    select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = t and contype in ('p', 'u');
  create temp table stay_convert_index on commit drop as
    select c.relname, pg_get_indexdef(i.indexrelid) as def, i.indisunique as is_unique, coalesce(pg_get_expr(i.indpred, i.indrelid), '') = '(ts_to IS NULL)' as open_only
      from pg_index i join pg_class c on c.oid = i.indexrelid
     where i.indrelid = t and not exists (select 1 from pg_constraint x where x.conindid = i.indexrelid and x.conrelid = t);
  if exists (select 1 from stay_convert_index where is_unique and not open_only) then
    raise exception 'Migration0068: animal_stay has a unique index on more than its open stays: convert it by hand';
  end if;

  for r in select tgname from pg_trigger where tgrelid = t and not tgisinternal loop
    execute format('drop trigger %I on animal_stay', r.tgname);
  end loop;
  for r in select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = t loop
    execute format('alter index %I rename to %I', r.relname, r.relname || '_legacy');
  end loop;
  for r in select conname from pg_constraint where conrelid = t and contype = 'f' loop
    execute format('alter table animal_stay rename constraint %I to %I', r.conname, r.conname || '_legacy');
  end loop;
  alter table animal_stay alter column id drop identity if exists;
  alter table animal_stay rename to animal_stay_legacy;
  create sequence animal_stay_id_seq;
  perform setval('animal_stay_id_seq', coalesce((select max(id) from animal_stay_legacy), 0) + 1, false);
  create table animal_stay (like animal_stay_legacy including defaults including constraints including storage including comments)
    partition by range ((coalesce(ts_to, 'infinity'::timestamptz)));
  alter table animal_stay alter column id set default nextval('animal_stay_id_seq');
  alter sequence animal_stay_id_seq owned by animal_stay.id;

  -- The open stays move (the only rows copied); the rest stays where it is.
  create table animal_stay_current partition of animal_stay for values from ('infinity') to (maxvalue);
  alter table animal_stay_current add constraint animal_stay_current_open check (ts_to is null);
  insert into animal_stay_current select * from animal_stay_legacy where ts_to is null;
  delete from animal_stay_legacy where ts_to is null;
  -- The legacy partition reaches to the next block's first day (or past a stay dated later).
  last_end := greatest(y, coalesce((select extract(year from max(ts_to) at time zone 'UTC')::int from animal_stay_legacy), y));
  boundary := make_timestamptz(last_end - last_end % 5 + 5, 1, 1, 0, 0, 0, 'UTC');
  execute format('alter table animal_stay attach partition animal_stay_legacy for values from (minvalue) to (%L)', boundary);

  for r in select * from stay_convert_unique loop
    insert into log_partition_local_unique (str_parent, str_definition) values ('animal_stay', r.def);
    execute format('alter table animal_stay_current add %s', r.def);
  end loop;
  for r in select * from stay_convert_index loop
    if r.is_unique then
      execute format('drop index %I', r.relname || '_legacy');
      execute replace(r.def, ' ON public.animal_stay ', ' ON public.animal_stay_current ');
    else
      execute r.def;
    end if;
  end loop;
  foreach d in array fks || trgs loop
    execute d;
  end loop;
  drop table stay_convert_unique, stay_convert_index;
end $$`);
    this.addSql(`create function animal_stay_partitions(ahead int default 1) returns setof text language plpgsql as $$
declare
  y int;
  b int;
  part text;
  lo timestamptz;
  u record;
  first int := extract(year from now() at time zone 'UTC');
begin
  for y in first .. first + ahead loop
    b := y - y % 5;
    part := format('animal_stay_y%s_%s', b, b + 4);
    lo := make_timestamptz(b, 1, 1, 0, 0, 0, 'UTC');
    continue when to_regclass(part) is not null;
    -- A block the legacy partition still covers.
    continue when exists (select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
                           where i.inhparent = 'animal_stay'::regclass
                             and substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)')::timestamptz > lo);
    execute format('create table %I partition of animal_stay for values from (%L) to (%L)', part, lo, make_timestamptz(b + 5, 1, 1, 0, 0, 0, 'UTC'));
    for u in select str_definition from log_partition_local_unique where str_parent = 'animal_stay' loop
      execute format('alter table %I add %s', part, u.str_definition);
    end loop;
    return next part;
  end loop;
end $$`);
    this.addSql(`create function animal_stay_detach(part text) returns void language plpgsql as $$
declare
  oldest text;
begin
  if part !~ '^animal_stay_(legacy|y[0-9]{4}_[0-9]{4})$' then
    raise exception 'animal_stay_detach: % is not a partition of closed stays', part;
  end if;
  select c.relname into oldest
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
   where i.inhparent = 'animal_stay'::regclass and c.relname <> 'animal_stay_current'
   order by case when pg_get_expr(c.relpartbound, c.oid) like '%MINVALUE%' then 0 else 1 end, c.relname
   limit 1;
  if oldest is distinct from part then
    raise exception 'animal_stay_detach: detach the oldest partition first (%)', oldest;
  end if;
  execute format('alter table animal_stay detach partition %I', part);
end $$`);
    this.addSql('select animal_stay_partitions(1)');
    this.addSql('analyze animal_stay');
  }
}
