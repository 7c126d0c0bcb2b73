import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventInput } from '../shared/events.js';
import { newId } from '../shared/ids.js';
import type { RaisedOccurrence } from './occurrence.rules.js';

/**
 * Occurrences a rule raises inside the transaction that found them: one statement however many,
 * and their OCCURRENCE_RAISED events for the caller to append with its own (no reporter: a rule).
 */
export async function raiseOccurrences(tx: EntityManager, actorId: string | null, raised: RaisedOccurrence[]): Promise<EventInput[]> {
  if (!raised.length) return [];
  const now = new Date();
  const rows = raised.map((o) => ({
    id: newId(),
    str_type: o.str_type,
    control_unit_id: o.control_unit_id,
    animal_id: o.animal_id ?? null,
    tag_id: o.tag_id ?? null,
    animals_egress_id: o.animals_egress_id ?? null,
    animals_ingress_id: o.animals_ingress_id ?? null,
    gta_id: o.gta_id ?? null,
    travel_id: o.travel_id ?? null,
    str_description: o.str_description,
    ts_occurred_at: (o.ts_occurred_at ?? now).toISOString(),
  }));
  await tx.execute(
    `insert into occurrence (id, str_type, control_unit_id, animal_id, tag_id, animals_egress_id, animals_ingress_id, gta_id, travel_id, str_description, ts_occurred_at, ts_created_at, ts_updated_at)
     select x.id, x.str_type, x.control_unit_id, x.animal_id, x.tag_id, x.animals_egress_id, x.animals_ingress_id, x.gta_id, x.travel_id, x.str_description, x.ts_occurred_at, ?, ?
       from jsonb_to_recordset(?::jsonb) as x(id uuid, str_type text, control_unit_id uuid, animal_id uuid, tag_id uuid, animals_egress_id uuid, animals_ingress_id uuid, gta_id uuid, travel_id uuid, str_description text, ts_occurred_at timestamptz)`,
    [now, now, JSON.stringify(rows)],
  );
  return rows.map(({ id, ...changes }) => ({
    type: 'OCCURRENCE_RAISED',
    recordType: 'Occurrence',
    recordId: id,
    actorId,
    payload: { changes: { ...changes, str_status: 'OPEN' }, refs: { by: 'RULE' } },
  }));
}
