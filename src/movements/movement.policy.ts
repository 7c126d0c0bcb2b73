import type { EntityManager } from '@mikro-orm/postgresql';
import { ACTIVE_INVITE_SQL } from '../access/invite.rules.js';
import type { Actor } from '../identity/actor.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { isUuid } from '../shared/ids.js';
import { findVisible } from '../shared/scoped-query.js';
import { tagsPolicy, type WorkUnit } from '../tags/tags.policy.js';

export type Direction = 'EGRESS' | 'INGRESS';

/** Where a movement is worked: the unit, and the one GTA a restricted invite limits the caller to (null: any). */
export interface MovementWork extends WorkUnit {
  onlyGtaId: string | null;
}

/**
 * Animal movements (DOMAIN.md, "Access between organizations"): an egress is seen by whoever sees
 * its origin or its destination unit, an ingress by whoever sees its unit (an accepted invite to
 * that one unit included). They are worked by owners, managers and operators of the unit's
 * organization, or by an invitee whose accepted OPERATOR invite to that unit covers the direction
 * (INGRESS, EGRESS or BOTH), limited to one GTA when the invite is restricted to it.
 */
export const movementPolicy = {
  /** SQL condition on alias "ae": its own part on the row's holder columns (issue 23). */
  egressScope(actor: Actor): Scope {
    return controlUnitPolicy.eitherUnitIn(actor, 'ae.from_control_unit_id', 'ae.to_control_unit_id', 'MOVEMENTS', 'ae');
  },

  /** SQL condition on alias "ai". */
  ingressScope(actor: Actor): Scope {
    return controlUnitPolicy.unitIn(actor, 'ai.to_control_unit_id', 'MOVEMENTS', { holder: 'ai' });
  },

  /** The unit in `field` where the caller records this direction's movements; 422 when unseen, 403 when it may not work there. */
  async work(em: EntityManager, actor: Actor, field: string, id: string | null | undefined, direction: Direction): Promise<MovementWork> {
    if (!id) throw DomainError.field(field, 'is required');
    if (!isUuid(id)) throw DomainError.field(field, 'must be a uuid');
    const unit = await findVisible(em, ControlUnit, 'control_unit cu', controlUnitPolicy.scope(actor), id.toLowerCase());
    if (!unit) throw DomainError.field(field, 'no such control unit');
    const establishment = await em.findOneOrFail(Establishment, { id: unit.establishment_id });
    try {
      tagsPolicy.canWork(actor, establishment);
      return { unit, establishment, onlyGtaId: null };
    } catch (e) {
      const invite = await invitedWork(em, actor, unit.id, direction);
      if (!invite) throw e;
      return { unit, establishment, onlyGtaId: invite.onlyGtaId };
    }
  },

  /** A restricted invitee works only the movement of its GTA. */
  checkGta(work: MovementWork, gtaIds: (string | null)[]): void {
    if (!work.onlyGtaId) return;
    if (gtaIds.some((g) => g !== work.onlyGtaId)) throw DomainError.forbidden('your invite to this unit covers the movement of one GTA only');
  },
};

async function invitedWork(em: EntityManager, actor: Actor, unitId: string, direction: Direction): Promise<{ onlyGtaId: string | null } | null> {
  const rows = await em.execute<{ gta_id: string | null; bl_restricted: boolean }[]>(
    `select iv.gta_id, iv.bl_restricted from invite iv
      where ${ACTIVE_INVITE_SQL} and iv.control_unit_id = ? and iv.str_type = 'OPERATOR' and iv.str_movimentation_type in (?, 'BOTH')
      order by iv.bl_restricted, iv.ts_created_at`,
    [actor.userId, unitId.toLowerCase(), direction],
  );
  const invite = rows[0];
  if (!invite) return null;
  return { onlyGtaId: invite.bl_restricted ? invite.gta_id : null };
}
