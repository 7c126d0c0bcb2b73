import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 20: a bulk operation appends one event on its own record that lists every animal or tag
 * it touched (GS1 EPCIS's ObjectEvent and its epcList), where it appended one event per animal.
 * The list is stored once, here, one narrow row per listed record: the listing event's seq, the
 * record, its own time when it differs from the event's, and what is its own in that event (JSON,
 * merged over the event's template when its history is read). The event's hash covers the list
 * (src/shared/events.ts), so verifyChain recomputes it from these rows: a row removed, added or
 * changed breaks the event's hash.
 *
 * Indexed by the listing event (verifyChain reads them so; one key per event, so PostgreSQL's
 * B-tree deduplication keeps that index a few bytes per row, appended at its right edge) and by the
 * record (an animal's history). No primary key: the event's hash already refuses a list with a
 * record twice or one too many, and a composite key cost 15% more bytes. No foreign key to event:
 * each would be checked row by row, and the log is append-only anyway.
 *
 * event_append takes the list as a third argument and inserts it with the events, in the same
 * statement: the events' new seqs are joined to their rows by the event's id.
 */
export class Migration0026EventSubjects extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table event_subject (
      event_seq bigint not null,
      str_record_type text not null,
      record_id uuid not null,
      ts_occurred_at timestamptz null,
      str_detail text null
    )`);
    this.addSql('create index event_subject_event on event_subject (event_seq)');
    this.addSql('create index event_subject_record on event_subject (record_id, event_seq)');
    this.addSql(`create function event_subject_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'event log is append-only';
      end $$`);
    this.addSql('create trigger event_subject_no_update before update or delete on event_subject for each row execute function event_subject_append_only()');
    this.addSql('drop function event_append(bigint[], jsonb)');
    this.addSql(`create function event_append(keys bigint[], events jsonb, subjects jsonb default '[]') returns void language plpgsql volatile as $$
declare
  r record;
  stream text := null;
  prev text;
  ns bigint[] := '{}';
  prevs text[] := '{}';
  hashes text[] := '{}';
begin
  -- As in Migration0015EventHeads: deferred checks made immediate, the streams' locks in key
  -- order, every head read in one statement, the loop only hashes.
  set constraints all immediate;
  perform count(pg_advisory_xact_lock(k)) from (select distinct k from unnest(keys) as k order by 1) sorted;
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
  with inserted as (
    insert into event (id, str_type, str_record_type, record_id, actor_id, ts_occurred_at, str_payload, str_prev_hash, str_hash)
    select x.id, x.t, x.rt, x.rid, x.a, x.at, x.p, c.prev, c.hash
      from rows from (jsonb_to_recordset(events) as (id uuid, t text, rt text, rid uuid, a uuid, at timestamptz, p text)) with ordinality as x(id, t, rt, rid, a, at, p, n)
      join unnest(ns, prevs, hashes) as c(n, prev, hash) on c.n = x.n
     order by x.n
    returning seq, id
  )
  insert into event_subject (event_seq, str_record_type, record_id, ts_occurred_at, str_detail)
  select i.seq, s.rt, s.rid, s.at, s.d
    from jsonb_to_recordset(subjects) as s(e uuid, rt text, rid uuid, at timestamptz, d text) join inserted i on i.id = s.e;
end $$`);
  }
}
