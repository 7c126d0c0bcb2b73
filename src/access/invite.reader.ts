import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import type { Gta } from '../movements/gta.entity.js';
import { gtaPolicy } from '../movements/gta.policy.js';
import { NOTHING } from '../shared/scoped-query.js';

/**
 * Keyed by invite (one the caller already sees): the GTA it is for, when the caller sees that GTA
 * or the invite's organization is its origin's or destination's: the invite shares that GTA's
 * movement with the invitee. A GTA neither sees (gta_id is not checked on write) stays hidden.
 */
export async function gtasOfInvites(db: Db, actor: Actor | null, inviteIds: readonly string[]): Promise<(Gta | null)[]> {
  const scope = actor ? gtaPolicy.scope(actor) : NOTHING;
  const rows = await db.rows<Gta & { invite_id: string }>({
    sql: `select i.id as invite_id, g.* from invite i join gta g on g.id = i.gta_id where i.id = any(?) and (${scope.sql} or ${gtaPolicy.isParty('i.organization_id')})`,
    params: [inviteIds, ...scope.params],
  });
  const byInvite = new Map(rows.map(({ invite_id, ...gta }) => [invite_id, gta]));
  return inviteIds.map((id) => byInvite.get(id) ?? null);
}
