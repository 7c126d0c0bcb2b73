import type { Actor } from '../identity/actor.js';
import { MANAGING_ROLES } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import { ACTIVE_SHARING_SQL, scopesGranting, type SharedData } from './sharing.rules.js';

/**
 * The sharings that grant the caller something now: those naming the user or its active
 * organization, ACTIVE at the request's instant. An SQL set, computed once per statement: the
 * grantee's index finds the few sharings, never a condition evaluated per row of the read.
 */
function grantingSharings(actor: Actor): Scope {
  const grantee = actor.organizationId ? '(sg.user_id = ? or sg.organization_id = ?)' : 'sg.user_id = ?';
  const params: unknown[] = actor.organizationId ? [actor.userId, actor.organizationId] : [actor.userId];
  return { sql: `select sg.sharing_id from sharing_grantee sg join sharing s on s.id = sg.sharing_id where ${grantee} and ${ACTIVE_SHARING_SQL}`, params: [...params, actor.now, actor.now] };
}

/**
 * SQL for the session statement (user alias `u`, one parameter: the token's organization): whether
 * the user may hold a grant, an accepted invite or a sharing naming it or that organization
 * (`Actor.mayBeGranted`). Whether the grant is active now (an expiry, a schedule) is left to the
 * scopes' subqueries: false means none at all. Migration0061GrantChanges says so when that changes.
 */
export const MAY_BE_GRANTED_SQL = `(exists (select 1 from invite gi where gi.user_id = u.id and gi.bl_accepted and gi.ts_revoked_at is null)
   or exists (select 1 from sharing_grantee gg where gg.user_id = u.id or gg.organization_id = ?::uuid))`;

/** The scopes as SQL literals: a fixed list per kind of data, so the statement text stays one per kind. */
const scopeList = (data: SharedData): string => scopesGranting(data).map((s) => `'${s}'`).join(', ');

/**
 * The grant (DOMAIN.md, "Access between organizations"), as the shared scope builders of
 * establishment.policy.ts take it, so every reader of every door picks it up. Read-only by
 * construction: write permissions (canManage, canWork, ...) ask for membership, never visibility.
 */
export const sharingGrant = {
  /** SQL selecting the ids of the control units whose `data` the caller reads through a sharing (an establishment's access covers all its units). */
  unitIds(actor: Actor, data: SharedData): Scope {
    const granting = grantingSharings(actor);
    return {
      sql: `select gu.id from sharing_access sa join control_unit gu on gu.establishment_id = sa.establishment_id and (sa.control_unit_id is null or gu.id = sa.control_unit_id)
             where sa.str_scope in (${scopeList(data)}) and sa.sharing_id in (${granting.sql})`,
      params: granting.params,
    };
  },

  /** SQL selecting the ids of the establishments the caller reads through a sharing (an access of any scope, to it or one of its units). */
  establishmentIds(actor: Actor): Scope {
    const granting = grantingSharings(actor);
    return { sql: `select sa.establishment_id from sharing_access sa where sa.sharing_id in (${granting.sql})`, params: granting.params };
  },
};

/** Sharings are seen by their organization's members and administrators; made, changed and removed by its owners and managers. */
export const sharingPolicy = {
  /** SQL condition on alias "s". */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    if (actor.organizationId) return { sql: 's.organization_id = ?', params: [actor.organizationId] };
    return { sql: 'false', params: [] };
  },

  /** Returns the organization a new sharing belongs to: the caller's active one. */
  canCreate(actor: Actor): string {
    if (!actor.organizationId) throw DomainError.forbidden('sharings are made in the active organization: choose one with change-org');
    if (actor.isAdmin || (actor.role && MANAGING_ROLES.includes(actor.role))) return actor.organizationId;
    throw DomainError.forbidden("only owners and managers share their organization's establishments");
  },

  /** The sharing is already known to be visible. */
  canManage(actor: Actor, sharing: { organization_id: string }): void {
    if (actor.isAdmin) return;
    if (sharing.organization_id === actor.organizationId && actor.role && MANAGING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden('only owners and managers of its organization change a sharing');
  },
};
