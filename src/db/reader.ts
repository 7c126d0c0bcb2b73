import type { Actor } from '../identity/actor.js';
import type { Db, Query } from './sql.js';

/**
 * A table as the read side sees it: the alias its policy and search spec are written on, the
 * columns a row carries, and the to-one relations a read may join in the same statement.
 */
export interface Source {
  table: string;
  alias: string;
  /**
   * The columns a row shows, in table order: a read may then select only those a query needs
   * (`Pick`). Without it a row is every column (`<alias>.*`); with it, never a column left out of
   * it (the user's password hash).
   */
  columnNames?: readonly string[];
  /** SQL for every column a row shows, on `alias`, when that is not `columnNames` (a computed column). */
  columns?: string;
  relations: Record<string, Relation>;
}

/**
 * A to-one relation joined when a query selects it (look-ahead): its rows prime the loader named
 * `loader` (graphql/loaders.ts), keyed by the parent's `fk` value, or by the parent's id when
 * `keyedByParent` (a relation whose visibility hangs on the parent, not on the target).
 */
export type Relation = ToOne | ToMany;

export interface ToOne {
  loader: LoaderName;
  target: () => Source;
  fk: string;
  keyedByParent?: boolean;
  /** A condition on the target (its own alias) and the parent (`parent` is its alias): a policy scope. */
  where?: (actor: Actor | null, parent: string) => Query;
}

/** A short list hanging from the parent (a user's organizations), aggregated to a JSON array in the parent's statement; keyed by the parent's id. */
export interface ToMany {
  loader: LoaderName;
  list: (parent: string) => string;
}

/**
 * The loaders a joined relation primes: by id, past every policy (a record names where it
 * happened), or `visible*`, through the caller's policy (null when it may not see it).
 */
export type LoaderName =
  | 'tagById'
  | 'tagsReservationById'
  | 'unrestrictedControlUnitById'
  | 'unrestrictedEstablishmentById'
  | 'visibleEstablishmentById'
  | 'countyById'
  | 'userById'
  | 'visibleResponsibleUserOfUnit'
  | 'organizationsOfUser'
  | 'gtaOfInvite'
  | 'gtaById'
  | 'vehicleById'
  | 'animalsEgressById'
  | 'usersOfSharing'
  | 'organizationsOfSharing'
  | 'accessesOfSharing';

/** Which relations to join, nested: `{ current_tag: { last_control_unit: {} } }`. */
export interface Include {
  [relation: string]: Include;
}

/** A joined row (or null: absent or not visible) for the loader that serves that relation. */
export interface Related {
  loader: LoaderName;
  key: string;
  /** A row (or null) for a to-one relation, a list of rows for a to-many one. */
  row: unknown;
}

export interface ReadSpec {
  /** Condition on the source's alias: the policy scope and filters. */
  where: Query;
  /** Order on a given alias (the root query orders by it, and the outer query again). */
  orderBy?: (alias: string) => string;
  limit?: number;
  offset?: number;
  /** Also count every row the condition matches, in the same statement. */
  count?: boolean;
  /**
   * The same condition in the form to count with (`Scope.counting`); `where` when absent. Several:
   * disjoint parts whose counts add up (`Scope.countingParts`), each one index's range.
   */
  countWhere?: Query | Query[];
  include?: Include;
  /** Only the columns the caller names (see `Pick`); every column when absent. */
  pick?: Pick;
}

export interface ReadResult<R> {
  rows: R[];
  related: Related[];
  /** Set when `count` was asked for. */
  total: number | null;
}

interface Joined {
  alias: string;
  relation: Relation;
  parent: string;
}

/**
 * The columns a read selects of each source: all of them (`undefined`), or those a caller names
 * (the GraphQL selection, graphql/columns.ts) with the id and every `*_id` column, which keys and
 * relations need whatever is selected. Only a source that lists its `columnNames` is narrowed.
 */
export type Pick = (source: Source) => ReadonlySet<string> | undefined;

function pickedColumns(source: Source, pick: Pick | undefined): readonly string[] | null {
  const wanted = pick?.(source);
  if (!wanted || !source.columnNames) return null;
  return source.columnNames.filter((c) => c === 'id' || c.endsWith('_id') || wanted.has(c));
}

/** What a read selects of `source` under `alias` (its own alias unless picked): the picked columns, else all it shows. */
function columnsSql(source: Source, alias: string, picked: readonly string[] | null): string {
  if (picked) return picked.map((c) => `${alias}.${c}`).join(', ');
  if (source.columns) return source.columns;
  return source.columnNames ? source.columnNames.map((c) => `${alias}.${c}`).join(', ') : `${alias}.*`;
}

const MARKER = /^_r\d+$/;

/** A relation a read joins: its alias, and the text of its lateral join around the target's condition (to-one). */
interface Step extends Joined {
  head?: string;
  tail?: string;
}

/** What a read's text takes from its source, relations and columns alone: built once per shape. */
interface Plan {
  steps: Step[];
  /** The root's columns then each relation's, for the outer select. */
  select: string;
  /** Whole texts by what varies between reads of this shape (see `read`). */
  texts: Map<string, string>;
}

const EMPTY: Include = Object.freeze({});
/** Keyed weakly all the way down: a shape goes when its parsed document goes from Apollo's cache. */
const plans = new WeakMap<Source, WeakMap<Include, WeakMap<Pick, Plan>>>();
const WHOLE_ROWS: Pick = () => undefined;
const allColumns = new WeakMap<Source, string>();

/**
 * The joins and select list of a read of `source` with `include` and `pick`, once per shape (the
 * look-ahead's include and the operation's pick are kept per parsed document, graphql/lookahead.ts):
 * a point read rebuilt the same column lists on every request. Only the targets' conditions,
 * which name the caller, are written per read.
 */
function planOf(source: Source, include: Include, pick: Pick | undefined): Plan {
  let byInclude = plans.get(source);
  if (!byInclude) plans.set(source, (byInclude = new WeakMap()));
  let byPick = byInclude.get(include);
  if (!byPick) byInclude.set(include, (byPick = new WeakMap()));
  let plan = byPick.get(pick ?? WHOLE_ROWS);
  if (plan) return plan;
  const steps: Step[] = [];
  const select: string[] = [];
  const walk = (from: Source, parent: string, at: Include) => {
    for (const [name, nested] of Object.entries(at)) {
      const relation = from.relations[name];
      if (!relation) continue;
      const alias = `_r${steps.length + 1}`;
      if ('list' in relation) {
        steps.push({ alias, relation, parent });
        select.push(`${relation.list(parent)} as ${alias}`);
        continue;
      }
      const target = relation.target();
      const columns = columnsSql(target, target.alias, pickedColumns(target, pick));
      steps.push({
        alias,
        relation,
        parent,
        head: `left join lateral (select ${columns} from ${target.table} ${target.alias} where ${target.alias}.id = ${parent}.${relation.fk}`,
        tail: `) ${alias} on true`,
      });
      select.push(`${alias}.id is not null as ${alias}`, `${alias}.*`);
      walk(target, alias, nested);
    }
  };
  walk(source, '_r0', include);
  const picked = pickedColumns(source, pick);
  select.unshift(picked ? columnsSql(source, '_r0', picked) : '_r0.*');
  plan = { steps, select: select.join(', '), texts: new Map() };
  byPick.set(pick ?? WHOLE_ROWS, plan);
  return plan;
}

/** Every column a row of `source` shows, on its own alias: the inner query's select, once per source. */
function allColumnsOf(source: Source): string {
  let columns = allColumns.get(source);
  if (columns === undefined) allColumns.set(source, (columns = columnsSql(source, source.alias, null)));
  return columns;
}

/** Past this many texts of one shape (filters combine into many), a read writes its text afresh each time. */
const TEXTS_PER_PLAN = 64;

/** The statement's text: the plan's select and joins around the read's condition, order, page and count. */
function textOf(source: Source, plan: Plan, spec: ReadSpec, order: { inner: string; outer: string } | undefined, count: Query | null, conditions: (Query | undefined)[]): string {
  const a = source.alias;
  // The inner query keeps every column a row shows: the order may name any of them.
  let inner = `select ${allColumnsOf(source)} from ${source.table} ${a} where ${spec.where.sql}`;
  if (order) inner += ` order by ${order.inner}`;
  if (spec.limit !== undefined) {
    // The page size is written into the text, and a first page's offset left out: PostgreSQL plans a
    // parameter there as a tenth of the table, so the statement's generic plan never wins and every
    // call is planned again (2 of the nested page's 3.3 ms). Later pages keep a bound offset.
    inner += ` limit ${pageLimit(spec.limit)}`;
    if (spec.offset) inner += ' offset ?';
  }
  let laterals = '';
  plan.steps.forEach((step, i) => {
    if (step.head === undefined) return;
    const condition = conditions[i];
    laterals += condition ? ` ${step.head} and ${condition.sql}${step.tail}` : ` ${step.head}${step.tail}`;
  });
  const select = count ? `${plan.select}, ${count.sql} as _total` : plan.select;
  return `select ${select} from (${inner}) _r0${laterals}${order ? ` order by ${order.outer}` : ''}`;
}

/**
 * One statement for the rows, every to-one relation the query selects (lateral joins over the
 * page, so a relation costs an index lookup per row of the page, not of the table) and the count
 * (an uncorrelated subquery, planned on its own). Each relation's columns follow a marker column
 * named after its alias (whether the joined row exists; a to-many relation's JSON list), so a
 * joined row comes through the driver's own parsers, not as JSON text to parse and revive.
 */
export async function read<R extends object>(db: Db, actor: Actor | null, source: Source, spec: ReadSpec): Promise<ReadResult<R>> {
  const include = spec.include && Object.keys(spec.include).length ? spec.include : EMPTY;
  const plan = planOf(source, include, spec.pick);
  const joins = plan.steps;
  const a = source.alias;
  const conditions = joins.map((step) => (step.head === undefined ? undefined : (step.relation as ToOne).where?.(actor, step.parent)));
  // Built only for a read that counts: a point read never does.
  const count = spec.count ? countOf(source, spec.countWhere ?? spec.where) : null;
  const order = spec.orderBy && { inner: spec.orderBy(a), outer: spec.orderBy('_r0') };
  // What of the text varies between reads of one shape: a short key to the whole text, kept once written.
  const key = `${spec.where.sql}\0${order ? `${order.inner}\0${order.outer}` : '\0'}\0${spec.limit ?? ''}\0${spec.offset ? 1 : 0}\0${count?.sql ?? ''}\0${conditions.map((c) => c?.sql ?? '').join('\0')}`;
  let sql = plan.texts.get(key);
  if (sql === undefined) {
    sql = textOf(source, plan, spec, order, count, conditions);
    if (plan.texts.size < TEXTS_PER_PLAN) plan.texts.set(key, sql);
  }
  // In the text's order: the count's, the condition's, a later page's offset, the relations' conditions'.
  const params: unknown[] = [...(count?.params ?? []), ...spec.where.params];
  if (spec.limit !== undefined && spec.offset) params.push(spec.offset);
  for (const c of conditions) if (c) params.push(...c.params);
  const { fields, rows: tuples } = await db.tuples({ sql, params });

  // The source's columns come first, then each relation's, from its marker to the next.
  const starts: number[] = [];
  let totalAt = -1;
  fields.forEach((name, i) => {
    if (MARKER.test(name)) starts.push(i);
    else if (name === '_total') totalAt = i;
  });
  const rootEnd = starts[0] ?? (totalAt >= 0 ? totalAt : fields.length);
  const ends = starts.map((_, i) => starts[i + 1] ?? (totalAt >= 0 ? totalAt : fields.length));
  const objectOf = (t: unknown[], from: number, to: number): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (let i = from; i < to; i++) row[fields[i]!] = t[i];
    return row;
  };

  const rows: R[] = [];
  const related: Related[] = [];
  let total: number | null = null;
  for (const t of tuples) {
    if (totalAt >= 0) total = t[totalAt] as number;
    const row = objectOf(t, 0, rootEnd);
    rows.push(row as R);
    if (!joins.length) continue;
    const byAlias = new Map<string, Record<string, unknown> | null>([['_r0', row]]);
    joins.forEach((j, i) => {
      const parentRow = byAlias.get(j.parent) ?? null;
      const relation = j.relation;
      const at = starts[i]!;
      if ('list' in relation) {
        const key = parentRow?.id;
        if (typeof key === 'string') related.push({ loader: relation.loader, key, row: (t[at] as Record<string, unknown>[]).map(revive) });
        return;
      }
      const value = t[at] ? objectOf(t, at + 1, ends[i]!) : null;
      byAlias.set(j.alias, value);
      const key = parentRow?.[relation.keyedByParent ? 'id' : relation.fk];
      if (typeof key === 'string') related.push({ loader: relation.loader, key, row: value });
    });
  }
  if (count && total === null) {
    // An empty page: the count rode on no row. Page one empty means none; past it, count alone.
    if (!spec.offset) total = 0;
    else total = (await db.rows<{ n: number }>({ sql: `select ${count.sql} as n`, params: count.params }))[0]!.n;
  }
  return { rows, related, total };
}

/** An expression counting the rows of `source` that match `where`, or the sum of each part's count. */
function countOf(source: Source, where: Query | Query[]): Query {
  const parts = Array.isArray(where) ? where : [where];
  return {
    sql: `(${parts.map((p) => `(select count(*)::int from ${source.table} ${source.alias} where ${p.sql})`).join(' + ')})`,
    params: parts.flatMap((p) => p.params),
  };
}

/** A row of a to-many list came through JSON: timestamps back to Date, numerics back to the driver's strings. */
function revive(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const v = row[key];
    if (v === null) continue;
    if (key.startsWith('ts_') && typeof v === 'string') row[key] = new Date(v);
    else if (key.startsWith('dec_') && typeof v === 'number') row[key] = String(v);
  }
  return row;
}

/** Rows by id, in the order of `ids` (null where absent or outside `scope`): one statement for a loader's batch. */
export async function readByIds<R extends { id: string }>(db: Db, actor: Actor | null, source: Source, ids: readonly string[], scope?: Query): Promise<(R | null)[]> {
  const a = source.alias;
  const where = scope ? { sql: `${a}.id = any(?) and ${scope.sql}`, params: [ids, ...scope.params] } : { sql: `${a}.id = any(?)`, params: [ids] };
  const { rows } = await read<R>(db, actor, source, { where });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** Rows grouped by `key` in the order of `keys`. */
export function groupedBy<T>(keys: readonly string[], rows: T[], key: (row: T) => string): T[][] {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const list = map.get(key(r));
    if (list) list.push(r);
    else map.set(key(r), [r]);
  }
  return keys.map((k) => map.get(k) ?? []);
}

/** A page size as SQL text: only a whole number reaches a statement's text. */
function pageLimit(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`page size must be a whole number, not ${limit}`);
  return String(limit);
}
