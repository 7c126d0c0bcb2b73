import type { Actor } from '../identity/actor.js';
import type { Scope } from '../shared/scoped-query.js';

/** Counties are public reference data: any signed-in user reads all of them; only the import writes. */
export const countyPolicy = {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- every policy takes the actor; this one needs only that there is one
  scope(_actor: Actor): Scope {
    return { sql: 'true', params: [] };
  },
};
