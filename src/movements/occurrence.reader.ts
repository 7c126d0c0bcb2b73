import { groupedBy, read, type Source, type ToOne } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Occurrence } from './occurrence.entity.js';
import type { Actor } from '../identity/actor.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import type { Scope } from '../shared/scoped-query.js';
import type { SearchSpec } from '../shared/search.js';

const unitAt = (fk: string): ToOne => ({ loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk });

/** An occurrence names the unit where it happened (its public fields, read past every policy). */
export const occurrenceSource: Source = { table: 'occurrence', alias: 'o', relations: { control_unit: unitAt('control_unit_id') } };

/** Occurrences are seen where their unit is seen: the unit's organization, an accepted invite, the UF for authorities, administrators. SQL on alias "o". */
export const occurrenceScope = (actor: Actor): Scope => controlUnitPolicy.unitIn(actor, 'o.control_unit_id', 'ALL', { holder: 'o' });

export const OCCURRENCE_SEARCH: SearchSpec = {
  alias: 'o',
  exact: {
    id: 'uuid',
    str_type: 'text',
    str_status: 'text',
    control_unit_id: 'uuid',
    animal_id: 'uuid',
    tag_id: 'uuid',
    animals_egress_id: 'uuid',
    animals_ingress_id: 'uuid',
    gta_id: 'uuid',
    travel_id: 'uuid',
    reporter_user_id: 'uuid',
    resolver_user_id: 'uuid',
  },
  ranges: ['ts_occurred_at', 'ts_resolved_at', 'ts_created_at', 'ts_updated_at', 'ts_unsafe_client_created_at'],
  query: ['str_description', 'str_resolution'],
  computed: {
    establishment_id: { kind: 'uuid', sql: 'o.control_unit_id in (select fcu.id from control_unit fcu where fcu.establishment_id = ?)' },
  },
};

/** The occurrences each ingress raised (or that name it), oldest first, that the caller sees: one statement for any number of ingresses. */
export async function occurrencesOfIngresses(db: Db, actor: Actor, ids: readonly string[]): Promise<Occurrence[][]> {
  const scope = occurrenceScope(actor);
  const { rows } = await read<Occurrence>(db, actor, occurrenceSource, {
    where: { sql: `o.animals_ingress_id = any(?) and ${scope.sql}`, params: [ids, ...scope.params] },
    orderBy: (a) => `${a}.ts_created_at, ${a}.id`,
  });
  return groupedBy(ids, rows, (o) => o.animals_ingress_id!);
}
