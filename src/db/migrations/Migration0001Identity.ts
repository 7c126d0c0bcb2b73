import { Migration } from '@mikro-orm/migrations';

export class Migration0001Identity extends Migration {
  override async up(): Promise<void> {
    const sql = `
      create table organization (
        id uuid primary key,
        str_name text not null,
        str_document text not null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      );

      create unique index organization_document_unique on organization (str_document);

      create index organization_created on organization (ts_created_at desc, id);

      create table "user" (
        id uuid primary key,
        str_name text not null,
        str_email text not null,
        str_document text not null,
        str_type text not null check (str_type in ('PRODUCER','TECHNICIAN','TRANSPORTER','SLAUGHTERHOUSE','AUTHORITY','INTEGRATION','OTHER')),
        bl_admin boolean not null default false,
        bl_verified boolean not null default false,
        str_phone text null,
        county_id uuid null,
        organization_id uuid null references organization (id) on delete set null deferrable initially deferred,
        ts_terms_accepted_at timestamptz null,
        password_hash text null,
        ts_registration_confirmed_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      );

      create unique index user_email_unique on "user" (lower(str_email));

      create unique index user_document_unique on "user" (str_document);

      create index user_created on "user" (ts_created_at desc, id);

      create table membership (
        id uuid primary key,
        user_id uuid not null references "user" (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        str_role text not null check (str_role in ('OWNER','MANAGER','OPERATOR','VIEWER')),
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      );

      create unique index membership_user_org_unique on membership (user_id, organization_id);

      create index membership_org on membership (organization_id);

      create table auth_session (
        id uuid primary key,
        user_id uuid not null references "user" (id) on delete cascade deferrable initially deferred,
        ts_created_at timestamptz not null default now(),
        ts_revoked_at timestamptz null,
        str_revoke_reason text null
      );

      create index auth_session_user on auth_session (user_id);

      create table refresh_token (
        id uuid primary key,
        session_id uuid not null references auth_session (id) on delete cascade deferrable initially deferred,
        token_hash text not null,
        organization_id uuid null,
        ts_created_at timestamptz not null default now(),
        ts_expires_at timestamptz not null,
        ts_used_at timestamptz null,
        next_jti uuid null,
        next_iat integer null
      );

      create unique index refresh_token_hash_unique on refresh_token (token_hash);

      create index refresh_token_session on refresh_token (session_id);

      create table user_token (
        id uuid primary key,
        user_id uuid not null references "user" (id) on delete cascade deferrable initially deferred,
        str_purpose text not null check (str_purpose in ('RECOVER_PASSWORD','CONFIRM_REGISTRATION')),
        token_hash text not null,
        ts_created_at timestamptz not null default now(),
        ts_expires_at timestamptz not null,
        ts_used_at timestamptz null
      );

      create unique index user_token_hash_unique on user_token (token_hash);

      create table sent_message (
        id uuid primary key,
        str_to text not null,
        str_subject text not null,
        str_body text not null,
        ts_created_at timestamptz not null default now()
      );

      create index sent_message_to on sent_message (lower(str_to), ts_created_at);

      create table event (
        seq bigserial primary key,
        id uuid not null unique,
        str_type text not null,
        str_record_type text not null,
        record_id uuid not null,
        actor_id uuid null,
        ts_occurred_at timestamptz not null,
        str_payload text not null,
        str_prev_hash text not null,
        str_hash text not null
      );

      create index event_record on event (str_record_type, record_id, seq);

      create function event_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'event log is append-only';
      end $$;

      create trigger event_no_update before update or delete on event
        for each row execute function event_append_only();

    `;
    // One statement per call: the PGlite driver runs each through the extended protocol.
    for (const statement of sql.split(/;\s*\n\s*\n/)) if (statement.trim()) this.addSql(statement);
  }
}
