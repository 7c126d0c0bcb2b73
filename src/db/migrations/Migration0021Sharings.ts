import { Migration } from '@mikro-orm/migrations';

/**
 * Sharings (DOMAIN.md, "Access between organizations"): an organization grants users and
 * organizations read access to its establishments or control units, per scope. Its status is
 * derived on read from bl_deactivated_manually, ts_scheduled_to and ts_expires_at.
 */
export class Migration0021Sharings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sharing (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        author_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        str_name text not null,
        str_description text null,
        bl_deactivated_manually boolean not null default false,
        ts_scheduled_to timestamptz null,
        ts_expires_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now(),
        check (ts_scheduled_to is null or ts_expires_at is null or ts_expires_at > ts_scheduled_to)
      )`);
    this.addSql('create index sharing_org_created on sharing (organization_id, ts_created_at desc, id)');
    this.addSql('create index sharing_created on sharing (ts_created_at desc, id)');
    // Who is granted: one row per user or organization. A read finds the caller's sharings by these
    // indexes (user, then active organization), so the grant is a handful of rows, not a scan.
    this.addSql(`create table sharing_grantee (
        sharing_id uuid not null references sharing (id) on delete cascade deferrable initially deferred,
        user_id uuid null references "user" (id) on delete cascade deferrable initially deferred,
        organization_id uuid null references organization (id) on delete cascade deferrable initially deferred,
        check (num_nonnulls(user_id, organization_id) = 1)
      )`);
    this.addSql('create unique index sharing_grantee_user on sharing_grantee (user_id, sharing_id) where user_id is not null');
    this.addSql('create unique index sharing_grantee_organization on sharing_grantee (organization_id, sharing_id) where organization_id is not null');
    this.addSql('create index sharing_grantee_sharing on sharing_grantee (sharing_id)');
    // What is shared: an establishment (control_unit_id null: every unit of it, present and future)
    // or one of its control units, with a scope.
    this.addSql(`create table sharing_access (
        sharing_id uuid not null references sharing (id) on delete cascade deferrable initially deferred,
        establishment_id uuid not null references establishment (id) on delete cascade deferrable initially deferred,
        control_unit_id uuid null references control_unit (id) on delete cascade deferrable initially deferred,
        str_scope text not null check (str_scope in ('ANIMALS','MOVEMENTS','TAGS','ALL')),
        int_position int not null,
        unique (sharing_id, int_position)
      )`);
    this.addSql('create index sharing_access_establishment on sharing_access (establishment_id)');
  }
}
