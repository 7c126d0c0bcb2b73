import type { Actor } from '../identity/actor.js';
import { MANAGING_ROLES } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';

/** Invites are seen by their author's organization and by the invitee; written by the organization's owners and managers. */
export const invitePolicy = {
  /** SQL condition on alias "i". */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    if (actor.organizationId) return { sql: '(i.organization_id = ? or i.user_id = ?)', params: [actor.organizationId, actor.userId] };
    return { sql: 'i.user_id = ?', params: [actor.userId] };
  },

  isAuthor(actor: Actor, invite: { organization_id: string }): boolean {
    return actor.isAdmin || (invite.organization_id === actor.organizationId && !!actor.role && MANAGING_ROLES.includes(actor.role));
  },

  /** The unit's organization is already known to be visible. */
  canInvite(actor: Actor, organizationId: string): void {
    if (actor.isAdmin) return;
    if (organizationId === actor.organizationId && actor.role && MANAGING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden("only owners and managers of the unit's organization invite to it");
  },
};

/** Invite requests are seen by the requester and by the unit's organization; decided by its owners and managers, cancelled by the requester. */
export const inviteRequestPolicy = {
  /** SQL condition on alias "r". */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    if (actor.organizationId) return { sql: '(r.organization_id = ? or r.user_id = ?)', params: [actor.organizationId, actor.userId] };
    return { sql: 'r.user_id = ?', params: [actor.userId] };
  },

  canDecide(actor: Actor, request: { organization_id: string }): void {
    if (actor.isAdmin) return;
    if (request.organization_id === actor.organizationId && actor.role && MANAGING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden("only owners and managers of the unit's organization approve or deny a request");
  },

  canCancel(actor: Actor, request: { user_id: string }): void {
    if (request.user_id === actor.userId) return;
    throw DomainError.forbidden('only the requester cancels a request');
  },
};
