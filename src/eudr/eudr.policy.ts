import type { Actor } from '../identity/actor.js';
import type { Scope } from '../shared/scoped-query.js';

/**
 * Who may ask for a lot's due-diligence geolocation (issue 22): the organization holding the lot
 * now (each animal's current establishment, alias `he`, is one of its own: its slaughterhouse or
 * feedlot), an AUTHORITY of that establishment's federative unit, an administrator. The answer
 * names other organizations' establishments (the indirect suppliers), which is its point.
 */
export const eudrPolicy = {
  /** SQL condition on alias `he`: the establishment where a lot's animal is now. */
  holderScope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    const parts: string[] = [];
    const params: unknown[] = [];
    if (actor.organizationId) {
      parts.push('he.organization_id = ?');
      params.push(actor.organizationId);
    }
    if (actor.userType === 'AUTHORITY' && actor.countyId) {
      // The establishment's state is on its row (Migration0057); the caller's is bound when the actor carries it.
      if (actor.federativeUnit !== undefined) {
        parts.push('he.holder_federative_unit = ?::text');
        params.push(actor.federativeUnit);
      } else {
        parts.push('he.holder_federative_unit = (select ac.str_federative_unit from county ac where ac.id = ?)');
        params.push(actor.countyId);
      }
    }
    return parts.length ? { sql: `(${parts.join(' or ')})`, params } : { sql: 'false', params: [] };
  },
};
