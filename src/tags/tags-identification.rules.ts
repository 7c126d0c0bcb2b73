import { animalFields, CLOCK_SKEW_MS, type AnimalFields, type AnimalFieldsInput } from '../animals/animal-fields.js';
import { geoPointProblem } from '../places/establishment.rules.js';
import { isUuid, newId } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { isTagCode } from './tag.rules.js';

/** One animal of Tags Identification Create: its tag (by id or code) and what was recorded about it. */
export interface IdentifiedAnimalInput extends AnimalFieldsInput {
  id?: string | null;
  tag_id?: string | null;
  str_tag_code?: string | null;
  ts_identified_at?: Date | null;
  geo_identification?: { type?: string | null; coordinates?: number[] | null } | null;
  ts_unsafe_client_created_at?: Date | null;
}

/** Tags Identification Create: interface.md shows to_control_unit_id; the rest is this service's (docs/decisions/animals.md). */
export interface TagsIdentificationCreateInput {
  id?: string | null;
  to_control_unit_id?: string | null;
  operator_user_id?: string | null;
  ts_unsafe_client_created_at?: Date | null;
  animals?: IdentifiedAnimalInput[] | null;
}

export interface NewAnimal extends AnimalFields {
  path: string;
  id: string;
  clientId: boolean;
  tag_id: string | null;
  str_tag_code: string | null;
  str_species: 'BOVINE' | 'BUBALINE';
  str_gender: 'MALE' | 'FEMALE';
  ts_identified_at: Date;
  num_longitude: number | null;
  num_latitude: number | null;
  ts_unsafe_client_created_at: Date | null;
}

/** Animals one identification may carry: a whole corral, within the 1 MiB body limit. */
export const MAX_ANIMALS = 1000;

/** Checks the body, naming every problem by its path (`animals[3].str_gender`), and returns the animals ready to write. */
export function checkIdentification(input: TagsIdentificationCreateInput): NewAnimal[] {
  const check = new Checker();
  if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  check.required('to_control_unit_id', input.to_control_unit_id);
  if (input.to_control_unit_id) check.when(!isUuid(input.to_control_unit_id), 'to_control_unit_id', 'must be a uuid');
  if (input.operator_user_id) check.when(!isUuid(input.operator_user_id), 'operator_user_id', 'must be a uuid');
  const items = input.animals;
  if (!Array.isArray(items) || items.length === 0) check.add('animals', 'is required: at least one animal');
  else if (items.length > MAX_ANIMALS) check.add('animals', `must hold at most ${MAX_ANIMALS} animals`);
  check.throwIfAny();
  const seen = { id: new Map<string, string>(), tag_id: new Map<string, string>(), str_tag_code: new Map<string, string>(), str_rod_code: new Map<string, string>() };
  const once = (field: keyof typeof seen, value: string | null | undefined, path: string) => {
    if (!value) return;
    const first = seen[field].get(value);
    if (first) check.add(`${path}.${field}`, `is also given for ${first}`);
    else seen[field].set(value, path);
  };
  const animals = items!.map((item, i): NewAnimal => {
    const path = `animals[${i}]`;
    const at = (f: string) => `${path}.${f}`;
    if (item.id) check.when(!isUuid(item.id), at('id'), 'must be a uuid');
    if (!item.tag_id && !item.str_tag_code) check.add(path, 'give tag_id or str_tag_code');
    if (item.tag_id) check.when(!isUuid(item.tag_id), at('tag_id'), 'must be a uuid');
    const code = item.str_tag_code?.trim() || null;
    if (code) check.when(!isTagCode(code), at('str_tag_code'), 'must be a tag code: 15 digits');
    const fields = animalFields(check, `${path}.`, item, ['str_species', 'str_gender']);
    const identifiedAt = item.ts_identified_at ?? new Date();
    if (identifiedAt.getTime() > Date.now() + CLOCK_SKEW_MS) check.add(at('ts_identified_at'), 'must not be in the future');
    if (fields.ts_born_date && fields.ts_born_date > identifiedAt) check.add(at('ts_born_date'), 'must not be after ts_identified_at');
    let point: [number, number] | null = null;
    if (item.geo_identification) {
      const problem = geoPointProblem(item.geo_identification);
      if (problem) check.add(at('geo_identification'), problem);
      else point = item.geo_identification.coordinates as [number, number];
    }
    once('id', item.id, path);
    once('tag_id', item.tag_id, path);
    once('str_tag_code', code, path);
    once('str_rod_code', fields.str_rod_code, path);
    return {
      ...fields,
      path,
      id: item.id && isUuid(item.id) ? item.id : newId(),
      clientId: Boolean(item.id),
      tag_id: item.tag_id ?? null,
      str_tag_code: code,
      str_species: fields.str_species!,
      str_gender: fields.str_gender!,
      ts_identified_at: identifiedAt,
      num_longitude: point?.[0] ?? null,
      num_latitude: point?.[1] ?? null,
      ts_unsafe_client_created_at: item.ts_unsafe_client_created_at ?? input.ts_unsafe_client_created_at ?? null,
    };
  });
  check.throwIfAny();
  return animals;
}

/** The tag an animal names, as locked for identification. */
export interface LockedTag {
  id: string;
  str_code: string;
  str_status: string;
  tags_box_id: string | null;
  tags_reservation_id: string | null;
  here: boolean;
  visible: boolean;
}

/**
 * Each animal's tag among those found: unknown or invisible is a 422 naming the path, and so is
 * one tag named twice (by id and by code) or a code that is not tag_id's.
 */
export function tagsOf(animals: NewAnimal[], found: LockedTag[]): LockedTag[] {
  const byId = new Map(found.map((t) => [t.id, t]));
  const byCode = new Map(found.map((t) => [t.str_code, t]));
  const check = new Checker();
  const taken = new Map<string, string>();
  const tags = animals.map((a) => {
    const field = a.tag_id ? 'tag_id' : 'str_tag_code';
    const tag = a.tag_id ? byId.get(a.tag_id) : byCode.get(a.str_tag_code!);
    if (!tag || !(tag.here || tag.visible)) check.add(`${a.path}.${field}`, 'no such tag');
    else if (a.tag_id && a.str_tag_code && a.str_tag_code !== tag.str_code) check.add(`${a.path}.str_tag_code`, 'is not the code of tag_id');
    else if (taken.has(tag.id)) check.add(`${a.path}.${field}`, `is the same tag as ${taken.get(tag.id)}'s`);
    else taken.set(tag.id, a.path);
    return tag;
  });
  check.throwIfAny();
  return tags as LockedTag[];
}
