import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventInput } from '../shared/events.js';
import { SOCIO_ORDER, socioOfRank, socioRank, type SocioStatus } from './movement.rules.js';
import { raiseOccurrences } from './occurrences.raise.js';
import type { RaisedOccurrence } from './occurrence.rules.js';

/** Per current holding: how many animals changed, and how many of those present there (ACTIVE or MISSING) got worse. */
interface HoldingRow {
  control_unit_id: string | null;
  int_changed: number;
  int_worse: number;
  int_better: number;
  int_worse_here: number;
}

/** Animals whose worsened status a holding is alerted to: those that are there (a missing animal is still the holding's). */
const PRESENT = "('ACTIVE','MISSING')";

const worsened = (change: { from: string; to: string }): boolean => SOCIO_ORDER.indexOf(change.to as SocioStatus) > SOCIO_ORDER.indexOf(change.from as SocioStatus);

/**
 * The animals are locked first, in id order, as every movement locks them: two writers then queue
 * instead of each holding what the other waits for (a deadlock PostgreSQL would end by rolling one
 * back).
 *
 * Worse news: an animal's status already is the worst of its stays (every arrival and every change
 * keeps it so), so the worst with this one is the worse of the two: no other stay need be read.
 */
const WORSE = `locked as (
       select a.id from animal a
        where a.id in (select x.animal_id from animal_stay x where x.establishment_id = ?)
          and ${socioRank('a.str_socioenvironmental_status')} < ${socioRank('?::text')}
        order by a.id for update
     ), changed as (
       update animal a set str_socioenvironmental_status = ?, ts_updated_at = ?
         from locked l where a.id = l.id
       returning a.last_control_unit_id, a.str_status, true as worse
     )`;

/** Better news: each animal's worst is taken again over the establishments of all its stays. */
const RECOMPUTE = `locked as (
       select a.id from animal a
        where a.id in (select x.animal_id from animal_stay x where x.establishment_id = ?)
        order by a.id for update
     ), worst as (
       select s.animal_id, max(${socioRank('e.str_socioenvironmental_status')}) as r
         from animal_stay s join establishment e on e.id = s.establishment_id
        where s.animal_id in (select l.id from locked l)
        group by s.animal_id
     ), changed as (
       update animal a set str_socioenvironmental_status = ${socioOfRank('w.r')}, ts_updated_at = ?
         from worst w join animal o on o.id = w.animal_id
        where a.id = o.id and o.str_socioenvironmental_status is distinct from ${socioOfRank('w.r')}
       returning a.last_control_unit_id, a.str_status, w.r > coalesce(${socioRank('o.str_socioenvironmental_status')}, 0) as worse
     )`;

/**
 * DOMAIN.md, "Animals": an establishment's socio-environmental status changed, so every animal
 * that ever stood in it (its stays) takes again the worst status over every establishment it has
 * stood in. One statement however many animals: it finds them by the stays' establishment index,
 * updates only those whose status changes (WORSE or RECOMPUTE), and answers per current holding.
 * Then one SOCIOENVIRONMENTAL_ALERT per holding whose present animals got worse (one statement),
 * and, when any animal changed, one event on the establishment with the counts: not one event per
 * animal (100,000 animals would be 100,000 events in one transaction); the establishment's history
 * is where this change shows.
 */
export async function propagateSocio(
  tx: EntityManager,
  actorId: string,
  establishment: { id: string; str_name: string },
  change: { from: string; to: string },
  refs: Record<string, unknown>,
): Promise<EventInput[]> {
  const now = new Date();
  const holdings = await tx.execute<HoldingRow[]>(
    `with ${worsened(change) ? WORSE : RECOMPUTE}
     select case when c.str_status in ${PRESENT} then c.last_control_unit_id end as control_unit_id,
            count(*)::int as int_changed,
            (count(*) filter (where c.worse))::int as int_worse,
            (count(*) filter (where not c.worse))::int as int_better,
            (count(*) filter (where c.worse and c.str_status in ${PRESENT}))::int as int_worse_here
       from changed c
      group by 1`,
    worsened(change) ? [establishment.id, change.to, change.to, now] : [establishment.id, now],
  );
  const sum = (f: 'int_changed' | 'int_worse' | 'int_better') => holdings.reduce((n, h) => n + h[f], 0);
  const alerts: RaisedOccurrence[] = holdings
    .filter((h) => h.control_unit_id && h.int_worse_here > 0)
    .map((h) => ({
      str_type: 'SOCIOENVIRONMENTAL_ALERT',
      control_unit_id: h.control_unit_id!,
      str_description: `${h.int_worse_here} animal(s) here now carry a worse socio-environmental status: establishment "${establishment.str_name}" (${establishment.id}), where they once stood, changed from ${change.from} to ${change.to}`,
      ts_occurred_at: now,
    }));
  const raised = await raiseOccurrences(tx, actorId, alerts);
  // No animal's status changed: nothing to record (an establishment that never held animals, or only ones worse elsewhere).
  if (!sum('int_changed')) return [];
  return [
    {
      type: 'ESTABLISHMENT_ANIMALS_SOCIOENVIRONMENTAL_RECOMPUTED',
      recordType: 'Establishment',
      recordId: establishment.id,
      actorId,
      occurredAt: now,
      payload: {
        changes: { int_animals_changed: sum('int_changed'), int_animals_worse: sum('int_worse'), int_animals_better: sum('int_better'), int_alerts: raised.length },
        refs: { ...refs, str_socioenvironmental_status: change, occurrence_ids: raised.map((e) => e.recordId) },
      },
    },
    ...raised,
  ];
}
