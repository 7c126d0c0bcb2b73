import { SET_HOLDER_OF_UNIT } from '../../src/places/unit-holder.js';
import type { TestApp } from './app.js';
import { stockAnimals } from './tags.js';

/** `n` ACTIVE animals at the unit (stockAnimals, with their open stays there), staying since `since` (set-up for occurrences and the socio-environmental status). */
export async function animalsStaying(app: TestApp, unitId: string, n: number, since = new Date(Date.now() - 86_400_000)) {
  const stock = await stockAnimals(app, unitId, n);
  await app.service.orm.em.fork().execute('update animal_stay set ts_from = ? where animal_id = any(array[?]::uuid[])', [since, stock.animalIds]);
  return stock;
}

/** The animals left their unit and arrived at `toUnitId` (what an egress and its ingress leave behind), straight to the database. */
export async function moveAnimals(app: TestApp, animalIds: string[], toUnitId: string, at = new Date(Date.now() - 3_600_000)): Promise<void> {
  await app.service.orm.em.fork().transactional(async (tx) => {
    await tx.execute('update animal_stay set ts_to = greatest(ts_from, ?) where animal_id = any(array[?]::uuid[]) and ts_to is null', [at, animalIds]);
    await tx.execute(`update animal set last_control_unit_id = ?, ${SET_HOLDER_OF_UNIT} where id = any(array[?]::uuid[])`, [toUnitId, toUnitId, animalIds]);
    await tx.execute(
      `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from)
       select a.id, a.last_control_unit_id, cu.establishment_id, ? from animal a join control_unit cu on cu.id = a.last_control_unit_id where a.id = any(array[?]::uuid[])`,
      [at, animalIds],
    );
  });
}

export interface StayRow {
  control_unit_id: string;
  ts_from: Date;
  ts_to: Date | null;
}

export async function staysOf(app: TestApp, animalId: string): Promise<StayRow[]> {
  return app.service.orm.em.fork().execute<StayRow[]>('select control_unit_id, ts_from, ts_to from animal_stay where animal_id = ? order by ts_from, id', [animalId]);
}
