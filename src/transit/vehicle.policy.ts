import type { Actor } from '../identity/actor.js';
import { MANAGING_ROLES } from '../identity/actor.js';
import type { Role } from '../identity/membership.entity.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';

const REGISTERING_ROLES: readonly Role[] = ['OWNER', 'MANAGER', 'OPERATOR'];

/**
 * Vehicles belong to an organization: visible to callers with it active and to administrators;
 * registered by its owners, managers and operators; changed or removed by owners and managers.
 */
export const vehiclePolicy = {
  /** SQL condition on alias "v". */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    if (!actor.organizationId) return { sql: 'false', params: [] };
    return { sql: 'v.organization_id = ?', params: [actor.organizationId] };
  },

  /** Returns the organization the new vehicle belongs to: the caller's active one. */
  canCreate(actor: Actor): string {
    if (!actor.organizationId) throw DomainError.forbidden('vehicles are registered in the active organization: choose one with change-org');
    if (actor.isAdmin || (actor.role && REGISTERING_ROLES.includes(actor.role))) return actor.organizationId;
    throw DomainError.forbidden('only owners, managers and operators register vehicles');
  },

  /** The vehicle is already known to be visible, so it belongs to the active organization (or the caller is an administrator). */
  canManage(actor: Actor): void {
    if (actor.isAdmin) return;
    if (actor.role && MANAGING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden('only owners and managers change or remove vehicles');
  },
};
