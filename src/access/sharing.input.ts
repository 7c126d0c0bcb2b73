import { isUuid } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { SHARING_SCOPES, type SharingScope } from './sharing.rules.js';

/** One access of a body: an establishment (all its units) or a control unit, and a scope. */
export interface SharingAccessInput {
  establishment_id?: string | null;
  control_unit_id?: string | null;
  str_scope?: string | null;
}

/** Sharing Create and Sharing Update (interface.md: same shape, all optional), plus `accesses`, which the record carries and its body does not show. */
export interface SharingInput {
  id?: string | null;
  str_name?: string | null;
  str_description?: string | null;
  bl_deactivated_manually?: boolean | null;
  lst_user_ids?: string[] | null;
  lst_org_ids?: string[] | null;
  accesses?: SharingAccessInput[] | null;
  ts_scheduled_to?: Date | null;
  ts_expires_at?: Date | null;
}

/** More grantees or accesses than this in one sharing is a mistake, not a use. */
export const MAX_SHARING_ITEMS = 500;

export interface CheckedAccess {
  path: string;
  establishment_id: string | null;
  control_unit_id: string | null;
  str_scope: SharingScope;
}

/**
 * What a body changes, checked: absent means unchanged, `null` clears what may be empty
 * (str_description, the two dates, a list); ids lower-cased, lists without repeats.
 */
export interface SharingChanges {
  str_name?: string;
  str_description?: string | null;
  bl_deactivated_manually?: boolean;
  ts_scheduled_to?: Date | null;
  ts_expires_at?: Date | null;
  lst_user_ids?: string[];
  lst_org_ids?: string[];
  accesses?: CheckedAccess[];
}

const given = (v: unknown): boolean => v !== undefined;

export function checkSharingInput(input: SharingInput, creating: boolean): SharingChanges {
  const check = new Checker();
  const out: SharingChanges = {};
  if (creating) check.required('str_name', input.str_name);
  if (creating && input.id !== undefined && input.id !== null) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  if (typeof input.str_name === 'string') {
    const name = input.str_name.trim();
    if (name) out.str_name = name;
    else check.add('str_name', 'must not be empty');
  } else if (!creating && input.str_name === null) check.add('str_name', 'must not be null');
  if (given(input.str_description)) out.str_description = input.str_description?.trim() || null;
  if (given(input.bl_deactivated_manually) && input.bl_deactivated_manually !== null) out.bl_deactivated_manually = input.bl_deactivated_manually;
  if (given(input.ts_scheduled_to)) out.ts_scheduled_to = input.ts_scheduled_to ?? null;
  if (given(input.ts_expires_at)) out.ts_expires_at = input.ts_expires_at ?? null;
  for (const field of ['lst_user_ids', 'lst_org_ids'] as const) {
    const list = input[field];
    if (!given(list)) continue;
    out[field] = ids(check, field, list ?? []);
  }
  if (given(input.accesses)) out.accesses = accesses(check, input.accesses ?? []);
  check.throwIfAny();
  return out;
}

function ids(check: Checker, field: string, list: string[]): string[] {
  if (list.length > MAX_SHARING_ITEMS) {
    check.add(field, `must have at most ${MAX_SHARING_ITEMS} items`);
    return [];
  }
  list.forEach((id, i) => check.when(!isUuid(id), `${field}[${i}]`, 'must be a uuid'));
  return [...new Set(list.filter(isUuid).map((id) => id.toLowerCase()))];
}

function accesses(check: Checker, list: SharingAccessInput[]): CheckedAccess[] {
  if (list.length > MAX_SHARING_ITEMS) {
    check.add('accesses', `must have at most ${MAX_SHARING_ITEMS} items`);
    return [];
  }
  const out: CheckedAccess[] = [];
  const seen = new Set<string>();
  list.forEach((a, i) => {
    const at = `accesses[${i}]`;
    const establishment = a.establishment_id ?? null;
    const unit = a.control_unit_id ?? null;
    if (!establishment && !unit) check.add(`${at}.establishment_id`, 'establishment_id or control_unit_id is required');
    if (establishment) check.when(!isUuid(establishment), `${at}.establishment_id`, 'must be a uuid');
    if (unit) check.when(!isUuid(unit), `${at}.control_unit_id`, 'must be a uuid');
    const scope = a.str_scope;
    if (scope === undefined || scope === null) check.add(`${at}.str_scope`, 'is required');
    else check.when(!(SHARING_SCOPES as readonly string[]).includes(scope), `${at}.str_scope`, `must be one of ${SHARING_SCOPES.join(', ')}`);
    if (!check.ok) return;
    const access = { path: at, establishment_id: establishment?.toLowerCase() ?? null, control_unit_id: unit?.toLowerCase() ?? null, str_scope: scope as SharingScope };
    const key = `${access.establishment_id}|${access.control_unit_id}|${access.str_scope}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(access);
  });
  return out;
}

/** The dates as they will be after the change: the end after the start. */
export function checkWindow(scheduledTo: Date | null, expiresAt: Date | null): void {
  if (scheduledTo && expiresAt && expiresAt.getTime() <= scheduledTo.getTime()) new Checker().add('ts_expires_at', 'must be after ts_scheduled_to').throwIfAny();
}
