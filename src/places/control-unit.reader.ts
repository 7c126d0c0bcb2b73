import { groupedBy, read, type Include, type Pick, type Related, type Source, type ToOne } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import type { ControlUnit } from './control-unit.entity.js';
import { userSource } from '../identity/user.reader.js';
import { NOTHING } from '../shared/scoped-query.js';
import { controlUnitPolicy, establishmentPolicy } from './establishment.policy.js';
import { establishmentSource } from './establishment.reader.js';

/** A unit's responsible user with e-mail and document, keyed by the unit. */
const responsibleUser: ToOne = { loader: 'visibleResponsibleUserOfUnit', target: () => userSource, fk: 'responsible_user_id', keyedByParent: true };

export const controlUnitSource: Source = {
  table: 'control_unit',
  columnNames: ['id', 'establishment_id', 'str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'responsible_user_id', 'ts_created_at', 'ts_updated_at'],
  alias: 'cu',
  relations: {
    /** A unit is reached from records of other organizations: its establishment only when the caller sees it. */
    establishment: { loader: 'visibleEstablishmentById', target: () => establishmentSource, fk: 'establishment_id', where: (actor) => (actor ? establishmentPolicy.scope(actor) : NOTHING) },
    /** Its establishment's name is public: a record names where it happened. */
    any_establishment: { loader: 'unrestrictedEstablishmentById', target: () => establishmentSource, fk: 'establishment_id' },
    /** E-mail and document only when the caller sees the unit. */
    responsible_user: {
      ...responsibleUser,
      where: (actor, parent) => {
        const scope = actor ? controlUnitPolicy.scope(actor) : NOTHING;
        return { sql: `exists (select 1 from control_unit cu where cu.id = ${parent}.id and ${scope.sql})`, params: scope.params };
      },
    },
    /** The responsible user's name is public. */
    any_responsible_user: { loader: 'userById', target: () => userSource, fk: 'responsible_user_id' },
  },
};

/** Units read under the unit policy: each one is seen, so its responsible user needs no second look at the policy. */
const seenControlUnitSource: Source = { ...controlUnitSource, relations: { ...controlUnitSource.relations, responsible_user: responsibleUser } };

/**
 * The units of each establishment, by code, with the relations the query selects: every unit
 * (unrestricted views: a unit's read-only data is public) or only those the caller sees (an
 * invitee sees its own unit, not its siblings).
 */
export async function unitsOfEstablishments(
  db: Db,
  actor: Actor | null,
  establishmentIds: readonly string[],
  visibleOnly: boolean,
  include: Include,
  pick?: Pick,
): Promise<{ groups: ControlUnit[][]; related: Related[] }> {
  const scope = visibleOnly ? (actor ? controlUnitPolicy.scope(actor) : NOTHING) : null;
  const where = { sql: `cu.establishment_id = any(?)${scope ? ` and ${scope.sql}` : ''}`, params: [establishmentIds, ...(scope?.params ?? [])] };
  const { rows, related } = await read<ControlUnit>(db, actor, scope ? seenControlUnitSource : controlUnitSource, { where, orderBy: (a) => `${a}.str_code, ${a}.id`, include, pick });
  return { groups: groupedBy(establishmentIds, rows, (u) => u.establishment_id), related };
}
