import type { AnimalStatus } from '../animals/animal.rules.js';
import { DomainError } from '../shared/errors.js';
import { ANIMAL_END_BY_REASON, type TagStatus, type WriteoffReason } from './tag.rules.js';

/**
 * Which tags each writeoff reason fits. Unused tags (AVAILABLE, RESERVED) go for unused-tag reasons;
 * an APPLIED tag goes only with its animal (death, slaughter, export): writing it off for any other
 * reason would leave a living animal without an active tag, which is what a replacement is for.
 */
export const WRITEOFF_REASON_STATUSES: Record<WriteoffReason, readonly TagStatus[]> = {
  DAMAGED: ['AVAILABLE', 'RESERVED'],
  DEFECTIVE: ['AVAILABLE', 'RESERVED'],
  LOST_UNUSED: ['AVAILABLE', 'RESERVED'],
  OTHER: ['AVAILABLE', 'RESERVED'],
  ANIMAL_DEATH: ['APPLIED'],
  ANIMAL_SLAUGHTER: ['APPLIED'],
  ANIMAL_EXPORT: ['APPLIED'],
};

/** DOMAIN.md: ACTIVE → DEAD | SLAUGHTERED | EXPORTED. A MISSING animal is found (ACTIVE) first. */
export const ENDABLE_ANIMAL_STATUSES: readonly AnimalStatus[] = ['ACTIVE'];

/** Field work on an animal's tag (a replacement) happens on animals present at the unit: not in transit, missing or ended. */
export const TAGGABLE_ANIMAL_STATUSES: readonly AnimalStatus[] = ['ACTIVE'];

/** The event each ending appends to the animal's history. */
export const ANIMAL_END_EVENT = { DEAD: 'ANIMAL_DIED', SLAUGHTERED: 'ANIMAL_SLAUGHTERED', EXPORTED: 'ANIMAL_EXPORTED' } as const;

export const animalEndFor = (reason: WriteoffReason): 'DEAD' | 'SLAUGHTERED' | 'EXPORTED' | null => ANIMAL_END_BY_REASON[reason] ?? null;

/** str_reason_description carries the reason itself when it is OTHER. */
export const needsDescription = (reason: WriteoffReason): boolean => reason === 'OTHER';

/** Largest writeoff or replacement one request may carry: bulk work stays bounded (set-based, so the count costs no statements). */
export const MAX_TAGS_PER_OPERATION = 10_000;

/** Tags whose status the operation allows but the reason does not fit (RULE_VIOLATED, naming each code and status). */
export function reasonMismatch(reason: WriteoffReason, offending: { str_code: string; str_status: string }[]): DomainError {
  const allowed = WRITEOFF_REASON_STATUSES[reason];
  const applied = allowed.includes('APPLIED');
  return new DomainError('RULE_VIOLATED', {
    rule: 'WRITEOFF_REASON_FITS_TAG',
    message: applied
      ? `${reason} writes off applied tags only, ending their animals`
      : `${reason} writes off unused tags only (${allowed.join(' or ')}); an applied tag lost or damaged is replaced (POST /api/tags-replacements), its animal keeps its identity`,
    str_reason: reason,
    allowed,
    tags: offending.slice(0, 50).map((t) => ({ str_code: t.str_code, str_status: t.str_status })),
    int_offending: offending.length,
  });
}

/** Animals that may not change as the operation asks (INVALID_STATE naming each animal, its tag and status). */
export function animalStateError(message: string, allowed: readonly AnimalStatus[], offending: { animal_id: string | null; str_code: string; str_animal_status: string | null }[]): DomainError {
  return new DomainError('INVALID_STATE', {
    message,
    allowed,
    animals: offending.slice(0, 50).map((a) => ({ id: a.animal_id, str_tag_code: a.str_code, str_status: a.str_animal_status })),
    int_offending: offending.length,
  });
}
