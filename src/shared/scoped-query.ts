import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { paged, toPage, type PageInput, type Paged } from './pagination.js';
import { buildSearch, type SearchSpec } from './search.js';

/** A policy's SQL condition over the table alias of a query: lists are scoped in SQL, never filtered afterwards. */
export interface Scope {
  sql: string;
  params: unknown[];
}

/** The scope of a caller without a valid token: nothing. */
export const NOTHING: Scope = { sql: 'false', params: [] };

/** One record the scope lets the caller see, in one statement; null when absent or invisible (a 404 either way). */
export async function findVisible<T extends object>(em: EntityManager, entity: EntityName<T>, table: string, scope: Scope, id: string): Promise<T | null> {
  const alias = scopeAlias(table);
  const rows = await em.execute<Record<string, unknown>[]>(`select ${alias}.* from ${table} where ${alias}.id = ? and ${scope.sql}`, [id, ...scope.params]);
  return rows[0] ? em.map(entity, rows[0] as never) : null;
}

/** A page of what the scope lets the caller see, filtered as CONTRACT.md's search bodies say: two statements. */
export async function searchVisible<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  table: string,
  scope: Scope,
  spec: SearchSpec,
  filters: Record<string, unknown> | null | undefined,
  pageInput: PageInput | null | undefined,
): Promise<Paged<T>> {
  const page = toPage(pageInput);
  const q = buildSearch(spec, filters ?? {});
  const where = `${scope.sql} and ${q.where}`;
  const params = [...scope.params, ...q.params];
  const count = await em.execute<{ n: number }[]>(`select count(*)::int as n from ${table} where ${where}`, params);
  const rows = await em.execute<Record<string, unknown>[]>(`select ${spec.alias}.* from ${table} where ${where} order by ${q.orderBy} limit ? offset ?`, [...params, page.size, page.offset]);
  return paged(rows.map((r) => em.map(entity, r as never)), count[0]!.n, page);
}

/** `"user" u` → `u` */
const scopeAlias = (table: string): string => table.trim().split(/\s+/).pop()!;
