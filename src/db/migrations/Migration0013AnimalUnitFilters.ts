import { Migration } from '@mikro-orm/migrations';

export class Migration0013AnimalUnitFilters extends Migration {
  override async up(): Promise<void> {
    // A search's total counts the caller's units' animals by species, gender or status: read from
    // this index alone (an index-only scan of those units' entries), never from the table's pages.
    this.addSql('create index animal_unit_filters on animal (last_control_unit_id) include (str_species, str_gender, str_status)');
  }
}
