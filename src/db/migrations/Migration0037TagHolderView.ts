import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 20 (option b) reads an APPLIED tag's place from its animal through the view
 * `tag_with_place` (its place column is NULL while applied). Once that view exists, its rows carry
 * the holder columns too, the applied tags' taken from their animal, and the applied tags' own
 * holder columns are NULL like their place. Built from the catalog so the view keeps `tag`'s
 * columns in `tag`'s order, whatever they are. A no-op on a database without the view.
 */
export class Migration0037TagHolderView extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$
      declare
        fromAnimal text;
      begin
        if to_regclass('tag_with_place') is null then return; end if;
        update tag set holder_organization_id = null, holder_federative_unit = null where last_control_unit_id is null and holder_organization_id is not null;
        select string_agg(case when column_name in ('last_control_unit_id', 'holder_organization_id', 'holder_federative_unit') then 'a.' else 't.' end || quote_ident(column_name), ', ' order by ordinal_position)
          into fromAnimal from information_schema.columns where table_schema = current_schema() and table_name = 'tag';
        drop view tag_with_place;
        execute 'create view tag_with_place as select t.* from tag t where t.last_control_unit_id is not null union all select '
          || fromAnimal || ' from tag t join animal a on a.id = t.animal_id where t.last_control_unit_id is null';
      end $$`);
  }
}
