import { Migration } from '@mikro-orm/migrations';

/**
 * A trace answer cheaper to store (docs/decisions/trace.md, "Speed"): it is stored in the order of
 * its own columns (`ord`: fewest moves, then the contact's time, seeds first, then the animal), each
 * row with the bounds of its group of equal moves and time. The tag's code orders the animals inside
 * a group when a page or the CSV is read, so storing the answer no longer joins every traced animal
 * to its row and its tag (half of a 1-hop first page); a page joins only the groups it touches.
 */
export class Migration0045TraceAnswerGroups extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table trace_answer add column int_group_from integer null, add column int_group_to integer null');
  }
}
