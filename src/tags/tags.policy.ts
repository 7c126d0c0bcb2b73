import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import type { Role } from '../identity/membership.entity.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { findVisible, type Scope } from '../shared/scoped-query.js';

/** DOMAIN.md: owners, managers and operators record field work (tags, identification, replacement, writeoff). */
const FIELD_WORK_ROLES: readonly Role[] = ['OWNER', 'MANAGER', 'OPERATOR'];

/**
 * Tags, boxes, animals and every tag operation live at a control unit: a caller sees them when it
 * sees the unit (its organization, an accepted invite, its federative unit as authority or
 * integration, or as administrator) and records field work at units of its active organization.
 */
export const tagsPolicy = {
  /**
   * SQL condition: the unit in `column` (e.g. `t.last_control_unit_id`) is one whose tags the caller
   * sees; `holder`: the row's alias when it carries its unit's holder columns.
   */
  unitScope(actor: Actor, column: string, holder?: string): Scope {
    return controlUnitPolicy.unitIn(actor, column, 'TAGS', { holder });
  },

  /** Either unit's tags seen (a tags egress is the sender's and the receiver's). */
  eitherUnitScope(actor: Actor, a: string, b: string): Scope {
    return controlUnitPolicy.eitherUnitIn(actor, a, b, 'TAGS');
  },

  canWork(actor: Actor, establishment: { organization_id: string }): void {
    if (actor.isAdmin) return;
    if (establishment.organization_id === actor.organizationId && actor.role && FIELD_WORK_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden("only owners, managers and operators of the unit's organization record tag work");
  },
};

export interface WorkUnit {
  unit: ControlUnit;
  establishment: Establishment;
}

/**
 * The control unit named by `field` of a field-work request: it must be visible (else 422 naming
 * the field, as for any reference in a body) and the caller must work there (403).
 */
export async function workUnit(em: EntityManager, actor: Actor, field: string, id: string | null | undefined): Promise<WorkUnit> {
  if (!id) throw DomainError.field(field, 'is required');
  if (!isUuid(id)) throw DomainError.field(field, 'must be a uuid');
  const unit = await findVisible(em, ControlUnit, 'control_unit cu', controlUnitPolicy.scope(actor), id);
  if (!unit) throw DomainError.field(field, 'no such control unit');
  const establishment = await em.findOneOrFail(Establishment, { id: unit.establishment_id });
  tagsPolicy.canWork(actor, establishment);
  return { unit, establishment };
}
