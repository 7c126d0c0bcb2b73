import { Migration } from '@mikro-orm/migrations';

/**
 * A lot's EUDR due diligence statement as a record (issue 38; docs/decisions/eudr.md, "The statement"):
 * the lot as it was given and the animals it held then, what TRACES answered on submission, and the
 * upstream statements it references. `eudr_statement_animal` lets an animal show the statements it
 * is part of; `gta_id` lets the lot's GTA show them.
 */
export class Migration0080EudrStatements extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table eudr_statement (
        id uuid primary key,
        organization_id uuid null references organization (id) on delete cascade deferrable initially deferred,
        created_by_id uuid not null references "user" (id) deferrable initially deferred,
        lot jsonb not null,
        gta_id uuid null references gta (id) deferrable initially deferred,
        int_animals integer not null,
        str_reference_number text null,
        str_verification_number text null,
        str_dds_identifier uuid null,
        upstream_statements jsonb not null default '[]',
        ts_submitted_at timestamptz null,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql('create index eudr_statement_org_created on eudr_statement (organization_id, ts_created_at desc, id)');
    this.addSql('create index eudr_statement_gta on eudr_statement (gta_id) where gta_id is not null');
    this.addSql('create unique index eudr_statement_reference_unique on eudr_statement (str_reference_number) where str_reference_number is not null');
    this.addSql(`create table eudr_statement_animal (
        statement_id uuid not null references eudr_statement (id) on delete cascade deferrable initially deferred,
        animal_id uuid not null references animal (id) deferrable initially deferred,
        primary key (statement_id, animal_id)
      )`);
    this.addSql('create index eudr_statement_animal_animal on eudr_statement_animal (animal_id)');
  }
}
