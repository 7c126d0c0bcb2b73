-- The stays (animal_stay) partitioned by when they ended, as docs/decisions/partitioning.md plans
-- it: for measuring the trace on a partitioned table (the A/B in docs/benchmarks.md), NOT a
-- migration. Run on a bench:trace database kept with BENCH_KEEP_DATABASE=1, then
-- BENCH_REUSE_DATABASE=1 npm run bench:trace measures it.
--
-- Key: coalesce(ts_to, 'infinity'). Partitions: the closed stays that ended before next year
-- (`animal_stay_closed`, the existing table attached as is), next year's, and the open stays
-- (`animal_stay_current`, FROM ('infinity') TO (MAXVALUE), where "one open stay per animal" is a
-- unique index of that partition alone). PostgreSQL 15 has no identity column on a partitioned
-- table: `id` takes its old sequence as a default. Unique indexes without the key (the primary key)
-- become unique per partition. Indexes, foreign keys and triggers are read from the catalog.
begin;
create temp table stay_index on commit drop as
  select c.relname, pg_get_indexdef(i.indexrelid) as def, i.indisunique as is_unique, pg_get_expr(i.indpred, i.indrelid) as pred
    from pg_index i join pg_class c on c.oid = i.indexrelid
   where i.indrelid = 'animal_stay'::regclass and not exists (select 1 from pg_constraint x where x.conindid = i.indexrelid);
create temp table stay_fk on commit drop as
  select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'animal_stay'::regclass and contype = 'f';
create temp table stay_trigger on commit drop as
  select tgname, pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = 'animal_stay'::regclass and not tgisinternal;

do $$
declare r record; first_open timestamptz := date_trunc('year', now() at time zone 'UTC') at time zone 'UTC' + interval '1 year';
begin
  for r in select tgname from stay_trigger loop execute format('drop trigger %I on animal_stay', r.tgname); end loop;
  for r in select conname from stay_fk loop execute format('alter table animal_stay drop constraint %I', r.conname); end loop;
  for r in select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'animal_stay'::regclass loop
    execute format('alter index %I rename to %I', r.relname, r.relname || '_closed');
  end loop;
  alter table animal_stay alter column id drop identity if exists;
  create sequence if not exists animal_stay_id_seq2;
  perform setval('animal_stay_id_seq2', (select coalesce(max(id), 0) + 1 from animal_stay));
  alter table animal_stay rename to animal_stay_closed;
  create table animal_stay (like animal_stay_closed including defaults including constraints including storage) partition by range ((coalesce(ts_to, 'infinity'::timestamptz)));
  alter table animal_stay alter column id set default nextval('animal_stay_id_seq2');
  create table animal_stay_current partition of animal_stay for values from ('infinity') to (maxvalue);
  insert into animal_stay_current select * from animal_stay_closed where ts_to is null;
  delete from animal_stay_closed where ts_to is null;
  execute format('alter table animal_stay attach partition animal_stay_closed for values from (minvalue) to (%L)', first_open);
  execute format('create table animal_stay_y%s partition of animal_stay for values from (%L) to (%L)', extract(year from first_open), first_open, first_open + interval '1 year');
  -- The primary key: unique per partition. The open stay: unique in the open partition.
  for r in select relid::regclass::text as part from pg_partition_tree('animal_stay') where isleaf loop
    execute format('create unique index on %s (id)', r.part);
  end loop;
  for r in select * from stay_index loop
    if r.is_unique then
      if r.pred is distinct from '(ts_to IS NULL)' then raise exception 'a unique index other than the open stay: %', r.def; end if;
      execute replace(r.def, 'ON public.animal_stay ', 'ON public.animal_stay_current ');
    else
      execute r.def;
    end if;
  end loop;
  for r in select * from stay_fk loop execute format('alter table animal_stay add constraint %I %s', r.conname, r.def); end loop;
  for r in select * from stay_trigger loop execute r.def; end loop;
end $$;
commit;
vacuum analyze animal_stay;
