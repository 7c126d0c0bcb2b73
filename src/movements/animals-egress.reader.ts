import { groupedBy, type Source, type ToOne } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import type { SearchSpec } from '../shared/search.js';
import { gtaSource } from './gta.reader.js';

const unitAt = (fk: string): ToOne => ({ loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk });

/** An egress names its units (either may be another organization's: public fields), its GTA and its operator. */
export const animalsEgressSource: Source = {
  table: 'animals_egress',
  alias: 'ae',
  relations: {
    from_control_unit: unitAt('from_control_unit_id'),
    to_control_unit: unitAt('to_control_unit_id'),
    gta: { loader: 'gtaById', target: () => gtaSource, fk: 'gta_id' },
    operator_user: { loader: 'userById', target: () => userSource, fk: 'operator_user_id' },
  },
};

export const ANIMALS_EGRESS_SEARCH: SearchSpec = {
  alias: 'ae',
  exact: { id: 'uuid', str_status: 'text', from_control_unit_id: 'uuid', to_control_unit_id: 'uuid', gta_id: 'uuid', operator_user_id: 'uuid', str_license_plate: 'text', str_socioenvironmental_status: 'text', bl_move_with_tag_reading: 'boolean' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_last_read', 'ts_finished_at', 'ts_unsafe_client_created_at'],
  query: ['str_label', 'str_description', 'str_license_plate'],
  computed: {
    /** Egresses that carry (or read) this animal. */
    animal_id: { kind: 'uuid', sql: 'exists (select 1 from animals_egress_tag qr where qr.animals_egress_id = ae.id and qr.animal_id = ?)' },
  },
};

/** A read as a movement lists it. */
export interface MovementReadRow {
  id: string;
  animal_id: string | null;
  tag_id: string | null;
  str_tag_code: string | null;
  str_rod_code: string | null;
  ts_read_at: Date | null;
  num_longitude: number | null;
  num_latitude: number | null;
  ts_created_at: Date;
}

/** The reads of each movement, in read order: one statement per request. */
export async function readsOf(db: Db, table: 'animals_egress_tag' | 'animals_ingress_tag', ids: readonly string[]): Promise<MovementReadRow[][]> {
  const parent = table === 'animals_egress_tag' ? 'animals_egress_id' : 'animals_ingress_id';
  const at = table === 'animals_egress_tag' ? 'ts_egress_at' : 'ts_ingress_at';
  const rows = await db.rows<MovementReadRow & { parent_id: string }>({
    sql: `select r.${parent} as parent_id, r.id, r.animal_id, r.tag_id, r.str_tag_code, r.str_rod_code, r.${at} as ts_read_at, r.num_longitude, r.num_latitude, r.ts_created_at
            from ${table} r where r.${parent} = any(?) order by coalesce(r.${at}, r.ts_created_at), r.ts_created_at, r.id`,
    params: [ids],
  });
  return groupedBy(ids, rows, (r) => r.parent_id);
}
