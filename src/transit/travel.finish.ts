import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ruleViolated } from '../movements/movement.rules.js';
import { DomainError } from '../shared/errors.js';
import type { EventInput } from '../shared/events.js';
import type { Travel } from './travel.entity.js';
import type { Position } from './travel.input.js';
import { durationMinutes } from './travel.rules.js';
import { refsOf } from './travel.records.js';

/**
 * IN_PROGRESS → FINISHED at `end`: not before the start nor a stop (422 on ts_end_time); refused
 * (RULE_VIOLATED) when the trip carried nothing (TRAVEL_WITHOUT_EMBARKS: every egress loaded was
 * cancelled, or none was) or an egress loaded was never dispatched (EMBARKED_EGRESS_NOT_DISPATCHED:
 * finish it first). The egresses and their animals are left as they are: IN_TRANSIT until an
 * ingress takes them in. Returns the events; the caller appends them.
 */
export async function finishTravel(tx: EntityManager, actor: Actor, travel: Travel, end: Date, to: Position | null): Promise<EventInput[]> {
  const start = new Date(travel.ts_start_time!);
  const [facts] = await tx.execute<{ last_stop: Date | string | null; carried: number; open_ids: string[] | null }[]>(
    `select (select max(coalesce(s.ts_departure, s.ts_arrival)) from travel_stop s where s.travel_id = ?) as last_stop,
            count(*) filter (where e.str_status <> 'CANCELLED')::int as carried,
            array_agg(e.id order by e.id) filter (where e.str_status = 'OPEN') as open_ids
       from travel_embark te join animals_egress e on e.id = te.animals_egress_id
      where te.travel_id = ? and te.ts_released_at is null`,
    [travel.id, travel.id],
  );
  if (end < start) throw DomainError.field('ts_end_time', `must not be before the travel's ts_start_time (${start.toISOString()})`);
  if (facts!.last_stop && end < new Date(facts!.last_stop)) throw DomainError.field('ts_end_time', `must not be before the last stop (${new Date(facts!.last_stop).toISOString()})`);
  if (!facts!.carried) throw ruleViolated('TRAVEL_WITHOUT_EMBARKS', 'a travel carries at least one animals egress: embark one before finishing');
  const open = facts!.open_ids ?? [];
  if (open.length) throw ruleViolated('EMBARKED_EGRESS_NOT_DISPATCHED', `${open.length} animals egress(es) loaded are still OPEN: finish them (dispatch under their GTA) before the trip ends`, { animals_egress_ids: open });
  const duration = durationMinutes(start, end);
  Object.assign(travel, { str_status: 'FINISHED', ts_end_time: end, int_duration: duration, num_to_longitude: to?.[0] ?? null, num_to_latitude: to?.[1] ?? null, ts_updated_at: new Date() });
  await tx.flush();
  const changes = { str_status: 'FINISHED', ts_end_time: end, int_duration: duration, geo_coordinates_to: to ? { type: 'Point', coordinates: to } : null };
  return [{ type: 'TRAVEL_FINISHED', recordType: 'Travel', recordId: travel.id, actorId: actor.userId, payload: { changes, refs: refsOf(travel) } }];
}
