import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import type { EudrStatement } from './eudr-statement.entity.js';

/**
 * A recorded statement is the organization's that made it (any member reads it; its owners,
 * managers and operators record what TRACES gave), or the user's who made it without an
 * organization (an authority), and an administrator's. Its references, once submitted, are shown
 * on the lot's animals and GTA to whoever may read those (docs/decisions/eudr.md).
 */
export const eudrStatementPolicy = {
  /** SQL condition on alias `es`. */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    if (actor.organizationId) return { sql: '(es.organization_id = ? or (es.organization_id is null and es.created_by_id = ?))', params: [actor.organizationId, actor.userId] };
    return { sql: '(es.organization_id is null and es.created_by_id = ?)', params: [actor.userId] };
  },

  /** The statement is already known to be visible. */
  canRecord(actor: Actor, statement: EudrStatement): void {
    if (actor.isAdmin || statement.organization_id === null) return;
    if (actor.role === 'OWNER' || actor.role === 'MANAGER' || actor.role === 'OPERATOR') return;
    throw DomainError.forbidden("only the organization's owners, managers and operators record what TRACES gave");
  },
};
