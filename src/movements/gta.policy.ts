import type { Actor } from '../identity/actor.js';
import type { Role } from '../identity/membership.entity.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import { sharingGrant } from '../access/sharing.policy.js';

/** Users who see every GTA of their county's federative unit, read-only (DOMAIN.md). */
export const UF_READERS = ['AUTHORITY', 'INTEGRATION'];
const ISSUING_ROLES: readonly Role[] = ['OWNER', 'MANAGER', 'OPERATOR'];

/**
 * GTAs are seen by the origin's and the destination's organizations, by authorities and
 * integrations of the GTA's federative unit, by grantees of an active MOVEMENTS (or ALL) sharing
 * of either unit, and by administrators. Issued by owners, managers
 * and operators of the origin's organization or by an authority of its UF; cancelled by the
 * issuer, an authority of the UF or an administrator.
 */
export const gtaPolicy = {
  /** SQL condition on alias "g". */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    const parts: string[] = [];
    const params: unknown[] = [];
    if (actor.organizationId) {
      parts.push(gtaPolicy.isParty('?'));
      params.push(actor.organizationId, actor.organizationId);
    }
    if (UF_READERS.includes(actor.userType) && actor.countyId) {
      parts.push('exists (select 1 from county ac where ac.id = ? and ac.str_federative_unit = g.str_federative_unit)');
      params.push(actor.countyId);
    }
    // A sharing of MOVEMENTS at either unit shows the permits they move under.
    const shared = sharingGrant.unitIds(actor, 'MOVEMENTS');
    parts.push(`(g.from_control_unit_id in (${shared.sql}) or g.to_control_unit_id in (${shared.sql}))`);
    params.push(...shared.params, ...shared.params);
    return { sql: `(${parts.join(' or ')})`, params };
  },

  /**
   * SQL condition on alias "g": a GTA the caller may name in a movement at `unitId` (the `side` it
   * leaves from or arrives at). One it sees, one issued for that very unit, or (leaving) one the
   * state notified without an origin yet, which the egress completes. Anything else is "no such
   * GTA", exactly as an unknown id (CONTRACT.md's body-id rule).
   */
  usable(actor: Actor, side: 'from' | 'to', unitId: string): Scope {
    const seen = gtaPolicy.scope(actor);
    const bare = side === 'from' ? ' or g.from_control_unit_id is null' : '';
    return { sql: `(g.${side}_control_unit_id = ?${bare} or ${seen.sql})`, params: [unitId, ...seen.params] };
  },

  /** SQL condition on alias "g": the organization `organization` (an SQL expression, used twice) is the origin's or the destination's. */
  isParty(organization: string): string {
    return `(g.organization_id = ${organization} or exists (select 1 from establishment te where te.id = g.to_establishment_id and te.organization_id = ${organization}))`;
  },

  /** actorUf: the UF of the caller's county (null when none); originUf: the origin establishment's. */
  canIssue(actor: Actor, origin: { organization_id: string }, originUf: string | null, actorUf: string | null): void {
    if (actor.isAdmin) return;
    if (origin.organization_id === actor.organizationId && actor.role && ISSUING_ROLES.includes(actor.role)) return;
    if (actor.userType === 'AUTHORITY' && actorUf && actorUf === originUf) return;
    throw DomainError.forbidden("only owners, managers and operators of the origin's organization, or an authority of its federative unit, issue a GTA");
  },

  /** The GTA is already known to be visible. */
  canCancel(actor: Actor, gta: { issuer_user_id: string | null; str_federative_unit: string }, actorUf: string | null): void {
    if (actor.isAdmin) return;
    if (gta.issuer_user_id === actor.userId) return;
    if (actor.userType === 'AUTHORITY' && actorUf === gta.str_federative_unit) return;
    throw DomainError.forbidden('only its issuer, an authority of its federative unit or an administrator cancels a GTA');
  },

  /** The state integration: INTEGRATION or AUTHORITY users with a county. */
  canIntegrate(actor: Actor): void {
    if (!UF_READERS.includes(actor.userType)) throw DomainError.forbidden('only INTEGRATION and AUTHORITY users call the state integration');
    if (!actor.countyId) throw DomainError.forbidden('the integration user has no county, so no federative unit');
  },
};
