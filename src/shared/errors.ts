import {
  CheckConstraintViolationException,
  ConstraintViolationException,
  DriverException,
  ForeignKeyConstraintViolationException,
  NotNullConstraintViolationException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';

/** The error codes of CONTRACT.md. The HTTP status of each lives in rest/errors.ts, nowhere else. */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHENTICATED',
  'INVALID_CREDENTIALS',
  'FORBIDDEN',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'VALIDATION_FAILED',
  'INVALID_STATE',
  'CONFLICT',
  'RULE_VIOLATED',
  'RATE_LIMITED',
  'TERMS_NOT_ACCEPTED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: unknown = null,
    /** Seconds a throttled caller should wait (429). */
    readonly retryAfter?: number,
  ) {
    super(typeof detail === 'string' ? `${code}: ${detail}` : code);
  }

  static validation(fields: FieldErrors): DomainError {
    return new DomainError('VALIDATION_FAILED', { fields });
  }

  static field(field: string, message: string): DomainError {
    return DomainError.validation({ [field]: [message] });
  }

  static notFound(what: string): DomainError {
    return new DomainError('NOT_FOUND', `${what} not found`);
  }

  static unauthenticated(reason = 'a valid bearer token is required'): DomainError {
    return new DomainError('UNAUTHENTICATED', reason);
  }

  static forbidden(reason: string): DomainError {
    return new DomainError('FORBIDDEN', reason);
  }

  static conflict(field: string, message = 'is already taken'): DomainError {
    return new DomainError('CONFLICT', { fields: { [field]: [message] } });
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/** SQLSTATE classes and driver messages that mean "the database is away for now", not "this request is wrong". */
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;
const UNAVAILABLE_MESSAGES = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i;

/** Seconds a client waits before retrying while the database is away. */
export const UNAVAILABLE_RETRY_AFTER = 5;

/** 503 + Retry-After when the database is unreachable (CONTRACT.md): nothing was half-written, a retry is safe. */
export function fromUnavailable(err: unknown): DomainError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown; previous?: unknown }).cause ?? (e as { previous?: unknown }).previous, depth++) {
    const code = (e as { code?: unknown }).code;
    const message = (e as { message?: unknown }).message;
    if ((typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_MESSAGES.test(code))) || (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message))) {
      return new DomainError('UNAVAILABLE', 'the database is unreachable for now; retry', UNAVAILABLE_RETRY_AFTER);
    }
  }
  return null;
}

/** SQLSTATEs of a transaction PostgreSQL rolled back because another one touched the same rows: deadlock, serialization. */
const CONCURRENT_STATES = new Set(['40P01', '40001']);

/**
 * Two writers met on the same rows and PostgreSQL rolled one back whole (a deadlock, a serialization
 * failure): nothing of it was written, and the same request sent again runs alone. A 409 saying so,
 * with Retry-After, never a 500.
 */
export function fromConcurrentWrite(err: unknown): DomainError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown; previous?: unknown }).cause ?? (e as { previous?: unknown }).previous, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONCURRENT_STATES.has(code)) {
      return new DomainError('CONFLICT', { rule: 'CONCURRENT_WRITE', message: 'another change to the same records ran at the same time; nothing was written; send the request again' }, 1);
    }
  }
  return null;
}

/**
 * A constraint the database enforced after the core's own checks (a race between two writers, a
 * client-chosen id that exists): still the contract's answer, never a 500.
 */
export function fromConstraintViolation(err: unknown): DomainError | null {
  if (err instanceof DriverException && (err as { code?: unknown }).code === '23P01') {
    const constraint = (err as { constraint?: string }).constraint ?? /constraint "([^"]+)"/.exec(err.message)?.[1] ?? 'unknown';
    const field = EXCLUSION_FIELDS[constraint];
    return new DomainError('CONFLICT', field ? { fields: { [field[0]]: [field[1]] } } : { constraint, message: 'overlaps an existing record' });
  }
  if (!(err instanceof ConstraintViolationException)) return null;
  const constraint = (err as { constraint?: string }).constraint ?? /constraint "([^"]+)"/.exec(err.message)?.[1] ?? 'unknown';
  if (err instanceof UniqueConstraintViolationException) {
    // A value taken by a concurrent writer after the service's own check: the same CONFLICT that check gives.
    const field = UNIQUE_FIELDS[constraint];
    return new DomainError('CONFLICT', field ? { fields: { [field[0]]: [field[1]] } } : { constraint, message: 'a unique value is already taken' });
  }
  if (err instanceof ForeignKeyConstraintViolationException) return new DomainError('RULE_VIOLATED', { rule: 'REFERENCE_EXISTS', constraint });
  if (err instanceof NotNullConstraintViolationException || err instanceof CheckConstraintViolationException) return new DomainError('VALIDATION_FAILED', { constraint });
  return null;
}

/** An organization's CNPJ (or CPF) already registered: public, so said, with where to ask to join (CONTRACT.md, Accounts). */
export const ORGANIZATION_REGISTERED = 'is already registered: ask its owners to invite you (POST /api/invite-requests)';

/** Unique indexes (src/db/migrations) and the input field each one guards; add a line with each new unique index. */
const UNIQUE_FIELDS: Record<string, [string, string]> = {
  user_email_unique: ['str_email', 'is already taken'],
  user_document_unique: ['str_document', 'is already taken'],
  organization_document_unique: ['str_document', ORGANIZATION_REGISTERED],
  organization_invite_pending: ['str_email', 'is being invited by another request: try again'],
  organization_invite_token: ['str_token', 'is already taken'],
  membership_user_org_unique: ['user_id', 'is already a member'],
  vehicle_pkey: ['id', 'is already taken'],
  vehicle_license_plate_unique: ['str_license_plate', 'is already taken'],
  vehicle_renavam_unique: ['str_renavam_number', 'is already taken'],
  establishment_pkey: ['id', 'is already taken'],
  control_unit_pkey: ['id', 'is already taken'],
  control_unit_code_unique: ['str_code', 'is already taken'],
  invite_pkey: ['id', 'is already taken'],
  invite_request_pkey: ['id', 'is already taken'],
  gta_pkey: ['id', 'is already taken'],
  gta_uf_series_code_unique: ['str_code', 'a GTA with this UF, series and number already exists'],
  tags_ingress_pkey: ['id', 'is already taken'],
  tags_egress_pkey: ['id', 'is already taken'],
  tags_box_pkey: ['tags_boxes.id', 'is already taken by another box'],
  tags_box_code_unique: ['tags_boxes.str_code', 'is already taken by another box'],
  tag_code_unique: ['str_code', 'a tag with this code already exists'],
  tags_ingress_egress_unique: ['tags_egress_id', 'is already being received by another tags ingress'],
  tags_reservation_pkey: ['id', 'is already taken'],
  tags_identification_pkey: ['id', 'is already taken'],
  animal_pkey: ['id', 'is already taken'],
  animal_rod_code_unique: ['str_rod_code', 'is already taken'],
  animal_current_tag_unique: ['tag_id', 'is already the current tag of another animal'],
  tag_one_applied_per_animal: ['tag_id', 'the animal already carries an applied tag'],
  tags_replacement_pkey: ['id', 'is already taken'],
  tags_writeoff_pkey: ['id', 'is already taken'],
  tags_writeoff_tag_once: ['tags', 'a tag is written off once'],
  travel_pkey: ['id', 'is already taken'],
  travel_embark_pkey: ['id', 'is already taken'],
  travel_stop_pkey: ['id', 'is already taken'],
  travel_embark_egress_once: ['animals_egress_id', 'already rides another travel'],
  privacy_terms_pkey: ['id', 'is already taken'],
  privacy_terms_version_unique: ['str_version', 'was already published'],
};

/** Exclusion constraints (SQLSTATE 23P01): a race past the core's own overlap check, the same CONFLICT it gives. */
const EXCLUSION_FIELDS: Record<string, [string, string]> = {
  tags_box_range_disjoint: ['tags_boxes.str_begin', 'overlaps the range of another box'],
};
