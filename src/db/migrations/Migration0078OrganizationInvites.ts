import { Migration } from '@mikro-orm/migrations';

/**
 * An organization's invitation of a person (POST /api/users, docs/decisions/identity.md): the
 * person joins only when they accept it (the mailed token), or, for an account the invitation
 * created, when they confirm their registration. One pending invitation per person and organization.
 */
export class Migration0078OrganizationInvites extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization_invite (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        user_id uuid not null references "user" (id) on delete cascade deferrable initially deferred,
        invited_by_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        str_role text not null check (str_role in ('OWNER','MANAGER','OPERATOR','VIEWER')),
        str_status text not null check (str_status in ('PENDING','ACCEPTED','DECLINED')),
        bl_joins_on_confirmation boolean not null,
        token_hash text null,
        ts_expires_at timestamptz not null,
        ts_decided_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index organization_invite_pending on organization_invite (organization_id, user_id) where str_status = 'PENDING'`);
    this.addSql(`create unique index organization_invite_token on organization_invite (token_hash)`);
    this.addSql(`create index organization_invite_user on organization_invite (user_id) where str_status = 'PENDING'`);
  }
}
