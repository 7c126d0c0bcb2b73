import { DomainError } from '../shared/errors.js';

export const TAG_STATUSES = ['AVAILABLE', 'RESERVED', 'APPLIED', 'IN_TRANSIT', 'REPLACED', 'WRITTEN_OFF'] as const;
export type TagStatus = (typeof TAG_STATUSES)[number];
export const TAGS_BOX_STATUSES = ['IN_STOCK', 'IN_TRANSIT', 'OPENED', 'DEPLETED'] as const;
export type TagsBoxStatus = (typeof TAGS_BOX_STATUSES)[number];
export const TAGS_INGRESS_STATUSES = ['PENDING', 'EVALUATED', 'PARTIALLY_ACCEPTED'] as const;
export const TAGS_INGRESS_BOX_STATUSES = ['PENDING', 'ACCEPTED', 'REJECTED'] as const;
export const TAGS_EGRESS_TYPES = ['TRANSFER', 'RETURN'] as const;
export const TAGS_EGRESS_STATUSES = ['SENT', 'RECEIVED', 'CANCELLED'] as const;
export const TAGS_RESERVATION_STATUSES = ['ACTIVE', 'RELEASED', 'USED'] as const;
export const REPLACEMENT_REASONS = ['LOST', 'DAMAGED', 'ILLEGIBLE'] as const;
export const WRITEOFF_REASONS = ['DAMAGED', 'DEFECTIVE', 'LOST_UNUSED', 'ANIMAL_DEATH', 'ANIMAL_SLAUGHTER', 'ANIMAL_EXPORT', 'OTHER'] as const;
export type WriteoffReason = (typeof WRITEOFF_REASONS)[number];

/** Writing off an applied tag for these reasons ends its animal (DOMAIN.md, "Tags Writeoff"). */
export const ANIMAL_END_BY_REASON: Partial<Record<WriteoffReason, 'DEAD' | 'SLAUGHTERED' | 'EXPORTED'>> = {
  ANIMAL_DEATH: 'DEAD',
  ANIMAL_SLAUGHTER: 'SLAUGHTERED',
  ANIMAL_EXPORT: 'EXPORTED',
};

/**
 * Every tag transition DOMAIN.md allows, by operation: the statuses a tag may be in for it, and
 * the status it ends in. Anything else is refused with INVALID_STATE.
 */
export const TAG_TRANSITIONS = {
  reserve: { from: ['AVAILABLE'], to: 'RESERVED' },
  release: { from: ['RESERVED'], to: 'AVAILABLE' },
  apply: { from: ['AVAILABLE', 'RESERVED'], to: 'APPLIED' },
  send: { from: ['AVAILABLE'], to: 'IN_TRANSIT' },
  receive: { from: ['IN_TRANSIT'], to: 'AVAILABLE' },
  giveBack: { from: ['IN_TRANSIT'], to: 'AVAILABLE' },
  replace: { from: ['APPLIED'], to: 'REPLACED' },
  writeOff: { from: ['AVAILABLE', 'RESERVED', 'APPLIED'], to: 'WRITTEN_OFF' },
} as const satisfies Record<string, { from: readonly TagStatus[]; to: TagStatus }>;
export type TagOperation = keyof typeof TAG_TRANSITIONS;

/** REPLACED and WRITTEN_OFF never come back. */
export const FINAL_TAG_STATUSES: readonly TagStatus[] = ['REPLACED', 'WRITTEN_OFF'];

/** SQL list of the statuses an operation starts from, for `str_status in (...)` (constants, never input). */
export const fromStatusesSql = (op: TagOperation): string => TAG_TRANSITIONS[op].from.map((s) => `'${s}'`).join(',');

/** The refusal for tags that are not in a status the operation starts from: names each offending code and its status. */
export function tagStateError(op: TagOperation, offending: { str_code: string; str_status: string }[]): DomainError {
  return new DomainError('INVALID_STATE', {
    message: `${op} needs tags in ${TAG_TRANSITIONS[op].from.join(' or ')}`,
    allowed: TAG_TRANSITIONS[op].from,
    tags: offending.slice(0, 50).map((t) => ({ str_code: t.str_code, str_status: t.str_status })),
    int_offending: offending.length,
  });
}

/** ISO 11784 for Brazil: 076 + 12 digits. External tags (legacy SISBOV, other systems) accept any 15 digits. */
export const isBrazilianTagCode = (v: string): boolean => /^076\d{12}$/.test(v);
export const isTagCode = (v: string): boolean => /^\d{15}$/.test(v);

/** Codes between two of the same width, inclusive; bigint keeps 15 digits exact. */
export const rangeSize = (begin: string, finish: string): bigint => BigInt(finish) - BigInt(begin) + 1n;
export const codeAt = (begin: string, offset: bigint | number): string => (BigInt(begin) + BigInt(offset)).toString().padStart(15, '0');

/** Largest range one request may bring in or reserve: bulk work stays bounded. */
export const MAX_RANGE = 100_000;
