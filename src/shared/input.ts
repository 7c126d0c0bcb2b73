import { DomainError } from './errors.js';

/**
 * The one input boundary both doors pass every value through before anything else reads it
 * (ARCHITECTURE.md, "Habits"): bodies of bounded depth and size, well-formed strings without NUL
 * and of a bounded length, numbers and dates that fit their column. A value past it is a 422 naming
 * the field, never a 500 from the database or a stack overflow.
 */
export const INPUT_LIMITS = {
  /** Levels of objects and arrays in a body (an identification is 3). */
  depth: 16,
  /** Keys and items in one body (1,000 animals of ~15 fields each fit). */
  entries: 100_000,
  /** Characters of a string field unless MAX_LENGTH says otherwise. */
  length: 255,
};

/** Longer free text. Every other string field is at most INPUT_LIMITS.length characters. */
export const MAX_LENGTH: Readonly<Record<string, number>> = {
  str_description: 2000,
  str_reason_description: 2000,
  str_resolution: 2000,
  str_address: 500,
  str_label: 500,
  // Tokens are checked by what they are (a wrong one is a 401), not refused for their length.
  refresh_token: 4096,
  str_refresh_token: 4096,
  str_access_token: 4096,
  str_token: 4096,
};

export const maxLengthOf = (field: string): number => (Object.hasOwn(MAX_LENGTH, field) ? MAX_LENGTH[field]! : INPUT_LIMITS.length);

/** numeric(14,4): ten integer digits. */
const DECIMAL_LIMIT = 1e10;
const INT_LIMIT = 2 ** 31;
/**
 * The dates a timestamptz column takes from the driver: it sends a Date as its ISO string, which
 * PostgreSQL reads only for years 0001 to 9999 (no year 0, no six-digit `+275760` or `-000100`).
 */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Half of a UTF-16 surrogate pair without the other half (JSON may write one as `"\ud800"`): it has
 * no UTF-8 form, so PostgreSQL refuses it in a json parameter and the driver would silently replace
 * it in a text one.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/** The problem with one named value, or null. `field` is the last key of its path (what the limits are keyed by). */
export function valueProblem(field: string, value: unknown): string | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'must not contain the NUL character';
    if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (a lone surrogate cannot be stored)';
    const max = maxLengthOf(field);
    if (value.length > max) return `must be at most ${max} characters`;
    // A ts_* value (a field, or a search's `_from`/`_to`) that reads as a date must be one the column can hold.
    if (field.startsWith('ts_')) {
      const at = new Date(value).getTime();
      if (!Number.isNaN(at) && (at < EARLIEST || at > LATEST)) return 'must be a date-time between 0001-01-01 and 9999-12-31';
    }
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    if (field.startsWith('dec_') && Math.abs(value) >= DECIMAL_LIMIT) return `must be less than ${DECIMAL_LIMIT} in magnitude`;
    if (field.startsWith('int_') && (value >= INT_LIMIT || value < -INT_LIMIT)) return `must be between ${-INT_LIMIT} and ${INT_LIMIT - 1}`;
  }
  return null;
}

/** At most this many fields are named in one answer: enough to fix a form, bounded for a hostile body. */
export const MAX_NAMED = 20;

/**
 * Checks a body's shape (depth, size) and, unless `shapeOnly`, every value in it; throws one
 * VALIDATION_FAILED naming the fields. Keys themselves are values too (a NUL or a 10 MB key is
 * refused the same way). The shape is checked before anything walks a body; the values once the
 * fields a route ignores are dropped (an unknown field is named in a Warning, not refused).
 */
export function checkInput(value: unknown, root = 'body', shapeOnly = false): void {
  const fields: Record<string, string[]> = Object.create(null); // user-named keys: `constructor` is a field, not Object's
  let entries = 0;
  let named = 0;
  const flag = (path: string, problem: string) => {
    if (named++ < MAX_NAMED) (fields[path || root] ??= []).push(problem);
  };
  const walk = (v: unknown, path: string, field: string, depth: number): void => {
    if (v === null || typeof v !== 'object') {
      if (shapeOnly) return;
      const problem = valueProblem(field, v);
      if (problem) flag(path, problem);
      return;
    }
    if (depth > INPUT_LIMITS.depth) {
      flag(path, `is nested deeper than ${INPUT_LIMITS.depth} levels`);
      return;
    }
    if (Array.isArray(v)) {
      entries += v.length;
      if (entries > INPUT_LIMITS.entries) return;
      v.forEach((item, i) => walk(item, `${path}[${i}]`, field, depth + 1));
      return;
    }
    for (const key of Object.keys(v)) {
      if (++entries > INPUT_LIMITS.entries) return;
      const keyProblem = key.includes('\u0000')
        ? 'must not contain the NUL character'
        : LONE_SURROGATE.test(key)
          ? 'must be well-formed Unicode (a lone surrogate cannot be stored)'
          : key.length > INPUT_LIMITS.length
            ? 'is not a known field'
            : null;
      if (keyProblem) {
        flag(`${path}${path ? '.' : ''}${key.slice(0, 64).replace(/\u0000/g, '\\u0000').replace(/\p{Cs}/gu, '?')}`, keyProblem);
        continue;
      }
      walk((v as Record<string, unknown>)[key], `${path}${path ? '.' : ''}${key}`, key, depth + 1);
    }
  };
  walk(value, '', root, 0);
  if (entries > INPUT_LIMITS.entries) flag('', `has more than ${INPUT_LIMITS.entries} keys and items`);
  if (named) throw DomainError.validation(fields);
}
