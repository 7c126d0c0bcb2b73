import { Migration } from '@mikro-orm/migrations';

export class Migration0006Invites extends Migration {
  override async up(): Promise<void> {
    // gta_id has no foreign key yet: GTAs arrive later. Accepted is bl_accepted, revoked ts_revoked_at; expiry is derived on read.
    this.addSql(`create table invite (
        id uuid primary key,
        control_unit_id uuid not null references control_unit (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        author_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        user_id uuid not null references "user" (id) on delete cascade deferrable initially deferred,
        gta_id uuid null,
        str_movimentation_type text not null check (str_movimentation_type in ('INGRESS','EGRESS','BOTH')),
        str_type text not null check (str_type in ('OPERATOR','VIEWER')),
        bl_restricted boolean not null default false,
        bl_accepted boolean not null default false,
        ts_expires_at timestamptz null,
        ts_accepted_at timestamptz null,
        ts_revoked_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now(),
        check (not bl_restricted or gta_id is not null)
      )`);
    this.addSql('create index invite_org_created on invite (organization_id, ts_created_at desc, id)');
    this.addSql('create index invite_user on invite (user_id, control_unit_id)');
    this.addSql('create index invite_control_unit on invite (control_unit_id)');
    this.addSql('create index invite_created on invite (ts_created_at desc, id)');
    // A user's request to be invited; organization_id is the unit's, for the scope. Approval creates an accepted invite.
    this.addSql(`create table invite_request (
        id uuid primary key,
        control_unit_id uuid not null references control_unit (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        user_id uuid not null references "user" (id) on delete cascade deferrable initially deferred,
        invite_id uuid null references invite (id) on delete set null deferrable initially deferred,
        decided_by_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        str_movimentation_type text not null check (str_movimentation_type in ('INGRESS','EGRESS','BOTH')),
        str_type text not null check (str_type in ('OPERATOR','VIEWER')),
        str_message text null,
        str_status text not null default 'PENDING' check (str_status in ('PENDING','APPROVED','DENIED','CANCELLED')),
        ts_decided_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql('create index invite_request_org_created on invite_request (organization_id, ts_created_at desc, id)');
    this.addSql('create index invite_request_user on invite_request (user_id, ts_created_at desc, id)');
    this.addSql('create index invite_request_created on invite_request (ts_created_at desc, id)');
  }
}
