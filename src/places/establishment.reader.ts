import type { Source } from '../db/reader.js';
import { userSource } from '../identity/user.reader.js';
import { countySource } from './county.reader.js';

export const establishmentSource: Source = {
  table: 'establishment',
  alias: 'e',
  relations: {
    county: { loader: 'countyById', target: () => countySource, fk: 'county_id' },
    responsible_user: { loader: 'userById', target: () => userSource, fk: 'responsible_user_id' },
  },
};
