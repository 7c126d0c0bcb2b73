/** What an access lets the grantees read at its establishment or control unit (DOMAIN.md, "Access between organizations"). */
export const SHARING_SCOPES = ['ANIMALS', 'MOVEMENTS', 'TAGS', 'ALL'] as const;
export type SharingScope = (typeof SHARING_SCOPES)[number];

export const SHARING_STATUSES = ['DEACTIVATED', 'SCHEDULED', 'EXPIRED', 'ACTIVE'] as const;
export type SharingStatus = (typeof SHARING_STATUSES)[number];

/**
 * What a read is of, as the grant sees it: a scope's records, `PLACES` (the establishment or unit
 * itself, which an access of any scope shows), or `ALL` (records only an `ALL` access shows: occurrences).
 */
export type SharedData = SharingScope | 'PLACES';

/** The access scopes that grant a read of `data`. */
export function scopesGranting(data: SharedData): readonly SharingScope[] {
  if (data === 'PLACES') return SHARING_SCOPES;
  if (data === 'ALL') return ['ALL'];
  return [data, 'ALL'];
}

interface Timed {
  bl_deactivated_manually: boolean;
  ts_scheduled_to: Date | null;
  ts_expires_at: Date | null;
}

/** Derived on read, in DOMAIN.md's order: deactivated, then not yet started, then past its end. */
export function sharingStatus(s: Timed, now: Date): SharingStatus {
  if (s.bl_deactivated_manually) return 'DEACTIVATED';
  if (s.ts_scheduled_to && now.getTime() < s.ts_scheduled_to.getTime()) return 'SCHEDULED';
  if (s.ts_expires_at && now.getTime() >= s.ts_expires_at.getTime()) return 'EXPIRED';
  return 'ACTIVE';
}

/** SQL on alias "s", two `?` (the instant, twice): the sharing is ACTIVE then, as sharingStatus says. */
export const ACTIVE_SHARING_SQL = 'not s.bl_deactivated_manually and (s.ts_scheduled_to is null or s.ts_scheduled_to <= ?) and (s.ts_expires_at is null or s.ts_expires_at > ?)';


/** SQL on alias "s": the sharings whose derived status is `status` at `now` (a search's str_status). */
export function sharingStatusCondition(status: SharingStatus, now: Date): { sql: string; params: unknown[] } {
  switch (status) {
    case 'DEACTIVATED':
      return { sql: 's.bl_deactivated_manually', params: [] };
    case 'SCHEDULED':
      return { sql: '(not s.bl_deactivated_manually and s.ts_scheduled_to > ?)', params: [now] };
    case 'EXPIRED':
      return { sql: '(not s.bl_deactivated_manually and (s.ts_scheduled_to is null or s.ts_scheduled_to <= ?) and s.ts_expires_at <= ?)', params: [now, now] };
    case 'ACTIVE':
      return { sql: `(${ACTIVE_SHARING_SQL})`, params: [now, now] };
  }
}
