import type { Actor } from '../identity/actor.js';
import { MANAGING_ROLES } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import { ACTIVE_INVITE_SQL } from '../access/invite.rules.js';

/** Users who see every establishment of their county's federative unit, read-only (DOMAIN.md). */
const UF_READERS = ['AUTHORITY', 'INTEGRATION'];

/** What the caller sees through its organization, its federative unit or as administrator (SQL on alias "e"). */
function ownScope(actor: Actor): Scope {
  if (actor.isAdmin) return { sql: 'true', params: [] };
  const parts: string[] = [];
  const params: unknown[] = [];
  if (actor.organizationId) {
    parts.push('e.organization_id = ?');
    params.push(actor.organizationId);
  }
  if (UF_READERS.includes(actor.userType) && actor.countyId) {
    parts.push('exists (select 1 from county ec join county ac on ac.str_federative_unit = ec.str_federative_unit where ec.id = e.county_id and ac.id = ?)');
    params.push(actor.countyId);
  }
  return parts.length ? { sql: `(${parts.join(' or ')})`, params } : { sql: 'false', params: [] };
}

/**
 * Establishments belong to an organization: visible to callers with it active, to authorities and
 * integrations of its federative unit (read-only) and to administrators; configured by the
 * organization's owners and managers. Status belongs to authorities and administrators;
 * the socio-environmental status to them and integrations.
 */
export const establishmentPolicy = {
  /** SQL condition on alias "e". */
  scope(actor: Actor): Scope {
    const own = ownScope(actor);
    if (own.sql === 'true') return own;
    // An accepted invite lets the invitee read its unit's establishment (DOMAIN.md, "Access between organizations").
    const invited = `exists (select 1 from invite iv join control_unit icu on icu.id = iv.control_unit_id where icu.establishment_id = e.id and ${ACTIVE_INVITE_SQL})`;
    return own.sql === 'false' ? { sql: invited, params: [actor.userId] } : { sql: `(${own.sql} or ${invited})`, params: [...own.params, actor.userId] };
  },

  /** Unrestricted search: every signed-in caller reads the public part of every establishment. */
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- every policy takes the actor; this one needs only that there is one
  unrestrictedScope(_actor: Actor): Scope {
    return { sql: 'true', params: [] };
  },

  /** Returns the organization the new establishment belongs to: the caller's active one. */
  canCreate(actor: Actor): string {
    if (!actor.organizationId) throw DomainError.forbidden('establishments are registered in the active organization: choose one with change-org');
    if (actor.isAdmin || (actor.role && MANAGING_ROLES.includes(actor.role))) return actor.organizationId;
    throw DomainError.forbidden('only owners and managers register establishments');
  },

  /** The establishment is already known to be visible. */
  canManage(actor: Actor, establishment: { organization_id: string }): void {
    if (actor.isAdmin) return;
    if (establishment.organization_id === actor.organizationId && actor.role && MANAGING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden('only owners and managers of its organization change an establishment or its control units');
  },

  canChangeStatus(actor: Actor): void {
    if (actor.isAdmin || actor.userType === 'AUTHORITY') return;
    throw DomainError.forbidden('only authorities and administrators change str_status');
  },

  canChangeSocioenvironmentalStatus(actor: Actor): void {
    if (actor.isAdmin || actor.userType === 'AUTHORITY' || actor.userType === 'INTEGRATION') return;
    throw DomainError.forbidden('only authorities, integrations and administrators change str_socioenvironmental_status');
  },
};

/** Control units are seen and changed through their establishment. SQL condition on alias "cu". */
export const controlUnitPolicy = {
  scope(actor: Actor): Scope {
    const e = ownScope(actor);
    if (e.sql === 'true') return e;
    // An accepted invite lets the invitee read that one unit, not its siblings.
    const invited = `exists (select 1 from invite iv where iv.control_unit_id = cu.id and ${ACTIVE_INVITE_SQL})`;
    if (e.sql === 'false') return { sql: invited, params: [actor.userId] };
    return { sql: `(exists (select 1 from establishment e where e.id = cu.establishment_id and ${e.sql}) or ${invited})`, params: [...e.params, actor.userId] };
  },
};
