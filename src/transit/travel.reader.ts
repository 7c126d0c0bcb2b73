import { groupedBy, type Source, type ToOne } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import type { SearchSpec } from '../shared/search.js';
import { vehicleSource } from './vehicle.reader.js';

const unitAt = (fk: string): ToOne => ({ loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk });

/**
 * A travel names its units (either may be another organization's: public fields), its vehicle and
 * its transporter, read past their own policies: whoever sees a trip sees the truck and the person
 * that carry it.
 */
export const travelSource: Source = {
  table: 'travel',
  alias: 't',
  relations: {
    from_control_unit: unitAt('from_control_unit_id'),
    to_control_unit: unitAt('to_control_unit_id'),
    vehicle: { loader: 'vehicleById', target: () => vehicleSource, fk: 'vehicle_id' },
    transporter: { loader: 'userById', target: () => userSource, fk: 'transporter_user_id' },
  },
};

export const TRAVEL_SEARCH: SearchSpec = {
  alias: 't',
  exact: { id: 'uuid', str_status: 'text', vehicle_id: 'uuid', transporter_user_id: 'uuid', from_control_unit_id: 'uuid', to_control_unit_id: 'uuid', str_consignee_name: 'text', int_duration: 'integer' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_start_time', 'ts_end_time', 'ts_unsafe_client_created_at'],
  query: ['str_consignee_name'],
  computed: {
    /** Travels that carry (or carried) this egress. */
    animals_egress_id: { kind: 'uuid', sql: 'exists (select 1 from travel_embark qe where qe.travel_id = t.id and qe.animals_egress_id = ?)' },
  },
};

/** An egress loaded on a travel, when and where. */
export interface TravelEmbarkRow {
  id: string;
  travel_id: string;
  animals_egress_id: string;
  ts_embarked_at: Date;
  num_longitude: number | null;
  num_latitude: number | null;
  /** Set when the travel was cancelled: the egress may ride another. */
  ts_released_at: Date | null;
  ts_created_at: Date;
}

/** A stop on the way. */
export interface TravelStopRow {
  id: string;
  travel_id: string;
  num_longitude: number | null;
  num_latitude: number | null;
  ts_arrival: Date;
  ts_departure: Date | null;
  ts_created_at: Date;
}

/** The embarks of each travel, in the order they happened: one statement per request. */
export async function embarksOf(db: Db, travelIds: readonly string[]): Promise<TravelEmbarkRow[][]> {
  const rows = await db.rows<TravelEmbarkRow>({
    sql: `select te.id, te.travel_id, te.animals_egress_id, te.ts_embarked_at, te.num_embark_longitude as num_longitude, te.num_embark_latitude as num_latitude, te.ts_released_at, te.ts_created_at
            from travel_embark te where te.travel_id = any(?) order by te.ts_embarked_at, te.ts_created_at, te.id`,
    params: [travelIds],
  });
  return groupedBy(travelIds, rows, (r) => r.travel_id);
}

/** The stops of each travel, in the order they happened: one statement per request. */
export async function stopsOf(db: Db, travelIds: readonly string[]): Promise<TravelStopRow[][]> {
  const rows = await db.rows<TravelStopRow>({
    sql: `select ts.id, ts.travel_id, ts.num_stop_longitude as num_longitude, ts.num_stop_latitude as num_latitude, ts.ts_arrival, ts.ts_departure, ts.ts_created_at
            from travel_stop ts where ts.travel_id = any(?) order by ts.ts_arrival, ts.ts_created_at, ts.id`,
    params: [travelIds],
  });
  return groupedBy(travelIds, rows, (r) => r.travel_id);
}
