import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { WorkUnit } from './tags.policy.js';

/**
 * Who did the field work: the caller unless the body names another member of the unit's
 * organization (an operator's records sent by a manager's device, for instance).
 */
export async function operatorFor(tx: EntityManager, actor: Actor, work: WorkUnit, operatorId: string | null | undefined): Promise<string> {
  if (!operatorId || operatorId === actor.userId) return actor.userId;
  const rows = await tx.execute<{ n: number }[]>('select count(*)::int as n from membership where user_id = ? and organization_id = ?', [operatorId, work.establishment.organization_id]);
  if (!rows[0]!.n) throw DomainError.field('operator_user_id', "must be a member of the control unit's organization");
  return operatorId;
}

export const trimmedOrNull = (v: string | null | undefined): string | null => (typeof v === 'string' ? v.trim() || null : null);
