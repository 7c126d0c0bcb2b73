import type { Actor } from './actor.js';
import { MANAGING_ROLES } from './actor.js';
import type { Role } from './membership.entity.js';
import { DomainError } from '../shared/errors.js';

/**
 * Users: administrators see everyone; others see themselves and the members of their active
 * organization; owners and managers of it change its members (never an administrator).
 */
export const userPolicy = {
  /** SQL condition on alias "u" limiting a list to what the actor may see. */
  scope(actor: Actor): { sql: string; params: unknown[] } {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    if (!actor.organizationId) return { sql: 'u.id = ?', params: [actor.userId] };
    return {
      sql: '(u.id = ? or exists (select 1 from membership sm where sm.user_id = u.id and sm.organization_id = ?))',
      params: [actor.userId, actor.organizationId],
    };
  },

  /**
   * Whether the actor sees a person's whole record (e-mail, CPF, phone, organizations...) or only
   * `id`, `str_name` and `str_type` (CONTRACT.md, Accounts): the person, administrators, and the
   * OWNERs and MANAGERs of one of the person's organizations acting in it. `organizationIds`: the
   * person's organizations, asked only when the answer hangs on them (`needsOrganizations`).
   */
  seesWhole(actor: Actor | null, userId: string, organizationIds: readonly string[] | null): boolean {
    if (!actor) return false;
    if (actor.isAdmin || actor.userId === userId) return true;
    return userPolicy.needsOrganizations(actor, userId) && organizationIds !== null && organizationIds.includes(actor.organizationId!);
  },

  /** Whether `seesWhole` depends on the person's organizations for this actor. */
  needsOrganizations(actor: Actor | null, userId: string): boolean {
    if (!actor || actor.isAdmin || actor.userId === userId) return false;
    return actor.organizationId !== null && actor.role !== null && MANAGING_ROLES.includes(actor.role);
  },

  canCreate(actor: Actor): void {
    if (actor.isAdmin) return;
    if (actor.organizationId && actor.role && MANAGING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden('only administrators and owners or managers of the active organization create users');
  },

  canGrantAdmin(actor: Actor): void {
    if (!actor.isAdmin) throw DomainError.forbidden('only administrators grant or change bl_admin');
  },

  /** The target is already known to be visible. */
  canUpdate(actor: Actor, target: { id: string; bl_admin: boolean }, targetRole: Role | null): void {
    if (actor.isAdmin || actor.userId === target.id) return;
    const manages = actor.role !== null && MANAGING_ROLES.includes(actor.role);
    if (!manages || target.bl_admin) throw DomainError.forbidden('only owners or managers change other members');
    if (targetRole === 'OWNER' && actor.role !== 'OWNER') throw DomainError.forbidden('only an owner changes an owner');
  },
};
