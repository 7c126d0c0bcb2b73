import type { Role } from './membership.entity.js';
import type { UserType } from './user.entity.js';

/** Who is calling: resolved once per request from the bearer token. */
export interface Actor {
  userId: string;
  isAdmin: boolean;
  userType: UserType;
  countyId: string | null;
  /**
   * The federative unit of `countyId`, read with the session (issue 23): an authority's scope is
   * then an equality with a bound value the plans can use. Absent where an actor is built
   * elsewhere (the policies then look it up in the statement).
   */
  federativeUnit?: string | null;
  /** The active organization (token claim `org`), when the caller is still its member. */
  organizationId: string | null;
  role: Role | null;
  sessionId: string;
  jti: string;
  tokenExpiresAt: number;
  /** The request's instant on the core's clock (src/shared/clock.ts): what is active (a sharing) is judged at it. */
  now: Date;
  /**
   * False when the session statement found no accepted invite of the user and no sharing naming it
   * or the token's organization (issue 23): its scopes are then its own part alone, without the
   * invited and shared subqueries. Absent where unknown (the scopes keep them). Conservative: an
   * expired invite or an inactive sharing still counts, and the subqueries judge them per request.
   */
  mayBeGranted?: boolean;
  /** TERMS_REQUIRED and the user has not accepted the current terms: every call but a few answers 428. */
  termsPending?: boolean;
}

export const MANAGING_ROLES: readonly Role[] = ['OWNER', 'MANAGER'];
