import type { Source } from '../db/reader.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';

/** A request names its unit (public fields) and its requester. */
export const inviteRequestSource: Source = {
  table: 'invite_request',
  alias: 'r',
  relations: {
    control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'control_unit_id' },
    user: { loader: 'userById', target: () => userSource, fk: 'user_id' },
  },
};
