import { oneOf } from '../places/establishment.rules.js';
import type { Checker } from '../shared/validation.js';
import { ANIMAL_GENDERS, ANIMAL_SPECIES } from './animal.rules.js';

/** Field devices' clocks run a little ahead: "not in the future" allows this much. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** What identification records about an animal and an update may correct (never its status, tag or place). */
export interface AnimalFieldsInput {
  str_species?: string | null;
  str_gender?: string | null;
  ts_born_date?: Date | null;
  int_age_months_at_identification?: number | null;
  int_weight_kilos_at_identification?: number | null;
  str_rod_code?: string | null;
  str_extra_tag?: string | null;
  str_name?: string | null;
  str_description?: string | null;
}

/** The same fields checked: species and gender one of theirs. */
export interface AnimalFields extends Omit<AnimalFieldsInput, 'str_species' | 'str_gender'> {
  str_species?: 'BOVINE' | 'BUBALINE';
  str_gender?: 'MALE' | 'FEMALE';
}

export const ANIMAL_TEXT_FIELDS = ['str_rod_code', 'str_extra_tag', 'str_name', 'str_description'] as const;
export const ANIMAL_FIELDS = ['str_species', 'str_gender', 'ts_born_date', 'int_age_months_at_identification', 'int_weight_kilos_at_identification', ...ANIMAL_TEXT_FIELDS] as const;

const trimmed = (v: string | null | undefined): string | null | undefined => (typeof v === 'string' ? v.trim() || null : v);

/**
 * The given fields checked and normalized (undefined: not given), each problem added under
 * `prefix + field` (`animals[3].str_gender`). `required` names fields that must be present.
 */
export function animalFields(check: Checker, prefix: string, input: AnimalFieldsInput, required: readonly ('str_species' | 'str_gender')[] = []): AnimalFields {
  const out: AnimalFields = {};
  const at = (f: string) => prefix + f;
  // Species and gender are never cleared: null is refused, and absence where required.
  for (const [f, values] of [['str_species', ANIMAL_SPECIES], ['str_gender', ANIMAL_GENDERS]] as const) {
    const v = input[f];
    if (v === undefined || v === null) {
      if (v === null || required.includes(f)) check.add(at(f), 'is required');
    } else if (oneOf<string>(values, v)) (out as Record<string, unknown>)[f] = v;
    else check.add(at(f), `must be one of ${values.join(', ')}`);
  }
  if (input.ts_born_date !== undefined) {
    if (input.ts_born_date && input.ts_born_date.getTime() > Date.now() + CLOCK_SKEW_MS) check.add(at('ts_born_date'), 'must not be in the future');
    else out.ts_born_date = input.ts_born_date;
  }
  const age = input.int_age_months_at_identification;
  if (age !== undefined) {
    if (age !== null && (!Number.isInteger(age) || age < 0)) check.add(at('int_age_months_at_identification'), 'must be an integer of at least 0');
    else out.int_age_months_at_identification = age;
  }
  const weight = input.int_weight_kilos_at_identification;
  if (weight !== undefined) {
    if (weight !== null && (!Number.isInteger(weight) || weight < 1)) check.add(at('int_weight_kilos_at_identification'), 'must be a positive integer');
    else out.int_weight_kilos_at_identification = weight;
  }
  for (const f of ANIMAL_TEXT_FIELDS) if (input[f] !== undefined) out[f] = trimmed(input[f]);
  return out;
}
