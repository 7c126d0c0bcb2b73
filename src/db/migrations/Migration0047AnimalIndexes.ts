import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 20 (the speed of a move): a move rewrites its animals' rows and, since a move changes an
 * indexed column (the unit), every index of `animal` gets a new entry per animal. `animal_identification`
 * (tags_identification_id, partial) is the leading column of `animal_identification_time`
 * (Migration0027, the same predicate), which answers every look-up it answered: one index fewer
 * to write for each identified animal moved.
 */
export class Migration0047AnimalIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index if exists animal_identification');
  }
}
