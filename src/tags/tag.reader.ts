import type { Source } from '../db/reader.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';

export const tagsReservationSource: Source = {
  table: 'tags_reservation',
  alias: 'r',
  relations: {
    control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'control_unit_id' },
    operator_user: { loader: 'userById', target: () => userSource, fk: 'operator_user_id' },
  },
};

/** Tags as reads see them: `tag_with_place` (Migration0032) fills an applied tag's place in from its animal. */
export const tagSource: Source = {
  table: 'tag_with_place',
  columnNames: ['id', 'str_code', 'str_status', 'bl_external_tag', 'tags_box_id', 'last_control_unit_id', 'animal_id', 'tags_reservation_id', 'str_writeoff_reason', 'ts_writeoff_at', 'ts_created_at', 'ts_updated_at'],
  alias: 't',
  relations: {
    last_control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'last_control_unit_id' },
    tags_reservation: { loader: 'tagsReservationById', target: () => tagsReservationSource, fk: 'tags_reservation_id' },
  },
};

export const tagsBoxSource: Source = { table: 'tags_box', alias: 'tb', relations: {} };
