import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely } from 'kysely';
import { counted, toPositional } from './sql.js';

/**
 * One statement in the caller's transaction (or on its own outside one) with its parameters bound
 * (`?` placeholders, arrays as `?::uuid[]`), where MikroORM's `execute` writes every parameter into
 * the SQL text: a reconciliation's megabytes of JSON were escaped by Node and lexed by PostgreSQL.
 * For the statements of bulk writes; rows come back as `execute` gives them (the same connection,
 * the same type parsers).
 */
export async function executeBound<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const runner = em.getTransactionContext<Kysely<unknown>>() ?? (em.getConnection().getClient() as Kysely<unknown>);
  counted(sql);
  const result = await runner.executeQuery<T>(CompiledQuery.raw(toPositional(sql), params));
  return [...result.rows];
}
