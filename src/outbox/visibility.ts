import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { animalScope } from '../animals/animal.reader.js';
import type { Actor } from '../identity/actor.js';
import type { Role } from '../identity/membership.entity.js';
import type { UserType } from '../identity/user.entity.js';
import { movementPolicy } from '../movements/movement.policy.js';
import { gtaPolicy } from '../movements/gta.policy.js';
import { occurrenceScope } from '../movements/occurrence.reader.js';
import { establishmentPolicy } from '../places/establishment.policy.js';
import { travelPolicy } from '../transit/travel.policy.js';
import type { Scope } from '../shared/scoped-query.js';

/** The records events go out for, each with the table and the policy its reads use: a subscriber or an endpoint never receives what `GET` would answer 404 for. */
export const OUTGOING: Record<string, { table: string; scope: (actor: Actor) => Scope }> = {
  AnimalsEgress: { table: 'animals_egress ae', scope: movementPolicy.egressScope },
  AnimalsIngress: { table: 'animals_ingress ai', scope: movementPolicy.ingressScope },
  Gta: { table: 'gta g', scope: gtaPolicy.scope },
  Occurrence: { table: 'occurrence o', scope: occurrenceScope },
  Animal: { table: 'animal a', scope: animalScope },
  Establishment: { table: 'establishment e', scope: establishmentPolicy.scope },
  Travel: { table: 'travel t', scope: travelPolicy.scope },
};

export const OUTGOING_TYPES = Object.keys(OUTGOING);

/** Of `ids` (records of one type), those the actor may read now; none for a type that is not sent out. */
export async function visibleIds(em: EntityManager, actor: Actor, recordType: string, ids: string[]): Promise<Set<string>> {
  const out = OUTGOING[recordType];
  if (!out || !ids.length) return new Set();
  const alias = out.table.split(' ')[1]!;
  const scope = out.scope(actor);
  const rows = await executeBound<{ id: string }>(em, `select ${alias}.id from ${out.table} where ${alias}.id = any(?::uuid[]) and ${scope.sql}`, [ids, ...scope.params]);
  return new Set(rows.map((r) => r.id));
}

/**
 * The actor a user is now, in an organization (an endpoint's owner, read at each delivery): its
 * current role there, none when it left; null when the user is gone.
 */
export async function actorNow(em: EntityManager, userId: string, organizationId: string | null, sessionId = ''): Promise<Actor | null> {
  const rows = await executeBound<{ bl_admin: boolean; str_type: UserType; county_id: string | null; str_role: Role | null }>(em, 
    `select u.bl_admin, u.str_type, u.county_id, m.str_role from "user" u left join membership m on m.user_id = u.id and m.organization_id = ?::uuid where u.id = ?`,
    [organizationId, userId],
  );
  const row = rows[0];
  if (!row) return null;
  const org = organizationId && row.str_role ? organizationId : null;
  return { userId, isAdmin: row.bl_admin, userType: row.str_type, countyId: row.county_id, organizationId: org, role: org ? row.str_role : null, sessionId, jti: '', tokenExpiresAt: 0, now: new Date() };
}
