import { isUuid } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { isTagCode } from '../tags/tag.rules.js';
import type { EudrLot } from './eudr.reader.js';

/** The lot as both doors give it: exactly one of a GTA, an animals ingress, animal ids, tag codes, or a slaughterhouse unit and a window. */
export interface EudrLotInput {
  gta_id?: string | null;
  animals_ingress_id?: string | null;
  lst_animal_ids?: string[] | null;
  lst_tag_codes?: string[] | null;
  control_unit_id?: string | null;
  ts_from?: Date | null;
  ts_to?: Date | null;
}

/** A list's largest size (issue 22). */
export const MAX_LOT_LIST = 5000;
/** A slaughterhouse window's longest span: a month of slaughter is already a large statement. */
export const MAX_WINDOW_DAYS = 31;

const KINDS = ['gta_id', 'animals_ingress_id', 'lst_animal_ids', 'lst_tag_codes', 'control_unit_id'] as const;

const given = (v: unknown) => v !== undefined && v !== null;

function list(check: Checker, field: string, values: string[], valid: (v: string) => boolean, what: string): string[] {
  if (values.length === 0 || values.length > MAX_LOT_LIST) check.add(field, `must hold 1 to ${MAX_LOT_LIST} entries`);
  const bad = values.findIndex((v) => typeof v !== 'string' || !valid(v));
  if (bad !== -1) check.add(`${field}[${bad}]`, `must be ${what}`);
  return values;
}

/** Checks the lot, naming each bad field, and returns it canonical (ids lower-cased, lists without repeats). */
export function checkLot(input: EudrLotInput): { lot: EudrLot; expected: number | null } {
  const check = new Checker();
  const kinds = KINDS.filter((k) => given(input[k]));
  if (kinds.length !== 1) {
    check.add('lot', `must give exactly one of ${KINDS.join(', ')} (ts_from and ts_to go with control_unit_id)${kinds.length ? `; got ${kinds.join(', ')}` : ''}`);
    check.throwIfAny();
  }
  for (const f of ['gta_id', 'animals_ingress_id', 'control_unit_id'] as const) if (given(input[f])) check.when(!isUuid(input[f]), f, 'must be a uuid');
  if (kinds[0] !== 'control_unit_id') for (const f of ['ts_from', 'ts_to'] as const) check.when(given(input[f]), f, 'goes only with control_unit_id');
  let lot: EudrLot | null = null;
  let expected: number | null = null;
  switch (kinds[0]) {
    case 'gta_id':
      lot = { kind: 'gta', gtaId: input.gta_id!.toLowerCase() };
      break;
    case 'animals_ingress_id':
      lot = { kind: 'ingress', ingressId: input.animals_ingress_id!.toLowerCase() };
      break;
    case 'lst_animal_ids': {
      const ids = [...new Set(list(check, 'lst_animal_ids', input.lst_animal_ids!, isUuid, 'a uuid').map((v) => String(v).toLowerCase()))];
      lot = { kind: 'animals', animalIds: ids };
      expected = ids.length;
      break;
    }
    case 'lst_tag_codes': {
      const codes = [...new Set(list(check, 'lst_tag_codes', input.lst_tag_codes!, isTagCode, 'a tag code of 15 digits'))];
      lot = { kind: 'tags', tagCodes: codes };
      expected = codes.length;
      break;
    }
    case 'control_unit_id': {
      const { ts_from: from, ts_to: to } = input;
      check.required('ts_from', from).required('ts_to', to);
      if (from && to) {
        if (to <= from) check.add('ts_to', 'must be after ts_from');
        else check.when(to.getTime() - from.getTime() > MAX_WINDOW_DAYS * 86_400_000, 'ts_to', `must be at most ${MAX_WINDOW_DAYS} days after ts_from`);
      }
      if (from && to) lot = { kind: 'slaughter', controlUnitId: input.control_unit_id!.toLowerCase(), from, to };
      break;
    }
  }
  check.throwIfAny();
  return { lot: lot!, expected };
}
