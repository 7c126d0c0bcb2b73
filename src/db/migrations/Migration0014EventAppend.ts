import { Migration } from '@mikro-orm/migrations';

/**
 * appendEvents (src/shared/events.ts) in one round trip instead of four: the function takes the
 * streams' locks, reads each stream's head and inserts the events chained to it, hashing in
 * PostgreSQL exactly as verifyChain does in Node: sha256 of `prev + "\n" + body`, body the event's
 * JSON array built by Node (the bytes hashed are UTF-8 on both sides).
 *
 * `keys` are the streams' advisory-lock keys (computed by Node, so every version of the service
 * locks a stream under the same key); `events` a JSON array of {id, t, rt, rid, a, at, p, body}, in
 * the order the events happened. VOLATILE plpgsql: each statement below takes a fresh snapshot, so
 * the heads are read after the locks are held and see every chain committed before.
 */
export class Migration0014EventAppend extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function event_append(keys bigint[], events jsonb) returns void language plpgsql volatile as $$
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
  -- Each stream's events together, in the order given: one head lookup per stream.
  for r in select x.n, x.rt, x.rid, x.body from rows from (jsonb_to_recordset(events) as (rt text, rid uuid, body text)) with ordinality as x(rt, rid, body, n) order by x.rt, x.rid, x.n loop
    if stream is distinct from r.rt || ':' || r.rid then
      stream := r.rt || ':' || r.rid;
      prev := coalesce((select e.str_hash from event e where e.str_record_type = r.rt and e.record_id = r.rid and e.bl_record_chain order by e.seq desc limit 1), repeat('0', 64));
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
