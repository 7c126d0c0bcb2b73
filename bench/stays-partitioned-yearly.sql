-- The stays (animal_stay) partitioned by when they ended, one partition per year: the layout a
-- migration would reach after some years (docs/decisions/partitioning.md). For measuring, NOT a
-- migration: it copies every row (a migration attaches the existing table instead). Run on a copy of
-- a bench:trace database (BENCH_KEEP_DATABASE=1), then BENCH_REUSE_DATABASE=1 npm run bench:trace.
--
-- Key: coalesce(ts_to, 'infinity'). Partitions: `animal_stay_y<Y>` for the stays that ended in year
-- Y (UTC), from the first year with a closed stay to next year, and `animal_stay_current`
-- (FROM ('infinity') TO (MAXVALUE)), the open stays, where "one open stay per animal" is a unique
-- index of that partition alone. `id` takes a sequence default and is unique per partition.
-- Indexes, foreign keys and triggers are read from the catalog. Rows are copied in `id` order (the
-- order they were written), and the indexes built after the copy.
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
declare
  r record;
  y int;
  first_year int := (select coalesce(extract(year from min(ts_to) at time zone 'UTC'), extract(year from now() at time zone 'UTC')) from animal_stay);
  last_year int := extract(year from now() at time zone 'UTC') + 1;
begin
  for r in select tgname from stay_trigger loop execute format('drop trigger %I on animal_stay', r.tgname); end loop;
  for r in select conname from stay_fk loop execute format('alter table animal_stay drop constraint %I', r.conname); end loop;
  for r in select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'animal_stay'::regclass loop
    execute format('alter index %I rename to %I', r.relname, r.relname || '_old');
  end loop;
  alter table animal_stay alter column id drop identity if exists;
  create sequence if not exists animal_stay_id_seq2;
  perform setval('animal_stay_id_seq2', (select coalesce(max(id), 0) + 1 from animal_stay));
  alter table animal_stay rename to animal_stay_old;
  create table animal_stay (like animal_stay_old including defaults including constraints including storage) partition by range ((coalesce(ts_to, 'infinity'::timestamptz)));
  alter table animal_stay alter column id set default nextval('animal_stay_id_seq2');
  for y in first_year .. last_year loop
    execute format('create table animal_stay_y%s partition of animal_stay for values from (%L) to (%L)', y,
                   make_timestamptz(y, 1, 1, 0, 0, 0, 'UTC'), make_timestamptz(y + 1, 1, 1, 0, 0, 0, 'UTC'));
  end loop;
  create table animal_stay_current partition of animal_stay for values from ('infinity') to (maxvalue);
  insert into animal_stay select * from animal_stay_old order by id;
  drop table animal_stay_old;
  for r in select relid::regclass::text as part from pg_partition_tree('animal_stay') where isleaf loop
    execute format('create unique index on %s (id)', r.part);
  end loop;
  for r in select * from stay_index loop
    if r.is_unique then
      if r.pred is distinct from '(ts_to IS NULL)' then raise exception 'a unique index other than the open stay: %', r.def; end if;
      execute replace(replace(r.def, 'ON public.animal_stay ', 'ON public.animal_stay_current '), '_old ON', ' ON');
    else
      execute replace(r.def, '_old ON', ' ON');
    end if;
  end loop;
  for r in select * from stay_fk loop execute format('alter table animal_stay add constraint %I %s', r.conname, r.def); end loop;
  for r in select * from stay_trigger loop execute r.def; end loop;
end $$;
commit;
vacuum analyze animal_stay;
