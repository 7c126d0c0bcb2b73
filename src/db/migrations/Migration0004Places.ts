import { Migration } from '@mikro-orm/migrations';

export class Migration0004Places extends Migration {
  override async up(): Promise<void> {
    // The checks hold the stored forms of src/places/establishment.rules.ts.
    this.addSql(`create table establishment (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        county_id uuid null references county (id) on delete restrict deferrable initially deferred,
        responsible_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        str_name text not null check (str_name <> ''),
        str_type text not null check (str_type in ('FARM','SLAUGHTERHOUSE','FEEDLOT','AUCTION','EXHIBITION','OTHER')),
        str_status text not null default 'ACTIVE' check (str_status in ('ACTIVE','SUSPENDED','INACTIVE')),
        str_socioenvironmental_status text not null default 'NOT_EVALUATED' check (str_socioenvironmental_status in ('COMPLIANT','UNDER_REVIEW','NON_COMPLIANT','NOT_EVALUATED')),
        bl_move_with_tag_reading boolean not null default true,
        lst_invite_movimentation_types jsonb null,
        num_longitude double precision null check (num_longitude between -180 and 180),
        num_latitude double precision null check (num_latitude between -90 and 90),
        dec_area numeric(14,4) null check (dec_area >= 0),
        dec_exploration_area numeric(14,4) null check (dec_exploration_area >= 0),
        str_address text null,
        str_car text null check (str_car ~ '^[A-Z]{2}-[0-9]{7}-[0-9A-F]{32}$'),
        str_code text null,
        str_company_code text null,
        str_document text null,
        str_email text null,
        str_neighborhood text null,
        str_zip_code text null check (str_zip_code ~ '^[0-9]{8}$'),
        ts_unsafe_client_created_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now(),
        check ((num_longitude is null) = (num_latitude is null)),
        check (dec_exploration_area is null or dec_area is null or dec_exploration_area <= dec_area)
      )`);
    this.addSql('create index establishment_org_created on establishment (organization_id, ts_created_at desc, id)');
    this.addSql('create index establishment_created on establishment (ts_created_at desc, id)');
    this.addSql('create index establishment_county on establishment (county_id)');
    this.addSql('create index establishment_responsible on establishment (responsible_user_id)');
    this.addSql(`create table control_unit (
        id uuid primary key,
        establishment_id uuid not null references establishment (id) on delete cascade deferrable initially deferred,
        str_code text not null check (str_code <> ''),
        str_name text not null check (str_name <> ''),
        str_type text not null check (str_type in ('PRODUCTION','SLAUGHTER','EVENT','QUARANTINE','TAG_STOCK')),
        str_predominant_phase text null check (str_predominant_phase in ('BREEDING','REARING','FATTENING','FULL_CYCLE')),
        str_predominant_system text null check (str_predominant_system in ('EXTENSIVE','SEMI_INTENSIVE','INTENSIVE')),
        responsible_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql('create unique index control_unit_code_unique on control_unit (str_code)');
    this.addSql('create index control_unit_establishment on control_unit (establishment_id, ts_created_at desc, id)');
    this.addSql('create index control_unit_created on control_unit (ts_created_at desc, id)');
  }
}
