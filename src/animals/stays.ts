import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound.js';

/**
 * An animal's stays (DOMAIN.md, "Tracing"): at a unit from when it was identified or received
 * there to when it left or ended. Every write that moves or ends animals keeps them here, set-based,
 * in the writer's transaction; the socio-environmental status and the trace read them.
 */

/**
 * Opens a stay at each animal's current unit, from `at` (a time, or the animal's own time in
 * `column`), or from the animal's time in `times` (a read's ts_ingress_at) when it has one.
 */
export async function openStays(tx: EntityManager, animalIds: string[], at: { time: Date } | { column: string }, refs: { animals_ingress_id?: string } = {}, times: Map<string, Date> = new Map()): Promise<void> {
  if (!animalIds.length) return;
  const from = 'time' in at ? '?::timestamptz' : `coalesce(a.${at.column}, now())`;
  await executeBound(
    tx,
    `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, animals_ingress_id, holder_organization_id, holder_federative_unit)
     select a.id, a.last_control_unit_id, cu.establishment_id, coalesce(t.at, ${from}), ?, a.holder_organization_id, a.holder_federative_unit
       from animal a join control_unit cu on cu.id = a.last_control_unit_id
       left join jsonb_to_recordset(?::jsonb) as t(id uuid, at timestamptz) on t.id = a.id
      where a.id = any(?::uuid[])`,
    [...('time' in at ? [at.time] : []), refs.animals_ingress_id ?? null, JSON.stringify([...times].map(([id, t]) => ({ id, at: t }))), animalIds],
  );
}

/**
 * Closes the open stay of each animal at `at` (never before the stay began: a device's clock may
 * be behind the server's). `times` gives a time per animal (a read's ts_egress_at); `at` the rest.
 */
export async function closeStays(tx: EntityManager, animalIds: string[], at: Date, refs: { animals_egress_id?: string } = {}, times: Map<string, Date> = new Map()): Promise<void> {
  if (!animalIds.length) return;
  await executeBound(
    tx,
    `update animal_stay s set ts_to = greatest(s.ts_from, coalesce(x.at, ?::timestamptz)), animals_egress_id = ?
       from (select a.id, t.at from unnest(?::uuid[]) as a(id) left join jsonb_to_recordset(?::jsonb) as t(id uuid, at timestamptz) on t.id = a.id) x
      where s.animal_id = x.id and s.ts_to is null`,
    [at, refs.animals_egress_id ?? null, animalIds, JSON.stringify([...times].map(([id, t]) => ({ id, at: t })))],
  );
}

/** Reopens the stays an egress closed (the egress was cancelled: the animals never left). */
export async function reopenStaysOf(tx: EntityManager, egressId: string, animalIds: string[]): Promise<void> {
  if (!animalIds.length) return;
  await executeBound(tx, 'update animal_stay set ts_to = null, animals_egress_id = null where animals_egress_id = ? and animal_id = any(?::uuid[])', [egressId, animalIds]);
}
