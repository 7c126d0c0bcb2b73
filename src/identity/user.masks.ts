import { maskDocument } from '../places/establishment.rules.js';
import { mask } from './user-verification.service.js';
import type { UserRow } from './user.reader.js';

const masked = new WeakSet<object>();

/**
 * A user as a reader outside the user's organizations sees it where a record names the user (a
 * movement's operator): the record keeps its shape, its personal values are masked as the
 * unrestricted establishment search masks a CPF (`***.456.789-**`, `j***@example.com`,
 * `*******4321`); a CNPJ is public and stays. Where it stood is not said (county, active
 * organization, terms acceptance).
 */
export function maskedUser(user: UserRow): UserRow {
  const copy: UserRow = {
    ...user,
    str_email: mask('EMAIL', user.str_email),
    str_document: maskDocument(user.str_document) ?? user.str_document,
    str_phone: user.str_phone === null ? null : mask('SMS', user.str_phone),
    county_id: null,
    organization_id: null,
    ts_terms_accepted_at: null,
  };
  masked.add(copy);
  return copy;
}

/** Whether a row is a masked copy (its memberships are not shown either). */
export const isMasked = (user: object): boolean => masked.has(user);
