import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { MAX_RANGE } from './tag.rules.js';
import { EVALUATIONS, MAX_BOXES, checkRange, defaultBoxCode, overlapsWithin, splitRange, type Evaluation, type SupplierBox } from './tags-transfer.rules.js';

export interface TagsIngressBoxInput {
  id?: string | null;
  str_code?: string | null;
  str_begin?: string | null;
  str_finish?: string | null;
}

/** Tags Ingress Create: boxes from a supplier (a list, or one range split by int_box_size) or a tags egress. */
export interface TagsIngressInput {
  id?: string | null;
  to_control_unit_id?: string | null;
  operator_user_id?: string | null;
  tags_egress_id?: string | null;
  str_description?: string | null;
  str_label?: string | null;
  tags_boxes?: TagsIngressBoxInput[] | null;
  str_begin?: string | null;
  str_finish?: string | null;
  int_box_size?: number | null;
  ts_unsafe_client_created_at?: Date | null;
}

export interface TagsIngressEvaluateInput {
  tags_boxes?: { id?: string | null; str_status?: string | null }[] | null;
}

export type IngressSource = { kind: 'egress'; tags_egress_id: string } | { kind: 'supplier'; boxes: SupplierBox[] };

const given = (v: unknown) => v !== undefined && v !== null && v !== '';
const CODE_MAX = 100;

/** Checks a create body's shape and says where its boxes come from; every problem at once, naming the fields. */
export function ingressSource(input: TagsIngressInput): IngressSource {
  const check = new Checker();
  if (given(input.id)) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  if (given(input.operator_user_id)) check.when(!isUuid(input.operator_user_id), 'operator_user_id', 'must be a uuid');
  const fromEgress = given(input.tags_egress_id);
  const list = input.tags_boxes !== undefined && input.tags_boxes !== null;
  const range = given(input.str_begin) || given(input.str_finish) || given(input.int_box_size);
  if ([fromEgress, list, range].filter(Boolean).length > 1) {
    check.add(fromEgress ? 'tags_egress_id' : 'tags_boxes', 'give one of tags_egress_id, tags_boxes, or str_begin and str_finish');
  } else if (!fromEgress && !list && !range) check.add('tags_boxes', 'is required (or str_begin and str_finish, or tags_egress_id)');
  let source: IngressSource | null = null;
  if (fromEgress) {
    check.when(!isUuid(input.tags_egress_id), 'tags_egress_id', 'must be a uuid');
    source = { kind: 'egress', tags_egress_id: input.tags_egress_id! };
  } else if (list) source = { kind: 'supplier', boxes: listedBoxes(check, input.tags_boxes!) };
  else if (range) source = { kind: 'supplier', boxes: splitBoxes(check, input) };
  check.throwIfAny();
  if (source!.kind === 'supplier') conflictsWithin(source!.boxes);
  return source!;
}

function listedBoxes(check: Checker, items: TagsIngressBoxInput[]): SupplierBox[] {
  if (!Array.isArray(items) || items.length === 0) return (check.add('tags_boxes', 'must list at least one box'), []);
  if (items.length > MAX_BOXES) return (check.add('tags_boxes', `at most ${MAX_BOXES} boxes in one ingress`), []);
  const boxes: SupplierBox[] = [];
  let total = 0n;
  items.forEach((item, i) => {
    const field = `tags_boxes[${i}]`;
    if (given(item?.id)) check.when(!isUuid(item.id), `${field}.id`, 'must be a uuid');
    const code = typeof item?.str_code === 'string' ? item.str_code.trim() : null;
    if (code) check.when(code.length > CODE_MAX, `${field}.str_code`, `must be at most ${CODE_MAX} characters`);
    const size = checkRange(check, field, item?.str_begin, item?.str_finish);
    if (size === null) return;
    total += size;
    boxes.push({ id: item.id?.toLowerCase() || null, str_code: code || defaultBoxCode(item.str_begin!, item.str_finish!), str_begin: item.str_begin!, str_finish: item.str_finish!, int_quantity: Number(size), field });
  });
  check.when(total > BigInt(MAX_RANGE), 'tags_boxes', `one ingress brings at most ${MAX_RANGE} codes`);
  return boxes;
}

function splitBoxes(check: Checker, input: TagsIngressInput): SupplierBox[] {
  const size = checkRange(check, '', input.str_begin, input.str_finish);
  const boxSize = input.int_box_size ?? (size === null ? 1 : Number(size));
  if (!Number.isInteger(boxSize) || boxSize < 1) return (check.add('int_box_size', 'must be a positive integer'), []);
  if (size === null) return [];
  const count = Math.ceil(Number(size) / boxSize);
  if (count > MAX_BOXES) return (check.add('int_box_size', `would make ${count} boxes; at most ${MAX_BOXES} in one ingress`), []);
  return splitRange(input.str_begin!, input.str_finish!, boxSize).map((r) => ({
    id: null,
    str_code: defaultBoxCode(r.str_begin, r.str_finish),
    ...r,
    int_quantity: Number(BigInt(r.str_finish) - BigInt(r.str_begin) + 1n),
    field: '',
  }));
}

/** Two boxes of one body sharing codes, a code or an id: CONFLICT naming the later one. */
function conflictsWithin(boxes: SupplierBox[]): void {
  const fields: Record<string, string[]> = {};
  for (const [a, b] of overlapsWithin(boxes)) (fields[at(boxes[b]!, 'str_begin')] ??= []).push(`overlaps the range of ${boxes[a]!.str_code} in this request`);
  const seen = new Map<string, SupplierBox>();
  for (const box of boxes) {
    for (const key of ['str_code', 'id'] as const) {
      const value = box[key];
      if (!value) continue;
      const first = seen.get(`${key}:${value}`);
      if (first) (fields[at(box, key)] ??= []).push(`repeats ${at(first, key)}`);
      else seen.set(`${key}:${value}`, box);
    }
  }
  if (Object.keys(fields).length) throw new DomainError('CONFLICT', { fields });
}

/** The body field a box came from: `tags_boxes[2].str_begin`, or `str_begin` for a split range. */
export const at = (box: Pick<SupplierBox, 'field'>, name: string): string => (box.field ? `${box.field}.${name}` : name);

/** Tags Ingress Evaluate's shape: each item an id and ACCEPTED or REJECTED, no box twice. */
export function evaluations(input: TagsIngressEvaluateInput): { id: string; str_status: Evaluation }[] {
  const check = new Checker();
  const items = input.tags_boxes;
  if (!Array.isArray(items) || items.length === 0) check.add('tags_boxes', 'must evaluate every box of the ingress');
  else if (items.length > MAX_BOXES) check.add('tags_boxes', `at most ${MAX_BOXES} boxes`);
  else {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      check.required(`tags_boxes[${i}].id`, item?.id).required(`tags_boxes[${i}].str_status`, item?.str_status);
      if (given(item?.id) && !isUuid(item.id)) check.add(`tags_boxes[${i}].id`, 'must be a uuid');
      else if (given(item?.id) && seen.has(item.id!.toLowerCase())) check.add(`tags_boxes[${i}].id`, 'is evaluated twice');
      if (given(item?.id)) seen.add(item.id!.toLowerCase());
      if (given(item?.str_status)) check.when(!(EVALUATIONS as readonly string[]).includes(item.str_status!), `tags_boxes[${i}].str_status`, `must be one of ${EVALUATIONS.join(', ')}`);
    });
  }
  check.throwIfAny();
  return items!.map((item) => ({ id: item.id!.toLowerCase(), str_status: item.str_status as Evaluation }));
}
