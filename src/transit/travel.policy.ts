import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import type { Scope } from '../shared/scoped-query.js';
import { tagsPolicy } from '../tags/tags.policy.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';

/**
 * Travels (DOMAIN.md, Travel): seen by whoever sees its origin or its destination unit (their
 * organizations, an accepted invite, the authorities and integrations of their UF, administrators)
 * and by its transporter; worked (start, embarks, stops, finish, cancel) by owners, managers and
 * operators of the origin's organization and by the transporter. Created by the origin's workers.
 */
export const travelPolicy = {
  /** SQL condition on alias "t". */
  scope(actor: Actor): Scope {
    const units = controlUnitPolicy.eitherUnitIn(actor, 't.from_control_unit_id', 't.to_control_unit_id', 'MOVEMENTS');
    if (units.sql === 'true') return units;
    return { sql: `(${units.sql} or t.transporter_user_id = ?)`, params: [...units.params, actor.userId] };
  },

  /** 403 unless the caller is the transporter or works for the origin's organization. */
  async canWork(em: EntityManager, actor: Actor, travel: { from_control_unit_id: string; transporter_user_id: string }): Promise<void> {
    if (actor.isAdmin || travel.transporter_user_id === actor.userId) return;
    const [origin] = await em.execute<{ organization_id: string }[]>(
      'select e.organization_id from control_unit cu join establishment e on e.id = cu.establishment_id where cu.id = ?',
      [travel.from_control_unit_id],
    );
    try {
      tagsPolicy.canWork(actor, origin!);
    } catch {
      throw DomainError.forbidden("only the transporter and owners, managers and operators of the origin's organization work a travel");
    }
  },
};
