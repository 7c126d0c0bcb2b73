import type { Source } from '../db/reader.js';
import type { Db, Query } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { userSource } from '../identity/user.reader.js';
import type { Gta } from '../movements/gta.entity.js';
import { gtaPolicy } from '../movements/gta.policy.js';
import { gtaSource } from '../movements/gta.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import { NOTHING } from '../shared/scoped-query.js';

/**
 * SQL condition on a GTA (alias "g") reached from the invite aliased `invite`: shown when the
 * caller sees that GTA or the invite's organization is its origin's or destination's (the invite
 * shares that GTA's movement with the invitee). A GTA neither sees (gta_id is not checked on
 * write) stays hidden.
 */
function gtaShownThrough(actor: Actor | null, invite: string): Query {
  const scope = actor ? gtaPolicy.scope(actor) : NOTHING;
  return { sql: `(${scope.sql} or ${gtaPolicy.isParty(`${invite}.organization_id`)})`, params: scope.params };
}

/** An invite names its unit (public fields) and its invitee; its GTA is keyed by the invite (see gtaShownThrough). */
export const inviteSource: Source = {
  table: 'invite',
  alias: 'i',
  relations: {
    control_unit: { loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk: 'control_unit_id' },
    user: { loader: 'userById', target: () => userSource, fk: 'user_id' },
    gta: { loader: 'gtaOfInvite', target: () => gtaSource, fk: 'gta_id', keyedByParent: true, where: gtaShownThrough },
  },
};

/** Keyed by invite (one the caller already sees): the GTA it is for, as the `gta` relation shows it. One statement for a loader's batch. */
export async function gtasOfInvites(db: Db, actor: Actor | null, inviteIds: readonly string[]): Promise<(Gta | null)[]> {
  const shown = gtaShownThrough(actor, 'i');
  const rows = await db.rows<Gta & { invite_id: string }>({
    sql: `select i.id as invite_id, g.* from invite i join gta g on g.id = i.gta_id where i.id = any(?) and ${shown.sql}`,
    params: [inviteIds, ...shown.params],
  });
  const byInvite = new Map(rows.map(({ invite_id, ...gta }) => [invite_id, gta]));
  return inviteIds.map((id) => byInvite.get(id) ?? null);
}
