import type { EntityManager } from '@mikro-orm/postgresql';
import { SET_HOLDER_OF_UNIT } from '../places/unit-holder.js';
import { executeBound } from '../db/bound.js';
import type { EventInput, Listed, Subject } from '../shared/events.js';
import { socioOfRank, socioRank } from './movement.rules.js';
import { previousStayBegan } from '../animals/stays.js';

/** Where animals arrive: the unit and its establishment's socio-environmental status. */
export interface Destination {
  unitId: string;
  establishmentId: string;
  organizationId: string;
  socio: string;
}

/**
 * Animals IN_TRANSIT become ACTIVE at the destination, set-based: their last unit (their applied
 * tags are where they are, Migration0032), a stay opened at their read time (or `at`), and their socio-environmental status
 * the worse of theirs and the destination establishment's (theirs already holds every earlier
 * establishment's). Returns the new status of each animal.
 *
 * One statement (issue 20, the speed of an ingress finish): the stays are inserted from the
 * update's own rows (a data-modifying CTE), with the destination's unit, establishment and holder,
 * where a second statement read the moved animals back (a scan of the animal table and a join).
 */
export async function arrive(tx: EntityManager, animalIds: string[], to: Destination, at: Date, times: Map<string, Date>, ingressId: string | null): Promise<Map<string, string>> {
  if (!animalIds.length) return new Map();
  const rows = await executeBound<{ id: string; str_socioenvironmental_status: string }>(
    tx,
    `with moved as (
       update animal a set str_status = 'ACTIVE', last_control_unit_id = ?, ${SET_HOLDER_OF_UNIT},
              str_socioenvironmental_status = ${socioOfRank(`greatest(${socioRank('a.str_socioenvironmental_status')}, ${socioRank('?::text')})`)}, ts_updated_at = ?
        where a.id = any(?::uuid[]) and a.str_status = 'IN_TRANSIT'
        returning a.id, a.str_socioenvironmental_status, a.holder_organization_id, a.holder_federative_unit
     ), stays as (
       -- Only the animals that were still on the way arrive: one already received (by another ingress) keeps its open stay.
       insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, animals_ingress_id, holder_organization_id, holder_federative_unit)
       select m.id, ?::uuid, ?::uuid, greatest(coalesce(t.at, ?::timestamptz), ${previousStayBegan('m.id')}), ?::uuid, m.holder_organization_id, m.holder_federative_unit
         from moved m left join jsonb_to_recordset(?::jsonb) as t(id uuid, at timestamptz) on t.id = m.id
     )
     select id, str_socioenvironmental_status from moved`,
    [to.unitId, to.unitId, to.socio, at, animalIds, to.unitId, to.establishmentId, at, ingressId, JSON.stringify([...times].map(([id, t]) => ({ id, at: t })))],
  );
  return new Map(rows.map((r) => [r.id, r.str_socioenvironmental_status]));
}

/** The GTAs (and their egresses) an arrival made RECEIVED. */
export interface Settled {
  gtaIds: string[];
  egresses: { id: string; gta_id: string }[];
}

/** One event per GTA and per egress made RECEIVED (an occurrence resolved: a few records). */
export function settledEvents(actorId: string, settled: Settled, refs: Record<string, unknown>): EventInput[] {
  return [
    ...settled.gtaIds.map((id): EventInput => ({ type: 'GTA_RECEIVED', recordType: 'Gta', recordId: id, actorId, payload: { changes: { str_status: 'RECEIVED' }, refs } })),
    ...settled.egresses.map((e): EventInput => ({ type: 'ANIMALS_EGRESS_RECEIVED', recordType: 'AnimalsEgress', recordId: e.id, actorId, payload: { changes: { str_status: 'RECEIVED' }, refs: { ...refs, gta_id: e.gta_id } } })),
  ];
}

/** The same, listed by an ingress's one event (issue 20): its templates and its subjects. */
export function settledListing(settled: Settled, refs: Record<string, unknown>): { listed: Record<string, Listed>; subjects: Subject[] } {
  return {
    listed: {
      Gta: { str_event: 'GTA_RECEIVED', changes: { str_status: 'RECEIVED' }, refs },
      AnimalsEgress: { str_event: 'ANIMALS_EGRESS_RECEIVED', changes: { str_status: 'RECEIVED' }, refs },
    },
    subjects: [
      ...settled.gtaIds.map((id): Subject => ({ recordType: 'Gta', recordId: id })),
      ...settled.egresses.map((e): Subject => ({ recordType: 'AnimalsEgress', recordId: e.id, own: { refs: { gta_id: e.gta_id } } })),
    ],
  };
}

/**
 * GTAs whose every dispatched animal has arrived become RECEIVED, and so do their egresses:
 * two statements however many. The animals still on the way are found once for all the GTAs,
 * through their egresses (by gta_id): correlated per GTA, the planner would walk every FINISHED
 * egress of the country once per GTA.
 */
export async function settleGtas(tx: EntityManager, gtaIds: string[]): Promise<Settled> {
  if (!gtaIds.length) return { gtaIds: [], egresses: [] };
  const now = new Date();
  const gtas = await executeBound<{ id: string }>(
    tx,
    `update gta g set str_status = 'RECEIVED', ts_updated_at = ?
      where g.id = any(?::uuid[]) and g.str_status = 'IN_USE'
        and g.id not in (select e.gta_id from animals_egress e join animals_egress_tag r on r.animals_egress_id = e.id join animal a on a.id = r.animal_id
                          where e.gta_id = any(?::uuid[]) and e.str_status = 'FINISHED' and a.str_status = 'IN_TRANSIT' and a.last_control_unit_id = e.from_control_unit_id)
      returning g.id`,
    [now, gtaIds, gtaIds],
  );
  const received = gtas.map((g) => g.id);
  const egresses = received.length
    ? await executeBound<{ id: string; gta_id: string }>(tx, `update animals_egress set str_status = 'RECEIVED', ts_updated_at = ? where gta_id = any(?::uuid[]) and str_status = 'FINISHED' returning id, gta_id`, [now, received])
    : [];
  return { gtaIds: received, egresses };
}

/** Where a unit is, as a destination: one statement. */
export async function destinationOf(tx: EntityManager, unitId: string): Promise<Destination> {
  const [row] = await tx.execute<{ establishment_id: string; organization_id: string; socio: string }[]>(
    'select e.id as establishment_id, e.organization_id, e.str_socioenvironmental_status as socio from control_unit cu join establishment e on e.id = cu.establishment_id where cu.id = ?',
    [unitId],
  );
  return { unitId, establishmentId: row!.establishment_id, organizationId: row!.organization_id, socio: row!.socio };
}
