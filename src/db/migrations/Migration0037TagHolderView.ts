import { Migration } from '@mikro-orm/migrations';

/** The columns an APPLIED tag takes from its animal (its own are NULL while applied). */
const FROM_ANIMAL = ['last_control_unit_id', 'holder_organization_id', 'holder_federative_unit'];

/**
 * Issue 20 (option b) reads an APPLIED tag's place from its animal through the view
 * `tag_with_place` (Migration0032: the place as a scalar subquery on the animal's key). Its
 * rows carry the holder columns too, the applied tags' taken from their animal, and the applied
 * tags' own holder columns are NULL like their place. Built from the catalog so the view keeps
 * `tag`'s columns in `tag`'s order, whatever they are.
 */
export class Migration0037TagHolderView extends Migration {
  override async up(): Promise<void> {
    this.addSql(`update tag set holder_organization_id = null, holder_federative_unit = null where last_control_unit_id is null and holder_organization_id is not null`);
    this.addSql(`do $$
      declare
        columns text;
      begin
        select string_agg(case when column_name in (${FROM_ANIMAL.map((c) => `'${c}'`).join(', ')})
                               then format('coalesce(t.%1$I, (select a.%1$I from animal a where a.id = t.animal_id)) as %1$I', column_name)
                               else 't.' || quote_ident(column_name) end, ', ' order by ordinal_position)
          into columns from information_schema.columns where table_schema = current_schema() and table_name = 'tag';
        drop view tag_with_place;
        execute 'create view tag_with_place as select ' || columns || ' from tag t';
      end $$`);
  }
}
