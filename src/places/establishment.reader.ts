import type { Source } from '../db/reader.js';
import { userSource } from '../identity/user.reader.js';
import { countySource } from './county.reader.js';

export const establishmentSource: Source = {
  table: 'establishment',
  columnNames: ['id', 'organization_id', 'county_id', 'responsible_user_id', 'str_name', 'str_type', 'str_status', 'str_socioenvironmental_status', 'bl_move_with_tag_reading', 'lst_invite_movimentation_types', 'num_longitude', 'num_latitude', 'dec_area', 'dec_exploration_area', 'str_address', 'str_car', 'str_code', 'str_company_code', 'str_document', 'str_email', 'str_neighborhood', 'str_zip_code', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at'],
  alias: 'e',
  relations: {
    county: { loader: 'countyById', target: () => countySource, fk: 'county_id' },
    responsible_user: { loader: 'userById', target: () => userSource, fk: 'responsible_user_id' },
  },
};
