export const GTA_STATUSES = ['ISSUED', 'IN_USE', 'RECEIVED', 'CANCELLED', 'EXPIRED'] as const;
export type GtaStatus = (typeof GTA_STATUSES)[number];
/** EXPIRED is derived on read, never stored. */
export type StoredGtaStatus = Exclude<GtaStatus, 'EXPIRED'>;
export const GTA_PURPOSES = ['SLAUGHTER', 'FATTENING', 'BREEDING', 'EXHIBITION', 'AUCTION', 'OTHER'] as const;
export const GTA_SPECIES = ['BOVINE', 'BUBALINE'] as const;

/** DOMAIN.md: an ISSUED GTA whose ts_valid_until has passed unused reads as EXPIRED (a notified GTA without one does not expire until completed). */
export function effectiveStatus(g: { str_status: string; ts_valid_until: Date | string | null }, now: Date = new Date()): GtaStatus {
  if (g.str_status === 'ISSUED' && g.ts_valid_until !== null && new Date(g.ts_valid_until).getTime() < now.getTime()) return 'EXPIRED';
  return g.str_status as GtaStatus;
}

/** ISSUED → CANCELLED is the only cancel; IN_USE means animals were dispatched. Null when allowed. */
export function cancelProblem(status: GtaStatus): string | null {
  if (status === 'ISSUED') return null;
  if (status === 'IN_USE' || status === 'RECEIVED') return `a GTA ${status} cannot be cancelled: animals were dispatched under it`;
  return `a GTA ${status} cannot be cancelled`;
}
