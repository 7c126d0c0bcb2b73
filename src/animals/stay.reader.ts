import { groupedBy } from '../db/reader.js';
import type { Db } from '../db/sql.js';

/** Where an animal was, from when to when, and the movements that brought it and took it away. */
export interface StayRow {
  animal_id: string;
  control_unit_id: string;
  establishment_id: string;
  ts_from: Date;
  ts_to: Date | null;
  animals_ingress_id: string | null;
  animals_egress_id: string | null;
  gta_id: string | null;
}

/** The stays of each animal, oldest first: one statement for any number of animals (the caller already sees the animals). */
export async function staysOfAnimals(db: Db, ids: readonly string[]): Promise<StayRow[][]> {
  const rows = await db.rows<StayRow>({
    sql: `select s.animal_id, s.control_unit_id, s.establishment_id, s.ts_from, s.ts_to, s.animals_ingress_id, s.animals_egress_id, e.gta_id
            from animal_stay s left join animals_egress e on e.id = s.animals_egress_id
           where s.animal_id = any(?) order by s.animal_id, s.ts_from, s.id`,
    params: [ids],
  });
  return groupedBy(ids, rows, (r) => r.animal_id);
}
