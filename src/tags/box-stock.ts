import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventInput } from '../shared/events.js';

export interface BoxChange {
  id: string;
  str_status: 'OPENED' | 'DEPLETED';
  previous: string;
}

/**
 * After tags of boxes in stock were used (applied, put on by a replacement, written off): a box
 * with none of its tags left AVAILABLE or RESERVED is DEPLETED, one with some left is OPENED
 * (DOMAIN.md, "Tags Box"). One statement for every box the tags came from; answers the boxes
 * that changed and what each was.
 */
export async function settleBoxes(tx: EntityManager, tagIds: string[], now: Date): Promise<BoxChange[]> {
  return tx.execute<BoxChange[]>(
    `with next as (
       select b.id, b.str_status as previous,
              case when exists (select 1 from tag s where s.tags_box_id = b.id and s.str_status in ('AVAILABLE', 'RESERVED'))
                   then 'OPENED' else 'DEPLETED' end as str_status
         from tags_box b
        where b.id in (select t.tags_box_id from tag t where t.id = any(array[?]::uuid[]))
          and b.str_status in ('IN_STOCK', 'OPENED'))
     update tags_box b set str_status = next.str_status, ts_updated_at = ?
       from next where next.id = b.id and b.str_status <> next.str_status
     returning b.id, b.str_status, next.previous`,
    [tagIds, now],
  );
}

/** TAGS_BOX_OPENED / TAGS_BOX_DEPLETED, one per box that changed, naming the operation that changed it. */
export const boxEvents = (boxes: BoxChange[], actorId: string, refs: Record<string, unknown>, occurredAt: Date): EventInput[] =>
  boxes.map((b) => ({ type: `TAGS_BOX_${b.str_status}`, recordType: 'TagsBox', recordId: b.id, actorId, occurredAt, payload: { changes: { str_status: b.str_status }, refs } }));
