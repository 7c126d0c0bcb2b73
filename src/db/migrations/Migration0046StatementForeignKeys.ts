import { Migration } from '@mikro-orm/migrations';

/**
 * A foreign key kept by statement-level triggers (below) instead of PostgreSQL's own constraint.
 * `onDelete` is what the constraint did when its parent row was deleted.
 */
export interface StatementKey {
  name: string;
  table: string;
  columns: string[];
  parent: string;
  parentColumns: string[];
  onDelete: 'cascade' | 'set null' | 'restrict';
}

/**
 * Issue 20 (the speed of a move): the keys of the stays an ingress finish opens, one per animal.
 * PostgreSQL checks a foreign key row by row (one look-up and one FOR KEY SHARE lock of the parent
 * per row, through SPI): an ingress finish of 5,000 animals ran 20,000 such checks (the stay's
 * animal, unit and ingress, the animal's unit). The stay's keys are checked once per statement
 * instead, set-based, through the statement's transition table. The animal's unit stays a
 * constraint: a statement trigger on `animal` would copy every updated animal into transition
 * tables, and the socio-environmental propagation updates tens of thousands whose unit does not
 * change (measured: +200-340 ms on 4.3-5.6 s for an UPDATE of ~54,500), where PostgreSQL's own check skips them.
 */
export const STATEMENT_KEYS: StatementKey[] = [
  { name: 'animal_stay_animal_id_fkey', table: 'animal_stay', columns: ['animal_id'], parent: 'animal', parentColumns: ['id'], onDelete: 'cascade' },
  { name: 'animal_stay_unit_of_establishment', table: 'animal_stay', columns: ['control_unit_id', 'establishment_id'], parent: 'control_unit', parentColumns: ['id', 'establishment_id'], onDelete: 'restrict' },
  { name: 'animal_stay_animals_ingress_id_fkey', table: 'animal_stay', columns: ['animals_ingress_id'], parent: 'animals_ingress', parentColumns: ['id'], onDelete: 'set null' },
  { name: 'animal_stay_animals_egress_id_fkey', table: 'animal_stay', columns: ['animals_egress_id'], parent: 'animals_egress', parentColumns: ['id'], onDelete: 'set null' },
];

const tuple = (alias: string, columns: string[]) => `(${columns.map((c) => `${alias}.${c}`).join(', ')})`;
const notNull = (alias: string, columns: string[]) => columns.map((c) => `${alias}.${c} is not null`).join(' and ');
const matches = (a: string, ac: string[], b: string, bc: string[]) => ac.map((c, i) => `${a}.${c} = ${b}.${bc[i]}`).join(' and ');
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * The child's side: the rows `rows` (an expression over the transition tables, alias n) name a
 * parent that exists. Parents are locked FOR KEY SHARE as the constraint locked them (a concurrent
 * delete waits for this transaction, then sees these rows), except the row versions this
 * transaction wrote itself: no other transaction can delete those before it commits.
 */
function childCheck(k: StatementKey, rows: string): string {
  const keys = k.columns.map((c) => `n.${c}`).join(', ');
  const joined = matches('p', k.parentColumns, 'keys', k.columns);
  // One look-up per distinct key (the parent, and whether this transaction wrote that row version),
  // the FOR KEY SHARE lock of the others by their key (a parent deleted meanwhile is not locked, so
  // it counts as absent), and only when a key has no parent, a look-up of one to name it.
  const parentKeys = k.parentColumns.map((c) => `p.${c}`).join(', ');
  return `
    with keys as (select distinct ${keys} from ${rows} where ${notNull('n', k.columns)}),
         present as (select ${parentKeys}, p.xmin = pg_current_xact_id()::xid as own from ${k.parent} p join keys on ${joined}),
         locked as (select 1 from ${k.parent} p where ${tuple('p', k.parentColumns)} in (select ${parentKeys} from present p where not p.own) for key share of p)
    select (select count(*) from keys) - (select count(*) from present where own) - (select count(*) from locked) into absent;
    if absent > 0 then
      select ${k.columns.map((c) => `n.${c}::text`).join(` || ', ' || `)} into missing from ${rows}
       where ${notNull('n', k.columns)} and not exists (select 1 from ${k.parent} p where ${matches('p', k.parentColumns, 'n', k.columns)}) limit 1;
      raise exception 'insert or update on table "${k.table}" violates foreign key constraint "${k.name}"'
        using errcode = 'foreign_key_violation', constraint = ${literal(k.name)}, table = ${literal(k.table)},
              detail = format('Key (${k.columns.join(', ')})=(%s) is not present in table "${k.parent}".', missing);
    end if;`;
}

/** The parent's side, rows deleted (`gone`, alias o): what the constraint's ON DELETE did. */
function parentDelete(k: StatementKey): string {
  const referenced = `${tuple('c', k.columns)} in (select ${k.parentColumns.map((c) => `o.${c}`).join(', ')} from fk_old o)`;
  if (k.onDelete === 'cascade') return `\n    delete from ${k.table} c where ${referenced};`;
  if (k.onDelete === 'set null') return `\n    update ${k.table} c set ${k.columns.map((c) => `${c} = null`).join(', ')} where ${referenced};`;
  return restrict(k, 'fk_old o');
}

/** The parent's side, a row whose key an update changed (row by row: only rows whose key changes fire it): refused while a row still names the old key. */
function parentRekey(k: StatementKey): string {
  return `
    if ${tuple('old', k.parentColumns)} is distinct from ${tuple('new', k.parentColumns)} and exists (select 1 from ${k.table} c where ${k.columns.map((c, i) => `c.${c} = old.${k.parentColumns[i]}`).join(' and ')}) then
      raise exception 'update or delete on table "${k.parent}" violates foreign key constraint "${k.name}" on table "${k.table}"'
        using errcode = 'foreign_key_violation', constraint = ${literal(k.name)}, table = ${literal(k.parent)};
    end if;`;
}

function restrict(k: StatementKey, gone: string): string {
  return `
    if exists (select 1 from ${gone} join ${k.table} c on ${matches('c', k.columns, 'o', k.parentColumns)}) then
      raise exception 'update or delete on table "${k.parent}" violates foreign key constraint "${k.name}" on table "${k.table}"'
        using errcode = 'foreign_key_violation', constraint = ${literal(k.name)}, table = ${literal(k.parent)};
    end if;`;
}

const fn = (name: string, body: string) => `create function ${name}() returns trigger language plpgsql as $$
  declare
    missing text;
    absent bigint;
  begin${body}
    return null;
  end $$`;

/**
 * Issue 20: the keys of STATEMENT_KEYS become triggers: on the child, statement-level ones with
 * transition tables (`fk_stmt_<table>_insert|update`): one set-based look-up (and lock) of the
 * statement's distinct parents and a count of the keys without one, refusing the statement with the
 * constraint's name and SQLSTATE 23503 as before; an update checks only the rows whose key it
 * changed (as PostgreSQL's own check does). On the parent, ON DELETE CASCADE / SET NULL / RESTRICT
 * in one statement per delete (`fk_stmt_<parent>_delete`), and a changed key still named refused
 * by a row trigger that fires only when the key changes (`fk_row_<parent>_rekey`: parents are
 * updated often, their keys never by the service).
 *
 * What changes: the stay's keys are checked at the end of each statement (they were deferred to
 * the commit); every writer inserts parents before children, and event_append made them immediate anyway.
 */
export class Migration0046StatementForeignKeys extends Migration {
  override async up(): Promise<void> {
    for (const k of STATEMENT_KEYS) this.addSql(`alter table ${k.table} drop constraint ${k.name}`);
    const tables = [...new Set(STATEMENT_KEYS.flatMap((k) => [k.table, k.parent]))];
    for (const table of tables) {
      const asChild = STATEMENT_KEYS.filter((k) => k.table === table);
      const asParent = STATEMENT_KEYS.filter((k) => k.parent === table);
      if (asChild.length) {
        this.addSql(fn(`fk_stmt_${table}_insert`, asChild.map((k) => childCheck(k, 'fk_new n')).join('')));
        this.addSql(`create trigger ${table}_keys_on_insert after insert on ${table} referencing new table as fk_new for each statement execute function fk_stmt_${table}_insert()`);
        // An update's rows whose key it set to something else (or whose id it changed).
        const changed = (k: StatementKey) =>
          `(select n.* from fk_new n where not exists (select 1 from fk_old o where o.id = n.id and ${tuple('o', k.columns)} is not distinct from ${tuple('n', k.columns)})) n`;
        this.addSql(fn(`fk_stmt_${table}_update`, asChild.map((k) => childCheck(k, changed(k))).join('')));
        this.addSql(`create trigger ${table}_keys_on_update after update on ${table} referencing old table as fk_old new table as fk_new for each statement execute function fk_stmt_${table}_update()`);
      }
      if (asParent.length) {
        this.addSql(fn(`fk_stmt_${table}_delete`, asParent.map(parentDelete).join('')));
        this.addSql(`create trigger ${table}_keys_on_delete after delete on ${table} referencing old table as fk_old for each statement execute function fk_stmt_${table}_delete()`);
        const keys = [...new Set(asParent.map((k) => k.parentColumns.join(', ')))];
        this.addSql(fn(`fk_row_${table}_rekey`, asParent.map(parentRekey).join('')));
        this.addSql(`create trigger ${table}_keys_on_rekey after update on ${table} for each row
          when (${keys.map((c) => `(${c.split(', ').map((x) => `old.${x}`).join(', ')}) is distinct from (${c.split(', ').map((x) => `new.${x}`).join(', ')})`).join(' or ')}) execute function fk_row_${table}_rekey()`);
      }
    }
  }
}
