import { groupedBy, type Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import type { SearchSpec } from '../shared/search.js';

/** An ingress names its unit and its operator; its GTAs and reads are lists. */
export const animalsIngressSource: Source = {
  table: 'animals_ingress',
  alias: 'ai',
  relations: {
    to_control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'to_control_unit_id' },
    operator_user: { loader: 'userById', target: () => userSource, fk: 'operator_user_id' },
  },
};

export const ANIMALS_INGRESS_SEARCH: SearchSpec = {
  alias: 'ai',
  exact: { id: 'uuid', str_status: 'text', to_control_unit_id: 'uuid', operator_user_id: 'uuid', str_socioenvironmental_status: 'text', bl_move_with_tag_reading: 'boolean' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_started_at', 'ts_first_read', 'ts_finished_at', 'ts_unsafe_client_created_at'],
  query: ['str_label', 'str_description'],
  computed: {
    /** Ingresses under this GTA. */
    gta_id: { kind: 'uuid', sql: 'exists (select 1 from animals_ingress_gta qg where qg.animals_ingress_id = ai.id and qg.gta_id = ?)' },
    /** Ingresses that read this animal. */
    animal_id: { kind: 'uuid', sql: 'exists (select 1 from animals_ingress_tag qr where qr.animals_ingress_id = ai.id and qr.animal_id = ?)' },
  },
};

/** A GTA of an ingress (Animals Ingress Create Gtas, as stored). */
export interface IngressGtaRow {
  id: string;
  gta_id: string;
  str_license_plate: string | null;
  str_code: string;
  str_series: string | null;
  str_federative_unit: string;
  str_external_id: string | null;
}

/** The GTAs of each ingress: one statement per request. */
export async function gtasOfIngresses(db: Db, ids: readonly string[]): Promise<IngressGtaRow[][]> {
  const rows = await db.rows<IngressGtaRow & { animals_ingress_id: string }>({
    sql: `select ig.animals_ingress_id, ig.id, ig.gta_id, ig.str_license_plate, g.str_code, g.str_series, g.str_federative_unit, g.str_external_id
            from animals_ingress_gta ig join gta g on g.id = ig.gta_id where ig.animals_ingress_id = any(?) order by ig.ts_created_at, ig.id`,
    params: [ids],
  });
  return groupedBy(ids, rows, (r) => r.animals_ingress_id);
}
