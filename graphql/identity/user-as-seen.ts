import type { Context } from '../context.js';
import { mapLoaded, type Loaded } from '../loaders.js';
import { userPolicy } from '../../src/identity/user.policy.js';

/** Rows a read already knows the caller sees whole (its own organization's members, read by its owner): no statement to ask. */
const knownWhole = new WeakSet<object>();

/**
 * Marks the rows of a read whose scope holds them to the caller's active organization (or to
 * `organizationId`, a members page): whole when the caller manages it (user.policy's `seesWhole`).
 */
export function inOrganization<T extends { id: string }>(ctx: Context, rows: T[], organizationId = ctx.actor?.organizationId ?? null): T[] {
  if (!organizationId) return rows;
  for (const row of rows) if (userPolicy.seesWhole(ctx.actor, row.id, [organizationId])) knownWhole.add(row);
  return rows;
}

/** A user row the caller sees whole whatever it is (the user of the token pair it just got). */
export function shownWhole<T extends object>(row: T): T {
  knownWhole.add(row);
  return row;
}

/** Whether the caller sees this person's whole record, or only `id`, `str_name` and `str_type`. */
export function seesWhole(ctx: Context, user: { id: string }): Loaded<boolean> {
  if (knownWhole.has(user)) return true;
  if (!userPolicy.needsOrganizations(ctx.actor, user.id)) return userPolicy.seesWhole(ctx.actor, user.id, null);
  return mapLoaded(ctx.loaders.organizationsOfUser.load(user.id), (orgs) =>
    userPolicy.seesWhole(
      ctx.actor,
      user.id,
      orgs.map((o) => o.id),
    ),
  );
}

/** A person's value as the caller may see it: null outside the person's organizations. */
export function personal<T>(ctx: Context, user: { id: string }, value: T): Loaded<T | null> {
  return mapLoaded(seesWhole(ctx, user), (whole) => (whole ? value : null));
}
