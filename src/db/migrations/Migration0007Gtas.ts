import { Migration } from '@mikro-orm/migrations';

export class Migration0007Gtas extends Migration {
  override async up(): Promise<void> {
    // The checks hold the stored forms of src/movements/gta.rules.ts; EXPIRED is derived on read, never stored.
    this.addSql(`create table gta (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        str_code text not null check (str_code <> ''),
        int_animal_quantity integer not null check (int_animal_quantity > 0),
        str_federative_unit text not null check (str_federative_unit ~ '^[A-Z]{2}$'),
        str_series text null,
        str_status text not null default 'ISSUED' check (str_status in ('ISSUED','IN_USE','RECEIVED','CANCELLED')),
        str_purpose text not null check (str_purpose in ('SLAUGHTER','FATTENING','BREEDING','EXHIBITION','AUCTION','OTHER')),
        str_species text not null default 'BOVINE' check (str_species in ('BOVINE','BUBALINE')),
        str_external_id text null,
        from_control_unit_id uuid not null references control_unit (id) on delete restrict deferrable initially deferred,
        to_control_unit_id uuid not null references control_unit (id) on delete restrict deferrable initially deferred,
        from_establishment_id uuid not null references establishment (id) on delete restrict deferrable initially deferred,
        to_establishment_id uuid not null references establishment (id) on delete restrict deferrable initially deferred,
        ts_issued_at timestamptz not null,
        ts_valid_until timestamptz not null,
        responsible_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        issuer_user_id uuid null references "user" (id) on delete set null deferrable initially deferred,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index gta_uf_series_code_unique on gta (str_federative_unit, coalesce(str_series, ''), str_code)`);
    this.addSql('create index gta_org_created on gta (organization_id, ts_created_at desc, id)');
    this.addSql('create index gta_to_establishment on gta (to_establishment_id)');
    this.addSql('create index gta_uf_created on gta (str_federative_unit, ts_created_at desc, id)');
    this.addSql('create index gta_created on gta (ts_created_at desc, id)');
  }
}
