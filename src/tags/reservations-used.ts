import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventInput } from '../shared/events.js';

/**
 * After an operation took RESERVED tags out of their reservations (applied, replaced onto an
 * animal, written off): each of those reservations still ACTIVE with no tag left becomes USED
 * (DOMAIN.md, "Tags Reservation"). One statement for all of them; answers a
 * TAGS_RESERVATION_USED event for each, with `refs` naming the operation.
 */
export async function settleReservations(tx: EntityManager, reservationIds: (string | null)[], actorId: string, refs: Record<string, unknown>, occurredAt?: Date): Promise<EventInput[]> {
  const ids = [...new Set(reservationIds.filter((v): v is string => v !== null))];
  if (!ids.length) return [];
  const used = await tx.execute<{ id: string }[]>(
    `update tags_reservation r set str_status = 'USED', ts_updated_at = now()
      where r.id = any(array[?]::uuid[]) and r.str_status = 'ACTIVE'
        and not exists (select 1 from tag t where t.tags_reservation_id = r.id)
     returning r.id`,
    [ids],
  );
  return used.map((r) => ({
    type: 'TAGS_RESERVATION_USED',
    recordType: 'TagsReservation',
    recordId: r.id,
    actorId,
    ...(occurredAt ? { occurredAt } : {}),
    payload: { changes: { str_status: { from: 'ACTIVE', to: 'USED' } }, refs },
  }));
}
