import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import { Travel } from './travel.entity.js';
import { TRAVEL_TRANSITIONS, travelStateError, type TravelAction } from './travel.rules.js';

/** What a travel's events name besides itself. */
export const refsOf = (t: Travel) => ({ from_control_unit_id: t.from_control_unit_id, to_control_unit_id: t.to_control_unit_id, vehicle_id: t.vehicle_id, transporter_user_id: t.transporter_user_id });

/** The travel locked for a change its state must allow (INVALID_STATE naming the state otherwise). */
export async function lockTravel(tx: EntityManager, id: string, action: TravelAction): Promise<Travel> {
  const rows = await tx.execute<Record<string, unknown>[]>('select * from travel where id = ? for update', [id]);
  if (!rows[0]) throw DomainError.notFound('travel');
  const status = rows[0].str_status as string;
  if (!(TRAVEL_TRANSITIONS[action].from as readonly string[]).includes(status)) throw travelStateError(action, status);
  return tx.map(Travel, rows[0] as never);
}
