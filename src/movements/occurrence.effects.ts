import type { EntityManager } from '@mikro-orm/postgresql';
import { closeStays } from '../animals/stays.js';
import type { AnimalStatus } from '../animals/animal.rules.js';
import { DomainError } from '../shared/errors.js';
import type { EventInput } from '../shared/events.js';
import type { Occurrence } from './occurrence.entity.js';
import type { OccurrenceType } from './occurrence.rules.js';
import { arrive, destinationOf, settledEvents, settleGtas } from './arrivals.js';

/**
 * What an occurrence does to its animal (DOMAIN.md, "Animals": ACTIVE ⇄ MISSING, ACTIVE → DEAD).
 * A report changes the animal in the report's transaction; closing (resolve or dismiss) may undo
 * it. Each change is one event on the animal, referring to the occurrence.
 */
export interface AnimalRow {
  id: string;
  str_status: AnimalStatus;
  last_control_unit_id: string;
}

/** What a report of each type needs its animal to be, and what it makes of it. */
export const REPORT_EFFECTS: Partial<Record<OccurrenceType, { from: readonly AnimalStatus[]; to: AnimalStatus; event: string }>> = {
  ANIMAL_DEATH: { from: ['ACTIVE'], to: 'DEAD', event: 'ANIMAL_DIED' },
  THEFT: { from: ['ACTIVE'], to: 'MISSING', event: 'ANIMAL_MISSING' },
};

/** INVALID_STATE naming the animal and its status, and what the report needs. */
export function animalNotReportable(type: OccurrenceType, animal: AnimalRow, allowed: readonly AnimalStatus[]): DomainError {
  return new DomainError('INVALID_STATE', {
    message: `${type} is reported on an animal in ${allowed.join(' or ')}: animal ${animal.id} is ${animal.str_status}`,
    allowed,
    animals: [{ id: animal.id, str_status: animal.str_status }],
  });
}

/** The animal changes as the report says; the caller checked (under lock) that it may. */
export async function applyReport(tx: EntityManager, occurrence: Occurrence, animal: AnimalRow, actorId: string, refs: Record<string, unknown>): Promise<EventInput[]> {
  const effect = REPORT_EFFECTS[occurrence.str_type];
  if (!effect) return [];
  const at = occurrence.ts_occurred_at;
  const now = new Date();
  const changes: Record<string, unknown> = { str_status: { from: animal.str_status, to: effect.to } };
  if (effect.to === 'DEAD') {
    await tx.execute('update animal set str_status = ?, ts_ended_at = ?, ts_updated_at = ? where id = ?', [effect.to, at, now, animal.id]);
    // Its stay ends when it died, not when it was reported.
    await closeStays(tx, [animal.id], at);
    changes.ts_ended_at = at.toISOString();
  } else {
    // A missing animal is still where it went missing: its stay stays open.
    await tx.execute('update animal set str_status = ?, ts_updated_at = ? where id = ?', [effect.to, now, animal.id]);
  }
  return [{ type: effect.event, recordType: 'Animal', recordId: animal.id, actorId, occurredAt: at, payload: { changes, refs: { ...refs, occurrence_id: occurrence.id, str_occurrence_type: occurrence.str_type } } }];
}

/**
 * Closing an occurrence (RESOLVED or DISMISSED): a THEFT closed brings its MISSING animal back to
 * ACTIVE (found, or it was never stolen); a MISSING_ON_ARRIVAL resolved means the animal was found
 * at the destination: it arrives there. Other types change nothing but the occurrence.
 */
export async function applyClose(tx: EntityManager, occurrence: Occurrence, actorId: string, refs: Record<string, unknown>): Promise<EventInput[]> {
  if (occurrence.str_type === 'MISSING_ON_ARRIVAL' && occurrence.str_status === 'RESOLVED' && occurrence.animal_id) return foundOnArrival(tx, occurrence, actorId, refs);
  if (occurrence.str_type !== 'THEFT' || !occurrence.animal_id) return [];
  const found = await tx.execute<{ id: string }[]>("update animal set str_status = 'ACTIVE', ts_updated_at = ? where id = ? and str_status = 'MISSING' returning id", [new Date(), occurrence.animal_id]);
  if (!found.length) return [];
  return [
    {
      type: 'ANIMAL_FOUND',
      recordType: 'Animal',
      recordId: occurrence.animal_id,
      actorId,
      payload: { changes: { str_status: { from: 'MISSING', to: 'ACTIVE' } }, refs: { ...refs, occurrence_id: occurrence.id, str_occurrence_status: occurrence.str_status } },
    },
  ];
}

/**
 * A MISSING_ON_ARRIVAL resolved: the animal, still IN_TRANSIT, arrives at the occurrence's unit (the
 * ingress's) now, as an ingress would receive it; its GTA becomes RECEIVED when nothing else is
 * missing. Dismissed, nothing changes (it was not there: it stays IN_TRANSIT for the origin to cancel).
 */
async function foundOnArrival(tx: EntityManager, occurrence: Occurrence, actorId: string, refs: Record<string, unknown>): Promise<EventInput[]> {
  const now = new Date();
  const arrived = await arrive(tx, [occurrence.animal_id!], await destinationOf(tx, occurrence.control_unit_id), now, new Map(), occurrence.animals_ingress_id);
  if (!arrived.size) return [];
  const moved: EventInput = {
    type: 'ANIMAL_RECEIVED',
    recordType: 'Animal',
    recordId: occurrence.animal_id!,
    actorId,
    payload: { changes: { str_status: 'ACTIVE', last_control_unit_id: occurrence.control_unit_id, str_socioenvironmental_status: arrived.get(occurrence.animal_id!) }, refs: { ...refs, occurrence_id: occurrence.id, gta_id: occurrence.gta_id, animals_ingress_id: occurrence.animals_ingress_id } },
  };
  return [moved, ...(occurrence.gta_id ? settledEvents(actorId, await settleGtas(tx, [occurrence.gta_id]), refs) : [])];
}
