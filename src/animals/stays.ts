import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound.js';

/**
 * An animal's stays (DOMAIN.md, "Tracing"): at a unit from when it was identified or received
 * there to when it left or ended. Every write that moves or ends animals keeps them here, set-based,
 * in the writer's transaction; the socio-environmental status and the trace read them.
 */

/** The stays' partition key (docs/decisions/partitioning.md): when a stay ended, an open one at infinity. */
export const stayKey = (stay: string) => `coalesce(${stay}.ts_to, 'infinity'::timestamptz)`;
/** An animal's path from its last stay back, in `animal_stay_path`'s order (Migration0067TraceStayKey). */
const LAST_FIRST = `${stayKey('p')} desc, p.ts_from desc, p.id desc`;
/**
 * An animal's stays never nest (docs/decisions/movements.md, "Stays in path order"): a stay
 * begins no earlier than the animal's previous stay began and ends no earlier than it ended, so
 * ordering a path by end (the partition key, `animal_stay_path`) is ordering it by start, as the
 * trace reads it. A device's clock far behind would otherwise stamp a stay inside the previous
 * one; each bound is one descent of `animal_stay_path` (the animal's last stay in path order).
 */
export const previousStayBegan = (animal: string) => `(select p.ts_from from animal_stay p where p.animal_id = ${animal} order by ${LAST_FIRST} limit 1)`;
const previousStayEnded = (stay: string) =>
  `(select p.ts_to from animal_stay p where p.animal_id = ${stay}.animal_id and ${stayKey('p')} < 'infinity'::timestamptz order by ${LAST_FIRST} limit 1)`;

/**
 * Opens a stay at each animal's current unit, from `at` (a time, or the animal's own time in
 * `column`), or from the animal's time in `times` (a read's ts_ingress_at) when it has one; never
 * before the animal's previous stay began.
 */
export async function openStays(tx: EntityManager, animalIds: string[], at: { time: Date } | { column: string }, refs: { animals_ingress_id?: string } = {}, times: Map<string, Date> = new Map()): Promise<void> {
  if (!animalIds.length) return;
  const from = 'time' in at ? '?::timestamptz' : `coalesce(a.${at.column}, now())`;
  await executeBound(
    tx,
    `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, animals_ingress_id, holder_organization_id, holder_federative_unit)
     select a.id, a.last_control_unit_id, cu.establishment_id, greatest(coalesce(t.at, ${from}), ${previousStayBegan('a.id')}), ?, a.holder_organization_id, a.holder_federative_unit
       from animal a join control_unit cu on cu.id = a.last_control_unit_id
       left join jsonb_to_recordset(?::jsonb) as t(id uuid, at timestamptz) on t.id = a.id
      where a.id = any(?::uuid[])`,
    [...('time' in at ? [at.time] : []), refs.animals_ingress_id ?? null, JSON.stringify([...times].map(([id, t]) => ({ id, at: t }))), animalIds],
  );
}

/**
 * Closes the open stay of each animal at `at` (never before the stay began, nor before the
 * animal's previous stay ended: a device's clock may be behind the server's). `times` gives a time
 * per animal (a read's ts_egress_at); `at` the rest.
 * The partition key named beside `ts_to is null` plans the update over the open stays' partition
 * alone (Migration0068); the row then moves to the partition of its end.
 */
export async function closeStays(tx: EntityManager, animalIds: string[], at: Date, refs: { animals_egress_id?: string } = {}, times: Map<string, Date> = new Map()): Promise<void> {
  if (!animalIds.length) return;
  await executeBound(
    tx,
    `update animal_stay s set ts_to = greatest(s.ts_from, coalesce(x.at, ?::timestamptz), ${previousStayEnded('s')}), animals_egress_id = ?
       from (select a.id, t.at from unnest(?::uuid[]) as a(id) left join jsonb_to_recordset(?::jsonb) as t(id uuid, at timestamptz) on t.id = a.id) x
      where s.animal_id = x.id and s.ts_to is null and ${stayKey('s')} = 'infinity'`,
    [at, refs.animals_egress_id ?? null, animalIds, JSON.stringify([...times].map(([id, t]) => ({ id, at: t })))],
  );
}

/** Reopens the stays an egress closed (the egress was cancelled: the animals never left). */
export async function reopenStaysOf(tx: EntityManager, egressId: string, animalIds: string[]): Promise<void> {
  if (!animalIds.length) return;
  await executeBound(tx, 'update animal_stay set ts_to = null, animals_egress_id = null where animals_egress_id = ? and animal_id = any(?::uuid[])', [egressId, animalIds]);
}
