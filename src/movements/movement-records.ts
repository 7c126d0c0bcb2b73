import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { DomainError } from '../shared/errors.js';
import { movementStateError } from './movement.rules.js';

/** The movement locked for a change its state must allow (INVALID_STATE naming the state otherwise). */
export async function lockMovement<T extends object>(tx: EntityManager, entity: EntityName<T>, table: 'animals_egress' | 'animals_ingress', id: string, action: string, from: readonly string[]): Promise<T> {
  const rows = await tx.execute<Record<string, unknown>[]>(`select * from ${table} where id = ? for update`, [id]);
  if (!rows[0]) throw DomainError.notFound(table.replace('_', ' '));
  const record = tx.map(entity, rows[0] as never);
  const status = rows[0].str_status as string;
  if (!from.includes(status)) throw movementStateError(`an ${table.replace('_', ' ')}`, action, status, from);
  return record;
}

/**
 * The movement's fields as the caller's own SQL just stored them: the unit of work takes them as
 * its snapshot, so the flush at commit does not write the record a second time.
 */
export function markStored<T extends object>(tx: EntityManager, record: T): void {
  tx.merge(record, { refresh: true });
}
