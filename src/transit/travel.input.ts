import { geoPointProblem } from '../places/establishment.rules.js';
import { isUuid } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { CLOCK_SKEW_MS } from './travel.rules.js';

export interface GeoInput {
  type?: string | null;
  coordinates?: number[] | null;
}

/** Travel create body: interface.md's Travel fields a client sets, with the ids of its vehicle, transporter and units. */
export interface TravelInput {
  id?: string | null;
  vehicle_id?: string | null;
  transporter_user_id?: string | null;
  str_consignee_name?: string | null;
  from_control_unit_id?: string | null;
  to_control_unit_id?: string | null;
  ts_unsafe_client_created_at?: Date | null;
}

export interface TravelStartInput {
  ts_start_time?: Date | null;
  geo_coordinates_from?: GeoInput | null;
}

export interface TravelEmbarkInput {
  id?: string | null;
  animals_egress_id?: string | null;
  ts_embarked_at?: Date | null;
  geo_location?: GeoInput | null;
}

export interface TravelStopInput {
  id?: string | null;
  geo_location?: GeoInput | null;
  ts_arrival?: Date | null;
  ts_departure?: Date | null;
}

export interface TravelFinishInput {
  ts_end_time?: Date | null;
  geo_coordinates_to?: GeoInput | null;
}

/** A checked position: [longitude, latitude]. */
export type Position = [number, number];

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

export function checkTravelInput(input: TravelInput): void {
  const check = new Checker();
  for (const f of ['vehicle_id', 'transporter_user_id', 'from_control_unit_id', 'to_control_unit_id'] as const) {
    if (!given(input[f])) check.add(f, 'is required');
    else check.when(!isUuid(input[f]), f, 'must be a uuid');
  }
  if (given(input.id)) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  if (isUuid(input.from_control_unit_id) && input.from_control_unit_id.toLowerCase() === input.to_control_unit_id?.toLowerCase()) check.add('to_control_unit_id', 'must differ from from_control_unit_id');
  check.throwIfAny();
}

/** A position the body must carry (null when absent and not required); problems go to `check`. */
export function position(check: Checker, field: string, geo: GeoInput | null | undefined, required: boolean): Position | null {
  if (geo === undefined || geo === null) {
    if (required) check.add(field, 'is required');
    return null;
  }
  const problem = geoPointProblem(geo);
  if (problem) {
    check.add(field, problem);
    return null;
  }
  return [geo.coordinates![0]!, geo.coordinates![1]!];
}

/** A device time: `now` when absent (unless required), never ahead of the server's clock by more than the skew. */
export function deviceTime(check: Checker, field: string, value: Date | null | undefined, now: Date, required = false): Date | null {
  if (value === undefined || value === null) {
    if (required) check.add(field, 'is required');
    return required ? null : now;
  }
  if (value.getTime() > now.getTime() + CLOCK_SKEW_MS) check.add(field, 'must not be in the future');
  return value;
}

/** A client id of a nested item (embark, stop), canonical; problems go to `check`. */
export function clientId(check: Checker, value: string | null | undefined): string | null {
  if (!given(value)) return null;
  if (!isUuid(value)) {
    check.add('id', 'must be a uuid');
    return null;
  }
  return value.toLowerCase();
}
