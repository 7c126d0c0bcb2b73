import type { Source } from '../db/reader.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import { establishmentSource } from '../places/establishment.reader.js';
import type { Scope } from '../shared/scoped-query.js';
import type { GtaStatus } from './gta.rules.js';

/** A GTA names where it moves between: its units and establishments read past every policy (their public fields). */
export const gtaSource: Source = {
  table: 'gta',
  alias: 'g',
  relations: {
    from_control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'from_control_unit_id' },
    to_control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'to_control_unit_id' },
    from_establishment: { loader: 'unrestrictedEstablishmentById', target: () => establishmentSource, fk: 'from_establishment_id' },
    to_establishment: { loader: 'unrestrictedEstablishmentById', target: () => establishmentSource, fk: 'to_establishment_id' },
    responsible_user: { loader: 'userById', target: () => userSource, fk: 'responsible_user_id' },
  },
};

/** SQL condition on alias "g": the GTAs that read as `status` (EXPIRED is an ISSUED GTA past ts_valid_until, and ISSUED excludes those). */
export function gtaStatusCondition(status: GtaStatus): Scope {
  if (status === 'EXPIRED') return { sql: "g.str_status = 'ISSUED' and g.ts_valid_until < now()", params: [] };
  if (status === 'ISSUED') return { sql: "g.str_status = 'ISSUED' and (g.ts_valid_until is null or g.ts_valid_until >= now())", params: [] };
  return { sql: 'g.str_status = ?', params: [status] };
}
