import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { read, type Include, type Pick, type Related, type Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from './errors.js';
import { isUuid } from './ids.js';
import { paged, toPage, type PageInput, type Paged } from './pagination.js';
import { buildSearch, type SearchSpec } from './search.js';

/** A policy's SQL condition over the table alias of a query: lists are scoped in SQL, never filtered afterwards. */
export interface Scope {
  sql: string;
  params: unknown[];
  /**
   * The same set written for counting, where the planner should read the matches through an
   * index of the scoped column rather than walk the order's index (a page's best plan).
   */
  counting?: { sql: string; params: unknown[] };
  /**
   * The set as disjoint parts whose counts add up to its count (the caller's own rows, then the
   * granted ones that are not its own): each part an equality or a short list one index answers
   * alone, where their `or` would make PostgreSQL read the table (issue 23). Preferred to `counting`.
   */
  countingParts?: { sql: string; params: unknown[] }[];
}

/** The scope of a caller without a valid token: nothing. */
export const NOTHING: Scope = { sql: 'false', params: [] };

/** One record the scope lets the caller see, in one statement; null when absent or invisible (a 404 either way). */
export async function findVisible<T extends object>(em: EntityManager, entity: EntityName<T>, table: string, scope: Scope, id: string, options: { forUpdate?: boolean } = {}): Promise<T | null> {
  const alias = scopeAlias(table);
  // forUpdate (inside a transaction): the record's row locked by the same statement that finds it visible.
  const lock = options.forUpdate ? ` for update of ${alias}` : '';
  const rows = await em.execute<Record<string, unknown>[]>(`select ${alias}.* from ${table} where ${alias}.id = ? and ${scope.sql}${lock}`, [id, ...scope.params]);
  return rows[0] ? em.map(entity, rows[0] as never) : null;
}

/** findVisible, for an id from the caller: not found (named `noun`) when it is absent, invisible or no uuid at all. */
export async function mustFindVisible<T extends object>(em: EntityManager, entity: EntityName<T>, table: string, scope: Scope, id: string, noun: string, options: { forUpdate?: boolean } = {}): Promise<T> {
  const found = isUuid(id) ? await findVisible(em, entity, table, scope, id, options) : null;
  if (!found) throw DomainError.notFound(noun);
  return found;
}

/** `"user" u` → `u` */
const scopeAlias = (table: string): string => table.trim().split(/\s+/).pop()!;

/** What a read returns to a door: the rows, and the joined relations that prime its loaders. */
export interface Read<R> {
  row: R;
  related: Related[];
}

export interface ReadPage<R> extends Paged<R> {
  related: Related[];
}

export interface PageOptions {
  /** Count the matches (meta.int_total_results): off when the query does not select meta. */
  count: boolean;
  include?: Include;
  /** Only the columns the query reads (graphql/columns.ts). */
  pick?: Pick;
}

/** One record the scope lets the caller see, with the relations the query selects: one statement; a 404 when absent or invisible. */
export async function readVisible<R extends object>(db: Db, actor: Actor, source: Source, scope: Scope, id: string, noun: string, include?: Include, pick?: Pick): Promise<Read<R>> {
  if (!isUuid(id)) throw DomainError.notFound(noun);
  const a = source.alias;
  const { rows, related } = await read<R>(db, actor, source, { where: { sql: `${a}.id = ? and ${scope.sql}`, params: [id.toLowerCase(), ...scope.params] }, include, pick });
  if (!rows[0]) throw DomainError.notFound(noun);
  return { row: rows[0], related };
}

/** A page of what the scope lets the caller see, filtered as CONTRACT.md's search bodies say, counted and joined in one statement. */
export async function readVisiblePage<R extends object>(
  db: Db,
  actor: Actor,
  source: Source,
  scope: Scope,
  spec: SearchSpec,
  filters: Record<string, unknown> | null | undefined,
  pageInput: PageInput | null | undefined,
  options: PageOptions,
): Promise<ReadPage<R>> {
  const page = toPage(pageInput);
  const q = buildSearch(spec, filters ?? {});
  const where = { sql: `${scope.sql} and ${q.where}`, params: [...scope.params, ...q.params] };
  const filtered = (part: { sql: string; params: unknown[] }) => ({ sql: `${part.sql} and ${q.where}`, params: [...part.params, ...q.params] });
  const countWhere = scope.countingParts ? scope.countingParts.map(filtered) : scope.counting ? filtered(scope.counting) : where;
  const result = await read<R>(db, actor, source, { where, countWhere, orderBy: q.orderOn, limit: page.size, offset: page.offset, count: options.count, include: options.include, pick: options.pick });
  // Not counted: the query did not select meta, so its total is never read.
  return { ...paged(result.rows, result.total ?? 0, page), related: result.related };
}
