import { Migration } from '@mikro-orm/migrations';

export class Migration0003Vehicles extends Migration {
  override async up(): Promise<void> {
    // Plates are kept in the Mercosul form and RENAVAMs as 11 digits (src/transit/vehicle.rules.ts); the checks hold that.
    this.addSql(`create table vehicle (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        owner_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        str_brand text null,
        str_color text null,
        str_fuel text null,
        str_last_registration text null,
        str_license_plate text not null check (str_license_plate ~ '^[A-Z]{3}[0-9][A-Z][0-9]{2}$'),
        str_model text null,
        str_renavam_number text null check (str_renavam_number ~ '^[0-9]{11}$'),
        str_trailer_plate text null check (str_trailer_plate ~ '^[A-Z]{3}[0-9][A-Z][0-9]{2}$'),
        str_type text null,
        str_year_of_manufacture text null,
        lt_path text null,
        ts_unsafe_client_created_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql('create unique index vehicle_license_plate_unique on vehicle (str_license_plate)');
    this.addSql('create unique index vehicle_renavam_unique on vehicle (str_renavam_number) where str_renavam_number is not null');
    this.addSql('create index vehicle_org_created on vehicle (organization_id, ts_created_at desc, id)');
    this.addSql('create index vehicle_owner on vehicle (owner_id)');
  }
}
