import { Migration } from '@mikro-orm/migrations';

/** Every column of `tag`, in table order, for the view. */
const TAG_COLUMNS = ['id', 'str_code', 'str_status', 'bl_external_tag', 'tags_box_id', 'last_control_unit_id', 'animal_id', 'tags_reservation_id', 'str_writeoff_reason', 'ts_writeoff_at', 'ts_created_at', 'ts_updated_at'];

/**
 * Issue 20, option b: an applied tag is where its animal is. Its own `last_control_unit_id` is null
 * while it is APPLIED (the check refuses a stale copy), so moving animals no longer rewrites their
 * tags (one non-HOT update through the tag's indexes per animal moved); a tag leaving APPLIED
 * (replaced, written off) gets its place written then.
 *
 * `tag_with_place` is what reads see: the table with the place filled in from the animal (a left
 * join on its primary key, only for tags without a place of their own). A plain join, so that the
 * planner folds it into the reading statement: a lookup by id stays two index look-ups, also inside
 * the laterals of a page's relations. (A UNION ALL of the two kinds of tag would let a condition on
 * the place reach an index in each branch, but PostgreSQL does not parameterize a UNION ALL inside
 * a lateral join: an animal page's `current_tag` then hash-joined every tag, measured.)
 */
export class Migration0032TagPlaceFromAnimal extends Migration {
  override async up(): Promise<void> {
    this.addSql(`update tag set last_control_unit_id = null where str_status = 'APPLIED'`);
    this.addSql(`alter table tag add constraint tag_applied_place_from_animal check (str_status <> 'APPLIED' or (last_control_unit_id is null and animal_id is not null))`);
    // Applied tags all have a null place now: the unit's stock index leaves them out.
    this.addSql('drop index tag_unit_status_code');
    this.addSql('create index tag_unit_status_code on tag (last_control_unit_id, str_status, str_code) where last_control_unit_id is not null');
    const columns = TAG_COLUMNS.map((c) => (c === 'last_control_unit_id' ? 'coalesce(t.last_control_unit_id, a.last_control_unit_id) as last_control_unit_id' : `t.${c}`)).join(', ');
    this.addSql(`create view tag_with_place as
      select ${columns} from tag t left join animal a on a.id = t.animal_id and t.last_control_unit_id is null`);
  }
}
