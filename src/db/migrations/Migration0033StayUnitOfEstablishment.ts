import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 20: a stay's unit and establishment were two foreign keys, each checked row by row at
 * commit (an ingress finish of 5,000 animals opens 5,000 stays: 10,000 checks of the same two
 * rows). One composite key to the unit and its establishment checks both in one look-up per row,
 * and also refuses a stay whose establishment is not its unit's (two keys let that through).
 * The establishment is still protected from deletion through its units' own key.
 */
export class Migration0033StayUnitOfEstablishment extends Migration {
  override async up(): Promise<void> {
    this.addSql('create unique index control_unit_of_establishment on control_unit (id, establishment_id)');
    this.addSql(`alter table animal_stay
        drop constraint animal_stay_control_unit_id_fkey,
        drop constraint animal_stay_establishment_id_fkey,
        add constraint animal_stay_unit_of_establishment foreign key (control_unit_id, establishment_id)
          references control_unit (id, establishment_id) on delete restrict deferrable initially deferred`);
  }
}
