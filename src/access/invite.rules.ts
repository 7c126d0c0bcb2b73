export const MOVIMENTATION_TYPES = ['INGRESS', 'EGRESS', 'BOTH'] as const;
export const INVITE_TYPES = ['OPERATOR', 'VIEWER'] as const;
export type InviteStatus = 'PENDING' | 'ACCEPTED' | 'REVOKED' | 'EXPIRED';

/** Derived on read: revoked wins, then accepted, then expiry. */
export function inviteStatus(i: { bl_accepted: boolean; ts_revoked_at: Date | null; ts_expires_at: Date | null }, now = new Date()): InviteStatus {
  if (i.ts_revoked_at) return 'REVOKED';
  if (i.bl_accepted) return 'ACCEPTED';
  if (i.ts_expires_at && i.ts_expires_at.getTime() <= now.getTime()) return 'EXPIRED';
  return 'PENDING';
}

/** A date-time given as a string: null when it does not parse. */
export function parseDate(v: string): Date | null {
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** SQL: the accepted, unrevoked, unexpired invites of user `?` (alias "iv"). */
export const ACTIVE_INVITE_SQL = 'iv.user_id = ? and iv.bl_accepted and iv.ts_revoked_at is null and (iv.ts_expires_at is null or iv.ts_expires_at > now())';
