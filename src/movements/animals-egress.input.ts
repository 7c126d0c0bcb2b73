import { isUuid } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import type { ReadInput } from './animal-reads.js';

/** Animals Egress create body (interface.md's record fields a client sets, and its `tags`: Animals Egress Create Tags). */
export interface AnimalsEgressInput {
  id?: string | null;
  from_control_unit_id?: string | null;
  to_control_unit_id?: string | null;
  gta_id?: string | null;
  operator_user_id?: string | null;
  bl_move_with_tag_reading?: boolean | null;
  str_description?: string | null;
  str_label?: string | null;
  str_license_plate?: string | null;
  tags?: ReadInput[] | null;
  ts_unsafe_client_created_at?: Date | null;
}

/** What may change while the egress is OPEN (the GTA often arrives after the loading began). */
export type AnimalsEgressUpdate = Pick<AnimalsEgressInput, 'to_control_unit_id' | 'gta_id' | 'str_description' | 'str_label' | 'str_license_plate'>;

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/** The uuids of a body, every problem at once. */
export function checkEgressIds(input: AnimalsEgressInput): void {
  const check = new Checker();
  for (const f of ['id', 'to_control_unit_id', 'gta_id', 'operator_user_id'] as const) if (given(input[f])) check.when(!isUuid(input[f]), f, 'must be a uuid');
  if (given(input.to_control_unit_id) && input.to_control_unit_id?.toLowerCase() === input.from_control_unit_id?.toLowerCase()) check.add('to_control_unit_id', 'must differ from from_control_unit_id');
  check.throwIfAny();
}
