import { Migration } from '@mikro-orm/migrations';

/**
 * Rows with two units, each side carrying its unit's holder as Migration0036ScopeHolders's tables
 * carry theirs: `<prefix>holder_organization_id` and `<prefix>holder_federative_unit` next to the
 * unit column. Animal egresses (the movements lists): from the origin and to the destination.
 */
export const TWO_SIDED_HOLDERS = [
  { table: 'animals_egress', unit: 'from_control_unit_id', prefix: 'from_', order: 'ts_created_at desc, id' },
  { table: 'animals_egress', unit: 'to_control_unit_id', prefix: 'to_', order: 'ts_created_at desc, id' },
] as const;

/**
 * Issue 23, the movements lists: an egress is seen by whoever sees either of its units. Its scope
 * hashed every unit of the caller's organization (or federative unit) twice; with each side's
 * holder on the row the caller's own part is four equalities the row's indexes answer. Kept by
 * triggers, per row (an egress is one row per movement, written by the ORM): an insert without the
 * holders takes its units', a change of unit that leaves them as they were takes the new unit's,
 * and an establishment or county that moves refreshes the egresses at its units, as
 * Migration0036's function does for the one-unit tables.
 */
export class Migration0049EgressHolders extends Migration {
  override async up(): Promise<void> {
    for (const { table, prefix } of TWO_SIDED_HOLDERS) {
      this.addSql(`alter table ${table} add column ${prefix}holder_organization_id uuid null, add column ${prefix}holder_federative_unit text null`);
    }
    // One update per table fills every side: a second update of rows this transaction already
    // updated would queue their deferred foreign-key checks (the row is "our own" then), and the
    // index builds below refuse a table with pending trigger events.
    for (const table of new Set(TWO_SIDED_HOLDERS.map((side) => side.table))) {
      const sides = TWO_SIDED_HOLDERS.filter((side) => side.table === table);
      const set = sides.map(({ unit, prefix }) => `${prefix}holder_organization_id = (select h.holder_organization_id from unit_holder h where h.control_unit_id = x.${unit}),
        ${prefix}holder_federative_unit = (select h.holder_federative_unit from unit_holder h where h.control_unit_id = x.${unit})`);
      this.addSql(`update ${table} x set ${set.join(', ')}`);
    }
    for (const { table, prefix, order } of TWO_SIDED_HOLDERS) {
      this.addSql(`create index ${table}_${prefix}holder_organization on ${table} (${prefix}holder_organization_id, ${order})`);
      this.addSql(`create index ${table}_${prefix}holder_federative_unit on ${table} (${prefix}holder_federative_unit, ${order})`);
    }
    // tg_argv: the unit column and the prefix of its holder columns.
    this.addSql(`create function holder_fill_side() returns trigger language plpgsql as $$
      declare
        unit uuid := (to_jsonb(new) ->> tg_argv[0])::uuid;
        organization uuid;
        uf text;
      begin
        select h.holder_organization_id, h.holder_federative_unit into organization, uf from unit_holder h where h.control_unit_id = unit;
        new := jsonb_populate_record(new, jsonb_build_object(tg_argv[1] || 'holder_organization_id', organization, tg_argv[1] || 'holder_federative_unit', uf));
        return new;
      end $$`);
    for (const { table, unit, prefix } of TWO_SIDED_HOLDERS) {
      const org = `${prefix}holder_organization_id`;
      const uf = `${prefix}holder_federative_unit`;
      this.addSql(`create trigger ${table}_${prefix}holder_on_insert before insert on ${table} for each row
        when (new.${org} is null and new.${unit} is not null) execute function holder_fill_side('${unit}', '${prefix}')`);
      this.addSql(`create trigger ${table}_${prefix}holder_on_move before update of ${unit} on ${table} for each row
        when (old.${unit} is distinct from new.${unit} and old.${org} is not distinct from new.${org} and old.${uf} is not distinct from new.${uf})
        execute function holder_fill_side('${unit}', '${prefix}')`);
    }
    const refresh = (units: string) =>
      TWO_SIDED_HOLDERS.map(
        ({ table, unit, prefix }) => `update ${table} x set ${prefix}holder_organization_id = h.holder_organization_id, ${prefix}holder_federative_unit = h.holder_federative_unit
          from unit_holder h where h.control_unit_id = x.${unit} and x.${unit} in (${units});`,
      ).join('\n');
    this.addSql(`create function side_holder_refresh_establishment() returns trigger language plpgsql as $$
      begin
        ${refresh('select cu.id from control_unit cu where cu.establishment_id = new.id')}
        return null;
      end $$`);
    this.addSql(`create trigger establishment_side_holder_refresh after update of organization_id, county_id on establishment for each row
      when (old.organization_id is distinct from new.organization_id or old.county_id is distinct from new.county_id) execute function side_holder_refresh_establishment()`);
    this.addSql(`create function side_holder_refresh_county() returns trigger language plpgsql as $$
      begin
        ${refresh('select cu.id from control_unit cu join establishment e on e.id = cu.establishment_id where e.county_id = new.id')}
        return null;
      end $$`);
    this.addSql(`create trigger county_side_holder_refresh after update of str_federative_unit on county for each row
      when (old.str_federative_unit is distinct from new.str_federative_unit) execute function side_holder_refresh_county()`);
  }
}
