import type { Context } from '../context.js';
import { mapLoaded, type Loaded } from '../loaders.js';
import { maskedUser } from '../../src/identity/user.masks.js';
import type { UserRow } from '../../src/identity/user.reader.js';

/**
 * A user a record names (a movement's operator), as the reader may see it: in full for the user
 * itself, an administrator, or a member of one of the user's organizations; masked for a reader of
 * another organization (the receiving end of a movement), the record's shape whole.
 */
export function userAsSeen(ctx: Context, userId: string | null): Loaded<UserRow | null> {
  if (!userId) return null;
  return mapLoaded(ctx.loaders.userById.load(userId), (user) => {
    const actor = ctx.actor;
    if (!user || (actor && (actor.isAdmin || actor.userId === user.id))) return user;
    return mapLoaded(ctx.loaders.organizationsOfUser.load(user.id), (orgs) => (actor?.organizationId && orgs.some((o) => o.id === actor.organizationId) ? user : maskedUser(user)));
  });
}
