import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.js';
import type { BoxPick } from './tags-egress.input.js';
import { BOX_TRANSITIONS, boxStateError } from './tags-transfer.rules.js';
import { rowsParam, type BoxRow } from './transfer-support.js';

export interface PickedBox extends BoxRow {
  idx: number;
  int_available: number;
  int_reserved: number;
}

/**
 * The boxes an egress names, at the origin, locked, with their tag counts: one statement however
 * many. A box elsewhere reads as absent (the caller may not see it); a box not IN_STOCK or OPENED
 * is INVALID_STATE; one holding RESERVED tags, or none AVAILABLE, is RULE_VIOLATED.
 */
export async function pickBoxes(tx: EntityManager, unitId: string, picks: BoxPick[]): Promise<PickedBox[]> {
  const rows = await tx.execute<PickedBox[]>(
    `with x as (select * from jsonb_to_recordset(?::jsonb) as x(idx int, id uuid, code text))
     select x.idx, tb.*, c.int_available, c.int_reserved
       from x join tags_box tb on tb.id = coalesce(x.id, (select b.id from tags_box b where b.str_code = x.code)) and (x.code is null or tb.str_code = x.code)
       cross join lateral (select count(*) filter (where t.str_status = 'AVAILABLE' and t.last_control_unit_id = tb.control_unit_id)::int as int_available,
                                  count(*) filter (where t.str_status = 'RESERVED')::int as int_reserved
                             from tag t where t.tags_box_id = tb.id) c
      where tb.control_unit_id = ?
      order by x.idx
      for update of tb`,
    [rowsParam(picks), unitId],
  );
  const found = new Map(rows.map((r) => [r.idx, r]));
  const fields: Record<string, string[]> = {};
  const first = new Map<string, number>();
  for (const p of picks) {
    const box = found.get(p.idx);
    if (!box) fields[`tags_boxes[${p.idx}]${p.id ? '.id' : '.str_code'}`] = [p.id && p.code ? 'names no box with this id and str_code at from_control_unit_id' : 'no such box at from_control_unit_id'];
    else if (first.has(box.id)) fields[`tags_boxes[${p.idx}]`] = [`is the same box as tags_boxes[${first.get(box.id)}]`];
    else first.set(box.id, p.idx);
  }
  if (Object.keys(fields).length) throw DomainError.validation(fields);
  const unsendable = rows.filter((b) => !(BOX_TRANSITIONS.send.from as readonly string[]).includes(b.str_status));
  if (unsendable.length) throw boxStateError('send', unsendable);
  const reserved = rows.filter((b) => b.int_reserved > 0);
  if (reserved.length) {
    throw new DomainError('RULE_VIOLATED', {
      rule: 'TAGS_BOX_HAS_RESERVED_TAGS',
      message: 'a box holding RESERVED tags stays: release the reservation first',
      tags_boxes: reserved.map((b) => ({ str_code: b.str_code, int_reserved: b.int_reserved })),
    });
  }
  const empty = rows.filter((b) => b.int_available === 0);
  if (empty.length) throw new DomainError('RULE_VIOLATED', { rule: 'TAGS_BOX_WITHOUT_AVAILABLE_TAGS', tags_boxes: empty.map((b) => ({ str_code: b.str_code })) });
  return rows;
}
