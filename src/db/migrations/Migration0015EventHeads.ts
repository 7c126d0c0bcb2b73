import { Migration } from '@mikro-orm/migrations';

/**
 * event_append (Migration0014EventAppend) looked up each stream's head with one statement per stream
 * inside its loop. PL/pgSQL caches a generic plan for that statement after five calls, and on
 * statistics taken while the log was small PostgreSQL's generic plan walked the whole log backwards
 * by `seq` for each head: a 5,000-animal reconciliation spent 4 to 33 seconds there.
 *
 * Now every head is read in one statement before the loop, ordered by the `event_record` index's
 * own columns so that no plan but that index's backward scan can answer it (any other needs a sort
 * of the stream's events), and the loop only hashes.
 */
export class Migration0015EventHeads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function event_append(keys bigint[], events jsonb) returns void language plpgsql volatile as $$
declare
  r record;
  stream text := null;
  prev text;
  ns bigint[] := '{}';
  prevs text[] := '{}';
  hashes text[] := '{}';
begin
  -- Deferred foreign keys would otherwise be checked at commit, locking the rows they name after the
  -- streams' locks are held: two writers of one record then wait for each other. Checked now, the
  -- streams' locks are the last ones the transaction takes.
  set constraints all immediate;
  -- In key order, so two appenders never hold them crosswise.
  perform count(pg_advisory_xact_lock(k)) from (select distinct k from unnest(keys) as k order by 1) sorted;
  -- Read after the locks are held (a fresh snapshot per statement): each stream's head, then each
  -- stream's events together in the order given.
  for r in
    with given as (
      select x.n, x.rt, x.rid, x.body
        from rows from (jsonb_to_recordset(events) as (rt text, rid uuid, body text)) with ordinality as x(rt, rid, body, n)
    ), heads as (
      select s.rt, s.rid, h.str_hash as head
        from (select distinct g.rt, g.rid from given g) s
        left join lateral (
          select e.str_hash from event e
           where e.str_record_type = s.rt and e.record_id = s.rid and e.bl_record_chain
           order by e.str_record_type desc, e.record_id desc, e.seq desc
           limit 1
        ) h on true
    )
    select g.n, g.rt, g.rid, g.body, heads.head from given g join heads on heads.rt = g.rt and heads.rid = g.rid
     order by g.rt, g.rid, g.n
  loop
    if stream is distinct from r.rt || ':' || r.rid then
      stream := r.rt || ':' || r.rid;
      prev := coalesce(r.head, repeat('0', 64));
    end if;
    ns := ns || r.n;
    prevs := prevs || prev;
    prev := encode(sha256(convert_to(prev || E'\\n' || r.body, 'UTF8')), 'hex');
    hashes := hashes || prev;
  end loop;
  -- In the order given (ordinality), so each stream's seq follows its chain.
  insert into event (id, str_type, str_record_type, record_id, actor_id, ts_occurred_at, str_payload, str_prev_hash, str_hash)
  select x.id, x.t, x.rt, x.rid, x.a, x.at, x.p, c.prev, c.hash
    from rows from (jsonb_to_recordset(events) as (id uuid, t text, rt text, rid uuid, a uuid, at timestamptz, p text)) with ordinality as x(id, t, rt, rid, a, at, p, n)
    join unnest(ns, prevs, hashes) as c(n, prev, hash) on c.n = x.n
   order by x.n;
end $$`);
  }
}
