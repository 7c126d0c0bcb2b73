import { groupedBy, read, type Include, type Related, type Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import type { Scope } from '../shared/scoped-query.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import type { Animal } from './animal.entity.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import { tagSource } from '../tags/tag.reader.js';

export const animalSource: Source = {
  table: 'animal',
  columnNames: ['id', 'str_species', 'str_gender', 'str_status', 'str_socioenvironmental_status', 'current_tag_id', 'last_control_unit_id', 'tags_identification_id', 'str_name', 'str_description', 'str_rod_code', 'str_extra_tag', 'ts_born_date', 'int_age_months_at_identification', 'int_weight_kilos_at_identification', 'ts_identified_at', 'num_longitude', 'num_latitude', 'ts_ended_at', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at'],
  alias: 'a',
  relations: {
    current_tag: { loader: 'tagById', target: () => tagSource, fk: 'current_tag_id' },
    last_control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'last_control_unit_id' },
  },
};

/** The animals that the caller sees now, where their last unit is seen. SQL on alias "a". */
export const animalScope = (actor: Actor): Scope => controlUnitPolicy.unitIn(actor, 'a.last_control_unit_id', 'ANIMALS', { holder: 'a' });

/** The animals of each identification that the caller sees now, oldest first, with the relations the query selects: one statement for any number of identifications. */
export async function animalsOfIdentifications(db: Db, actor: Actor, ids: readonly string[], include: Include): Promise<{ groups: Animal[][]; related: Related[] }> {
  const scope = animalScope(actor);
  const { rows, related } = await read<Animal>(db, actor, animalSource, {
    where: { sql: `a.tags_identification_id = any(?) and ${scope.sql}`, params: [ids, ...scope.params] },
    orderBy: (a) => `${a}.ts_created_at, ${a}.id`,
    include,
  });
  return { groups: groupedBy(ids, rows, (a) => a.tags_identification_id!), related };
}
