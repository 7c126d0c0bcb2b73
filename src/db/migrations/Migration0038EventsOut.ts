import { Migration } from '@mikro-orm/migrations';

/**
 * Events out (issue 24, docs/decisions/events-out.md). Each event remembers the transaction that
 * wrote it (xid8): the relay reads the log by windows of finished transactions (below the snapshot's
 * xmin), so it never passes an event that an open transaction will still commit. Rows written
 * before this migration keep a null xid: they are not sent. relay_consumer keeps each consumer's
 * position; its row is locked (FOR UPDATE SKIP LOCKED) by the one instance relaying for it.
 */
export class Migration0038EventsOut extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table event add column xid xid8 null');
    this.addSql('alter table event alter column xid set default pg_current_xact_id()');
    this.addSql('create index event_xid on event (xid, seq) where xid is not null');
    this.addSql(`create table relay_consumer (
        str_name text primary key,
        xid_position xid8 not null,
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql(`create table webhook_endpoint (
        id uuid primary key,
        user_id uuid not null references "user" (id) deferrable initially deferred,
        organization_id uuid null references organization (id) deferrable initially deferred,
        str_url text not null,
        str_description text null,
        str_secret text not null,
        str_event_types text[] not null default '{}',
        str_record_types text[] not null default '{}',
        record_ids uuid[] not null default '{}',
        bl_active boolean not null default true,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now(),
        ts_deleted_at timestamptz null
      )`);
    this.addSql('create index webhook_endpoint_user on webhook_endpoint (user_id) where ts_deleted_at is null');
    this.addSql(`create table webhook_delivery (
        id uuid primary key,
        endpoint_id uuid not null references webhook_endpoint (id) deferrable initially deferred,
        event_seq bigint not null,
        event_id uuid not null,
        str_record_key text not null,
        str_status text not null default 'PENDING' check (str_status in ('PENDING', 'DELIVERED', 'FAILED')),
        int_attempts int not null default 0,
        ts_next_attempt_at timestamptz not null default now(),
        ts_lease_until timestamptz null,
        int_last_status int null,
        str_last_error text null,
        ts_created_at timestamptz not null default now(),
        ts_delivered_at timestamptz null
      )`);
    // The worker's queue: what is due; per (endpoint, record) the oldest pending goes first.
    this.addSql("create index webhook_delivery_due on webhook_delivery (ts_next_attempt_at) where str_status = 'PENDING'");
    this.addSql("create index webhook_delivery_lane on webhook_delivery (endpoint_id, str_record_key, event_seq) where str_status = 'PENDING'");
    this.addSql('create index webhook_delivery_log on webhook_delivery (endpoint_id, event_seq)');
  }
}
