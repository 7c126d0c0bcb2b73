import type { Actor } from './actor.js';
import { MANAGING_ROLES } from './actor.js';
import type { Role } from './membership.entity.js';
import { DomainError } from '../shared/errors.js';

/** Organizations: visible to their members and administrators; configured by owners and managers. */
export const organizationPolicy = {
  scope(actor: Actor): { sql: string; params: unknown[] } {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    return { sql: 'exists (select 1 from membership sm where sm.organization_id = o.id and sm.user_id = ?)', params: [actor.userId] };
  },

  /** role: the actor's role in the organization (null when not a member). */
  canManage(actor: Actor, role: Role | null): void {
    if (actor.isAdmin) return;
    if (role && MANAGING_ROLES.includes(role)) return;
    throw DomainError.forbidden('only owners and managers of the organization change it or its members');
  },

  canGrantRole(actor: Actor, actorRole: Role | null, granted: Role): void {
    if (actor.isAdmin) return;
    if (granted === 'OWNER' && actorRole !== 'OWNER') throw DomainError.forbidden('only an owner grants the OWNER role');
  },
};
