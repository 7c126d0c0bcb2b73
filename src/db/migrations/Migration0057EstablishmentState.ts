import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 23, the authority's establishments and animal search (docs/decisions/tenancy.md).
 *
 * - `establishment.holder_federative_unit`: the UF of its county, kept as the unit-scoped tables
 *   keep theirs (Migration0036ScopeHolders): set on insert and on a change of county by a trigger,
 *   refreshed when a county's `str_federative_unit` changes. An authority's establishments are then
 *   one equality on an index that also holds the list's order, instead of the establishments of
 *   every county of its state (200 index probes for a count).
 * - Animals: `(holder, str_species, str_gender, str_status)` for each holder column, so a search's
 *   count by the usual filters reads one range of one index, as `animal_unit_filters` does for units.
 */
export class Migration0057EstablishmentState extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table establishment add column holder_federative_unit text null');
    this.addSql('update establishment e set holder_federative_unit = c.str_federative_unit from county c where c.id = e.county_id');
    this.addSql('create index establishment_holder_federative_unit on establishment (holder_federative_unit, ts_created_at desc, id)');
    // A state's count: an index-only scan of this one (deduplicated, a tenth of the one above's size,
    // which PostgreSQL prices above reading the table).
    this.addSql('create index establishment_state on establishment (holder_federative_unit)');
    // Whatever the statement wrote, the column is its county's: a writer cannot set it wrong.
    this.addSql(`create function establishment_state_fill() returns trigger language plpgsql as $$
      begin
        new.holder_federative_unit := (select c.str_federative_unit from county c where c.id = new.county_id);
        return new;
      end $$`);
    this.addSql(`create trigger establishment_state_on_write before insert or update of county_id, holder_federative_unit on establishment
      for each row execute function establishment_state_fill()`);
    this.addSql(`create function establishment_state_refresh_county() returns trigger language plpgsql as $$
      begin
        update establishment e set holder_federative_unit = new.str_federative_unit where e.county_id = new.id;
        return null;
      end $$`);
    this.addSql(`create trigger county_establishment_state_refresh after update of str_federative_unit on county for each row
      when (old.str_federative_unit is distinct from new.str_federative_unit) execute function establishment_state_refresh_county()`);
    for (const holder of ['holder_organization_id', 'holder_federative_unit']) {
      this.addSql(`create index animal_${holder.replace(/_id$/, '')}_filters on animal (${holder}, str_species, str_gender, str_status)`);
    }
  }
}
