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
  /** Each changed animal: [id, its status before, after]. */
  animals: [string, string | null, string][] | string;
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
       select a.id, a.str_socioenvironmental_status as before from animal a
        where a.id in (select x.animal_id from animal_stay x where x.establishment_id = ?)
          and ${socioRank('a.str_socioenvironmental_status')} < ${socioRank('?::text')}
        order by a.id for update
     ), changed as (
       update animal a set str_socioenvironmental_status = ?, ts_updated_at = ?
         from locked l where a.id = l.id
       returning a.id, l.before, a.str_socioenvironmental_status as after, a.last_control_unit_id, a.str_status, true as worse
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
       returning a.id, o.str_socioenvironmental_status as before, a.str_socioenvironmental_status as after, a.last_control_unit_id, a.str_status,
                 w.r > coalesce(${socioRank('o.str_socioenvironmental_status')}, 0) as worse
     )`;

/**
 * DOMAIN.md, "Animals": an establishment's socio-environmental status changed, so every animal
 * that ever stood in it (its stays) takes again the worst status over every establishment it has
 * stood in. One statement however many animals: it finds them by the stays' establishment index,
 * updates only those whose status changes (WORSE or RECOMPUTE), and answers per current holding
 * with the animals that changed. Then one SOCIOENVIRONMENTAL_ALERT per holding whose present
 * animals got worse (one statement), and, when any animal changed, one event on the establishment
 * with the counts that lists the animals (issue 20): not one event per animal (100,000 animals
 * would be 100,000 events in one transaction); each animal's history shows it as
 * ANIMAL_SOCIOENVIRONMENTAL_STATUS_CHANGED, from and to.
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
            (count(*) filter (where c.worse and c.str_status in ${PRESENT}))::int as int_worse_here,
            jsonb_agg(jsonb_build_array(c.id, c.before, c.after)) as animals
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
        listed: { Animal: { str_event: 'ANIMAL_SOCIOENVIRONMENTAL_STATUS_CHANGED', changes: {}, refs: { ...refs, establishment_id: establishment.id, str_establishment_status: change } } },
      },
      subjects: holdings.flatMap((h) => (typeof h.animals === 'string' ? JSON.parse(h.animals) : h.animals) as [string, string | null, string][]).map(([id, from, to]) => ({
        recordType: 'Animal',
        recordId: id,
        own: { changes: { str_socioenvironmental_status: { from, to } } },
      })),
    },
    ...raised,
  ];
}
