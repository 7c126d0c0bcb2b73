import { isUuid } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { TAGS_EGRESS_TYPES } from './tag.rules.js';
import { MAX_BOXES } from './tags-transfer.rules.js';

/** Tags Egress Create of interface.md; each box by `{id}` or `{str_code}` (CONTRACT.md). */
export interface TagsEgressInput {
  id?: string | null;
  from_control_unit_id?: string | null;
  to_control_unit_id?: string | null;
  operator_user_id?: string | null;
  str_type?: string | null;
  tags_boxes?: { id?: string | null; str_code?: string | null }[] | null;
  ts_unsafe_client_created_at?: Date | null;
}

export interface BoxPick {
  idx: number;
  id: string | null;
  code: string | null;
}

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Shape only (from_control_unit_id is checked by workUnit): every problem at once, naming the fields. */
export function egressShape(input: TagsEgressInput): { type: 'TRANSFER' | 'RETURN'; picks: BoxPick[] } {
  const check = new Checker();
  for (const f of ['id', 'operator_user_id'] as const) if (given(input[f])) check.when(!isUuid(input[f]), f, 'must be a uuid');
  check.required('to_control_unit_id', input.to_control_unit_id);
  if (given(input.to_control_unit_id)) {
    if (!isUuid(input.to_control_unit_id)) check.add('to_control_unit_id', 'must be a uuid');
    else check.when(input.to_control_unit_id === input.from_control_unit_id, 'to_control_unit_id', 'must differ from from_control_unit_id');
  }
  const type = input.str_type ?? 'TRANSFER';
  check.when(!(TAGS_EGRESS_TYPES as readonly string[]).includes(type), 'str_type', `must be one of ${TAGS_EGRESS_TYPES.join(', ')}`);
  const items = input.tags_boxes;
  const picks: BoxPick[] = [];
  if (!Array.isArray(items) || items.length === 0) check.add('tags_boxes', 'must list at least one box');
  else if (items.length > MAX_BOXES) check.add('tags_boxes', `at most ${MAX_BOXES} boxes in one egress`);
  else {
    const seen = new Map<string, number>();
    items.forEach((item, idx) => {
      const field = `tags_boxes[${idx}]`;
      const id = given(item?.id) ? item.id! : null;
      const code = typeof item?.str_code === 'string' && item.str_code.trim() ? item.str_code.trim() : null;
      if (!id && !code) return void check.add(field, 'give the id or the str_code of a box');
      if (id && !isUuid(id)) return void check.add(`${field}.id`, 'must be a uuid');
      for (const key of [id && `id:${id.toLowerCase()}`, code && `code:${code}`]) {
        if (!key) continue;
        if (seen.has(key)) check.add(field, `repeats tags_boxes[${seen.get(key)}]`);
        else seen.set(key, idx);
      }
      picks.push({ idx, id: id?.toLowerCase() ?? null, code });
    });
  }
  check.throwIfAny();
  return { type: type as 'TRANSFER' | 'RETURN', picks };
}
