import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 23: an animal list sorts `<field> DIR, id DIR` (src/shared/search.ts: `ts_created_at desc,
 * id desc` by default), and every animal index that serves a list had `ts_created_at desc, id`:
 * the id the other way. PostgreSQL then walked the index and sorted each run of equal times
 * (an incremental sort), and in the plans made for a parameter's value (a prepared statement's
 * first five runs) it walked `animal_created`, the whole table's newest first, filtering out
 * every other organization's rows before the caller's 50 (about 670 on bench:peers' data). With
 * the id in the list's direction, the owner's and the authority's page is one range of their
 * holder index read in order, 50 rows and no sort, in the custom and the generic plan alike;
 * the administrator's the same on `animal_created` and a unit's list on `animal_unit_created`.
 * Replaced under the same names (docs/decisions/tenancy.md).
 */
export class Migration0066AnimalListOrder extends Migration {
  override async up(): Promise<void> {
    for (const [name, lead] of [
      ['animal_created', ''],
      ['animal_holder_organization', 'holder_organization_id, '],
      ['animal_holder_federative_unit', 'holder_federative_unit, '],
      ['animal_unit_created', 'last_control_unit_id, '],
    ] as const) {
      this.addSql(`drop index ${name}`);
      this.addSql(`create index ${name} on animal (${lead}ts_created_at desc, id desc)`);
    }
  }
}
