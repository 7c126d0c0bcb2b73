import type { Actor } from '../identity/actor.js';
import { MANAGING_ROLES } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import { ACTIVE_INVITE_SQL } from '../access/invite.rules.js';
import { sharingGrant } from '../access/sharing.policy.js';
import type { SharedData } from '../access/sharing.rules.js';

/** Users who see every establishment of their county's federative unit, read-only (DOMAIN.md). */
const UF_READERS = ['AUTHORITY', 'INTEGRATION'];

/** SQL: the federative unit of the county bound at `?` (the caller's), where the actor does not carry it. */
const CALLER_UF = 'select ac.str_federative_unit from county ac where ac.id = ?';

/**
 * The caller's own part: `organization` (a column) is its active organization or, as authority or
 * integration, `inUf(uf)` holds for its county's federative unit (`uf` an SQL expression: a bound
 * value when the actor carries it, issue 23, else a lookup of its county). Null when it has
 * neither; administrators are handled before.
 */
function ownPart(actor: Actor, organization: string, inUf: (uf: string) => string): Scope | null {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (actor.organizationId) {
    parts.push(`${organization} = ?`);
    params.push(actor.organizationId);
  }
  if (UF_READERS.includes(actor.userType) && actor.countyId) {
    if (actor.federativeUnit !== undefined) {
      // A county without a federative unit matches nothing, as the lookup's NULL did.
      parts.push(inUf('?::text'));
      params.push(actor.federativeUnit);
    } else {
      parts.push(inUf(`(${CALLER_UF})`));
      params.push(actor.countyId);
    }
  }
  return parts.length ? { sql: `(${parts.join(' or ')})`, params } : null;
}

/**
 * The establishments (alias `e`) the caller sees through its organization or federative unit: the
 * state an equality on the establishment's own `holder_federative_unit` (Migration0057), which an
 * index sorted as the list is answers, instead of the establishments of every county of the state.
 */
const ownEstablishments = (actor: Actor, e: string): Scope | null =>
  ownPart(actor, `${e}.organization_id`, (uf) => `${e}.holder_federative_unit = ${uf}`);

/**
 * The same set read from a row's holder columns (Migration0036ScopeHolders) on alias `h`:
 * equalities the row's indexes answer, no set of units built.
 */
const ownHeld = (actor: Actor, h: string, prefix = ''): Scope | null =>
  ownPart(actor, `${h}.${prefix}holder_organization_id`, (uf) => `${h}.${prefix}holder_federative_unit = ${uf}`);

/**
 * The units whose `data` the caller reads through another organization (DOMAIN.md, "Access between
 * organizations"): an accepted invite to the unit (any data), or an active sharing of that data.
 * Null when the session found the caller holds no grant at all (`Actor.mayBeGranted`).
 */
function grantedUnitIds(actor: Actor, data: SharedData): Scope | null {
  if (actor.mayBeGranted === false) return null;
  const shared = sharingGrant.unitIds(actor, data);
  return { sql: `select iv.control_unit_id from invite iv where ${ACTIVE_INVITE_SQL} union all ${shared.sql}`, params: [actor.userId, ...shared.params] };
}

const ALL: Scope = { sql: 'true', params: [] };
const NONE: Scope = { sql: 'false', params: [] };

/** `a or b`, or `a` alone without `b`. */
const or = (a: Scope, b: Scope | null): Scope => (b ? { sql: `(${a.sql} or ${b.sql})`, params: [...a.params, ...b.params] } : a);

/** Where `controlUnitPolicy.unitIn` reads the row's unit from (see there). */
export interface UnitScopeOn {
  establishment?: string;
  holder?: string;
  prefix?: string;
  perRow?: boolean;
}

/**
 * `Scope.countingParts` of `own or granted`: the caller's own rows (one equality, an index-only
 * count), then the granted rows that are not its own (a few, by key).
 */
const disjoint = (own: Scope, granted: Scope): Scope[] => [own, { sql: `(${granted.sql} and ${own.sql} is not true)`, params: [...granted.params, ...own.params] }];

/**
 * Establishments belong to an organization: visible to callers with it active, to authorities and
 * integrations of its federative unit (read-only) and to administrators; configured by the
 * organization's owners and managers. Status belongs to authorities and administrators;
 * the socio-environmental status to them and integrations.
 */
export const establishmentPolicy = {
  /** SQL condition on alias "e". */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return ALL;
    const own = ownEstablishments(actor, 'e');
    // A caller without grants: its own part alone (a smaller plan to set up on every execution).
    if (actor.mayBeGranted === false) return own ? { ...own, countingParts: [own] } : NONE;
    // An accepted invite lets the invitee read its unit's establishment, an active sharing its
    // establishments. `= any(array(...))` is computed once per statement, so the planner can still walk the order's index.
    const shared = sharingGrant.establishmentIds(actor);
    const granted = `e.id = any(array(select icu.establishment_id from invite iv join control_unit icu on icu.id = iv.control_unit_id where ${ACTIVE_INVITE_SQL} union all ${shared.sql}))`;
    const grantedParams = [actor.userId, ...shared.params];
    if (!own) return { sql: granted, params: grantedParams };
    return { sql: `(${own.sql} or ${granted})`, params: [...own.params, ...grantedParams], countingParts: disjoint(own, { sql: granted, params: grantedParams }) };
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
    return controlUnitPolicy.unitIn(actor, 'cu.id', 'PLACES', { establishment: 'cu.establishment_id', perRow: true });
  },

  /**
   * SQL condition: the unit in `column` (e.g. `a.last_control_unit_id`) is one whose `data` the
   * caller reads: a unit of its organization or federative unit, the one unit an accepted invite
   * names (not its siblings), or a unit an active sharing opens for that data.
   * `on.establishment`: the same row's column naming that unit's establishment, when it has one;
   * `on.holder`: the alias of the row when it carries its unit's holder columns (named with
   * `on.prefix` when the row has two units, Migration0049EgressHolders). `on.perRow` (with
   * `on.establishment`): the caller's part as a lookup of the row's establishment by its key, for
   * reads of a few rows (a page of units): a state's authority would otherwise hash the ids of its
   * 25,000 establishments on every request.
   */
  unitIn(actor: Actor, column: string, data: SharedData, on: UnitScopeOn = {}): Scope {
    if (actor.isAdmin) return ALL;
    const own = on.holder ? ownHeld(actor, on.holder, on.prefix) : ownEstablishments(actor, 'oe');
    const invited = grantedUnitIds(actor, data);
    // Each set a hashed subquery the planner keeps as a filter: a page walks the order's index and
    // stops after a page of matches, instead of fetching every row of the caller's units to sort them.
    const granted = invited && { sql: `${column} in (${invited.sql})`, params: invited.params };
    // Counting visits every match anyway: one array of the units, computed once, lets a count read
    // the unit's index (animal_unit_filters, tag_unit...) for those units alone, where the filter
    // form above would scan the whole table.
    const grantedArray = invited && { sql: `${column} = any(array(${invited.sql}))`, params: invited.params };
    if (!own) return granted ? { ...granted, counting: grantedArray! } : NONE;
    if (on.holder) {
      // The organization's or the state's part is an equality on the row (its holder indexes); only
      // the invited and shared units, a few, remain a set.
      return { ...or(own, granted), counting: or(own, grantedArray), countingParts: grantedArray ? disjoint(own, grantedArray) : [own] };
    }
    const establishmentColumn = on.establishment;
    if (establishmentColumn) {
      // The row names its unit's establishment (a unit, a stay; a unit never changes establishment):
      // the caller's part is read from the establishments' index, not by hashing every control unit
      // of its establishments (an authority's federative unit holds tens of thousands).
      const ownEstablishmentIds = `select oe.id from establishment oe where ${own.sql}`;
      const ownSql = on.perRow ? `exists (select 1 from establishment oe where oe.id = ${establishmentColumn} and ${own.sql})` : `${establishmentColumn} in (${ownEstablishmentIds})`;
      return { ...or({ sql: ownSql, params: own.params }, granted), counting: or({ sql: `${establishmentColumn} = any(array(${ownEstablishmentIds}))`, params: own.params }, grantedArray) };
    }
    const ownUnits = `select ocu.id from control_unit ocu join establishment oe on oe.id = ocu.establishment_id where ${own.sql}`;
    return {
      ...or({ sql: `${column} in (${ownUnits})`, params: own.params }, granted),
      counting: { sql: `${column} = any(array(${ownUnits}${invited ? ` union ${invited.sql}` : ''}))`, params: [...own.params, ...(invited?.params ?? [])] },
    };
  },

  /**
   * Either unit's `data` read (a movement is its origin's and its destination's). `holder`: the
   * alias of a row that carries each side's holder (`from_` and `to_` columns, Migration0049EgressHolders).
   */
  eitherUnitIn(actor: Actor, a: string, b: string, data: SharedData, holder?: string): Scope {
    const first = controlUnitPolicy.unitIn(actor, a, data, holder ? { holder, prefix: 'from_' } : {});
    if (first.sql === 'true') return first;
    const second = controlUnitPolicy.unitIn(actor, b, data, holder ? { holder, prefix: 'to_' } : {});
    return { sql: `(${first.sql} or ${second.sql})`, params: [...first.params, ...second.params] };
  },
};
