import type { ErrorCode } from '../src/shared/errors.js';

/** The one table from error code to HTTP status (CONTRACT.md, "Errors"). */
export const STATUS_OF: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  VALIDATION_FAILED: 422,
  INVALID_STATE: 422,
  CONFLICT: 422,
  RULE_VIOLATED: 422,
  TERMS_NOT_ACCEPTED: 428,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};
