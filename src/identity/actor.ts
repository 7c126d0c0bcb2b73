import type { Role } from './membership.entity.js';
import type { UserType } from './user.entity.js';

/** Who is calling: resolved once per request from the bearer token. */
export interface Actor {
  userId: string;
  isAdmin: boolean;
  userType: UserType;
  countyId: string | null;
  /** The active organization (token claim `org`), when the caller is still its member. */
  organizationId: string | null;
  role: Role | null;
  sessionId: string;
  jti: string;
  tokenExpiresAt: number;
}

export const MANAGING_ROLES: readonly Role[] = ['OWNER', 'MANAGER'];
