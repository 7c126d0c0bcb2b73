import { Migration } from '@mikro-orm/migrations';

/** Every column of `tag`, in table order, for the view. */
const TAG_COLUMNS = ['id', 'str_code', 'str_status', 'bl_external_tag', 'tags_box_id', 'last_control_unit_id', 'animal_id', 'tags_reservation_id', 'str_writeoff_reason', 'ts_writeoff_at', 'ts_created_at', 'ts_updated_at'];

/**
 * Issue 20, option b: an applied tag is where its animal is. Its own `last_control_unit_id` is null
 * while it is APPLIED (the check refuses a stale copy), so moving animals no longer rewrites their
 * tags (one non-HOT update through the tag's indexes per animal moved); a tag leaving APPLIED
 * (replaced, written off) gets its place written then.
 *
 * `tag_with_place` is what reads see: the table with the place filled in from the animal, by a
 * scalar subquery on the animal's primary key that runs only for a tag without a place of its own.
 * The view is then one table to the planner, which plans every read of it as it planned `tag`
 * (a join would let it hash-join every tag with every animal for a batch of a few hundred; a UNION
 * ALL of the two kinds of tag is not parameterized inside a lateral join at all: measured, a batch
 * of reads went from 50 to 350 ms of database CPU).
 */
export class Migration0032TagPlaceFromAnimal extends Migration {
  override async up(): Promise<void> {
    this.addSql(`update tag set last_control_unit_id = null where str_status = 'APPLIED'`);
    this.addSql(`alter table tag add constraint tag_applied_place_from_animal check (str_status <> 'APPLIED' or (last_control_unit_id is null and animal_id is not null))`);
    // Applied tags all have a null place now: the unit's stock index leaves them out.
    this.addSql('drop index tag_unit_status_code');
    this.addSql('create index tag_unit_status_code on tag (last_control_unit_id, str_status, str_code) where last_control_unit_id is not null');
    const place = 'coalesce(t.last_control_unit_id, (select a.last_control_unit_id from animal a where a.id = t.animal_id)) as last_control_unit_id';
    const columns = TAG_COLUMNS.map((c) => (c === 'last_control_unit_id' ? place : `t.${c}`)).join(', ');
    this.addSql(`create view tag_with_place as select ${columns} from tag t`);
  }
}
