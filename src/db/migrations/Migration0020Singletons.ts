import { Migration } from '@mikro-orm/migrations';

/**
 * The singletons (DOMAIN.md, "Singletons"): feature flags per user and per organization, the
 * published privacy terms, and the one-time codes that verify a user. Home is read from what exists.
 */
export class Migration0020Singletons extends Migration {
  override async up(): Promise<void> {
    // One row per user or organization: what it turns on and off on top of USER_FEATURES_DEFAULT.
    for (const [table, owner, target] of [['user_feature', 'user_id', '"user"'], ['organization_feature', 'organization_id', 'organization']] as const) {
      this.addSql(`create table ${table} (
          ${owner} uuid primary key references ${target} (id) on delete cascade deferrable initially deferred,
          lst_enabled text[] not null default '{}',
          lst_disabled text[] not null default '{}',
          ts_created_at timestamptz not null default now(),
          ts_updated_at timestamptz not null default now(),
          check (not (lst_enabled && lst_disabled))
        )`);
    }
    // Every version ever published; the current one is the latest.
    this.addSql(`create table privacy_terms (
        id uuid primary key,
        str_version text not null check (str_version <> ''),
        str_text text not null check (str_text <> ''),
        publisher_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        ts_published_at timestamptz not null default now(),
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql('create unique index privacy_terms_version_unique on privacy_terms (str_version)');
    this.addSql('create index privacy_terms_published on privacy_terms (ts_published_at desc, id desc)');
    // A user's live code: one at a time (a new one replaces it), kept as an HMAC, never the digits.
    this.addSql(`create table user_verification_code (
        user_id uuid primary key references "user" (id) on delete cascade deferrable initially deferred,
        str_channel text not null check (str_channel in ('EMAIL','SMS')),
        str_code_hash text not null,
        int_attempts integer not null default 0 check (int_attempts >= 0),
        ts_expires_at timestamptz not null,
        ts_created_at timestamptz not null default now()
      )`);
  }
}
