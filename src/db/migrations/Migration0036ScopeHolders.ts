import { Migration } from '@mikro-orm/migrations';

/**
 * The unit-scoped tables that carry their unit's holder (docs/decisions/tenancy.md): the column
 * naming the unit and the columns its lists sort by. `guarded`: a row moved to another unit by a
 * statement that does not name the holder takes the new unit's from a trigger. Animals are not
 * guarded: their moves (thousands of rows, often within one organization, where the holder does
 * not change and the trigger could not tell) name the holder themselves; stays never move.
 */
export const HOLDER_TABLES = [
  { table: 'animal', unit: 'last_control_unit_id', order: 'ts_created_at desc, id', guarded: false },
  { table: 'tag', unit: 'last_control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'animal_stay', unit: 'control_unit_id', order: 'ts_from', guarded: false },
  { table: 'occurrence', unit: 'control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'tags_box', unit: 'control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'tags_reservation', unit: 'control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'tags_identification', unit: 'control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'tags_replacement', unit: 'control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'tags_writeoff', unit: 'control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'tags_ingress', unit: 'to_control_unit_id', order: 'ts_created_at desc, id', guarded: true },
  { table: 'animals_ingress', unit: 'to_control_unit_id', order: 'ts_created_at desc, id', guarded: true },
] as const;

/**
 * Issue 23: every unit-scoped row carries the organization holding its unit and the federative
 * unit where the unit is (`holder_organization_id`, the tenant key a distributed PostgreSQL would
 * shard on, and `holder_federative_unit`), so a scope's own part is an equality on the row's index.
 */
export class Migration0036ScopeHolders extends Migration {
  override async up(): Promise<void> {
    // The holder of a unit, in one place: what the fill, the triggers and the consistency test compare.
    this.addSql(`create view unit_holder as
      select cu.id as control_unit_id, e.organization_id as holder_organization_id, c.str_federative_unit as holder_federative_unit
        from control_unit cu join establishment e on e.id = cu.establishment_id left join county c on c.id = e.county_id`);
    // A row inserted (or, on guarded tables, moved) without its holder takes its unit's: the writers
    // of many rows at once name the holder in their own statement and skip this.
    this.addSql(`create function holder_fill() returns trigger language plpgsql as $$
      begin
        select h.holder_organization_id, h.holder_federative_unit into new.holder_organization_id, new.holder_federative_unit
          from unit_holder h where h.control_unit_id = (to_jsonb(new) ->> tg_argv[0])::uuid;
        return new;
      end $$`);
    for (const { table, unit, order, guarded } of HOLDER_TABLES) {
      this.addSql(`alter table ${table} add column holder_organization_id uuid null, add column holder_federative_unit text null`);
      // Set-based: one join over the table, no per-row work (a million animals in seconds).
      this.addSql(`update ${table} x set holder_organization_id = h.holder_organization_id, holder_federative_unit = h.holder_federative_unit
        from unit_holder h where h.control_unit_id = x.${unit}`);
      this.addSql(`create index ${table}_holder_organization on ${table} (holder_organization_id, ${order})`);
      this.addSql(`create index ${table}_holder_federative_unit on ${table} (holder_federative_unit, ${order})`);
      this.addSql(`create trigger ${table}_holder_on_insert before insert on ${table} for each row when (new.holder_organization_id is null and new.${unit} is not null) execute function holder_fill('${unit}')`);
      if (guarded) {
        const holderKept = 'old.holder_organization_id is not distinct from new.holder_organization_id and old.holder_federative_unit is not distinct from new.holder_federative_unit';
        this.addSql(`create trigger ${table}_holder_on_move before update of ${unit} on ${table} for each row
          when (old.${unit} is distinct from new.${unit} and ${holderKept}) execute function holder_fill('${unit}')`);
      }
    }
    // An establishment that changes organization or county, or a county that changes federative
    // unit, moves the holder of every row at its units: rare, set-based, in the same statement.
    const refresh = (units: string) =>
      HOLDER_TABLES.map(
        ({ table, unit }) => `update ${table} x set holder_organization_id = h.holder_organization_id, holder_federative_unit = h.holder_federative_unit
          from unit_holder h where h.control_unit_id = x.${unit} and x.${unit} in (${units});`,
      ).join('\n');
    this.addSql(`create function holder_refresh_establishment() returns trigger language plpgsql as $$
      begin
        ${refresh('select cu.id from control_unit cu where cu.establishment_id = new.id')}
        return null;
      end $$`);
    this.addSql(`create trigger establishment_holder_refresh after update of organization_id, county_id on establishment for each row
      when (old.organization_id is distinct from new.organization_id or old.county_id is distinct from new.county_id) execute function holder_refresh_establishment()`);
    this.addSql(`create function holder_refresh_county() returns trigger language plpgsql as $$
      begin
        ${refresh('select cu.id from control_unit cu join establishment e on e.id = cu.establishment_id where e.county_id = new.id')}
        return null;
      end $$`);
    this.addSql(`create trigger county_holder_refresh after update of str_federative_unit on county for each row
      when (old.str_federative_unit is distinct from new.str_federative_unit) execute function holder_refresh_county()`);
  }
}
