import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { Checker } from '../shared/validation.js';
import { isTagCode } from './tag.rules.js';

/** A tag named in a request body, by its id or by its code, and where in the body it was named. */
export interface TagRef {
  path: string;
  field: string;
  id: string | null;
  code: string | null;
}

/** One of `idField` / `codeField` of the item at `path`, well formed; null (with the problem recorded) otherwise. */
export function tagRef(check: Checker, path: string, idField: string, codeField: string, id: unknown, code: unknown): TagRef | null {
  const hasId = id !== undefined && id !== null && id !== '';
  const hasCode = code !== undefined && code !== null && code !== '';
  if (hasId === hasCode) {
    check.add(`${path}.${idField}`, hasId ? `give ${idField} or ${codeField}, not both` : `${idField} or ${codeField} is required`);
    return null;
  }
  if (hasId) {
    if (!isUuid(id)) {
      check.add(`${path}.${idField}`, 'must be a uuid');
      return null;
    }
    return { path, field: `${path}.${idField}`, id: id.toLowerCase(), code: null };
  }
  const c = typeof code === 'string' ? code.trim() : '';
  if (!isTagCode(c)) {
    check.add(`${path}.${codeField}`, 'must be a tag code of 15 digits');
    return null;
  }
  return { path, field: `${path}.${codeField}`, id: null, code: c };
}

export interface LockedTag {
  id: string;
  str_code: string;
  str_status: string;
  animal_id: string | null;
  tags_box_id: string | null;
  tags_reservation_id: string | null;
  last_control_unit_id: string | null;
  /** Its animal's, when it has one (a replaced or written-off tag keeps its animal). */
  str_animal_status: string | null;
  animal_control_unit_id: string | null;
}

/** Where a tag is: with its animal when it has one, else where it was stocked. */
export const locationOf = (t: LockedTag): string | null => (t.animal_id ? t.animal_control_unit_id : t.last_control_unit_id);

/**
 * The tags named, locked until commit, with their animals: one statement however many. Answers in
 * the order of `refs`. Tags that do not exist or are not at `unitId` are a 422 naming the item (the
 * same answer for both, so another tenant's codes stay unknown); a tag named twice too.
 */
export async function lockTagsAt(tx: EntityManager, refs: TagRef[], unitId: string): Promise<LockedTag[]> {
  const ids = refs.flatMap((r) => (r.id ? [r.id] : []));
  const codes = refs.flatMap((r) => (r.code ? [r.code] : []));
  const rows = await tx.execute<LockedTag[]>(
    `select t.id, t.str_code, t.str_status, t.animal_id, t.tags_box_id, t.tags_reservation_id, t.last_control_unit_id,
            a.str_status as str_animal_status, a.last_control_unit_id as animal_control_unit_id
       from tag t left join animal a on a.id = t.animal_id
      where t.id = any(array[?]::uuid[]) or t.str_code = any(array[?]::text[])
      for update of t`,
    [ids, codes],
  );
  const byId = new Map(rows.map((t) => [t.id, t]));
  const byCode = new Map(rows.map((t) => [t.str_code, t]));
  const problems: [string, string][] = [];
  const firstPath = new Map<string, string>();
  const found: LockedTag[] = [];
  for (const ref of refs) {
    const tag = ref.id ? byId.get(ref.id) : byCode.get(ref.code!);
    if (!tag || locationOf(tag) !== unitId) {
      problems.push([ref.field, 'no such tag at this control unit']);
      continue;
    }
    const seen = firstPath.get(tag.id);
    if (seen) problems.push([ref.field, `names the same tag as ${seen}`]);
    else firstPath.set(tag.id, ref.path);
    found.push(tag);
  }
  if (problems.length) throw fieldProblems(problems);
  return found;
}

/** VALIDATION_FAILED over many items: the first hundred named, and how many there were. */
export function fieldProblems(problems: [string, string][]): DomainError {
  const fields: Record<string, string[]> = {};
  for (const [field, message] of problems.slice(0, 100)) (fields[field] ??= []).push(message);
  return new DomainError('VALIDATION_FAILED', problems.length > 100 ? { fields, int_offending: problems.length } : { fields });
}
