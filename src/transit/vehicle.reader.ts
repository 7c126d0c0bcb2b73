import type { Source } from '../db/reader.js';
import { userSource } from '../identity/user.reader.js';

export const vehicleSource: Source = {
  table: 'vehicle',
  alias: 'v',
  relations: {
    owner: { loader: 'userById', target: () => userSource, fk: 'owner_id' },
  },
};
