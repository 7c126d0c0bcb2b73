import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import type { EventInput } from '../shared/events.js';
import { tagsPolicy } from './tags.policy.js';

/** A box as the transfer events and checks see it. */
export interface BoxRow {
  id: string;
  str_code: string;
  str_begin: string;
  str_finish: string;
  int_quantity: number;
  str_status: string;
  control_unit_id: string;
}

/** What an event payload says of a box: enough to find its codes without reading the tags. */
export const boxRef = (b: Pick<BoxRow, 'id' | 'str_code' | 'str_begin' | 'str_finish'>) => ({ id: b.id, str_code: b.str_code, str_begin: b.str_begin, str_finish: b.str_finish });

/** One event per box the operation changed (never one per tag). */
export function boxEvents(actor: Actor, type: string, boxes: readonly { id: string; changes: Record<string, unknown> }[], refs: Record<string, unknown>): EventInput[] {
  return boxes.map((b) => ({ type, recordType: 'TagsBox', recordId: b.id, actorId: actor.userId, payload: { changes: b.changes, refs } }));
}

/** JSON for `jsonb_to_recordset(?::jsonb)`: a list in one parameter, however long, so one statement serves any number of boxes. */
export const rowsParam = (rows: readonly object[]): string => JSON.stringify(rows);

/** The caller records field work at this unit (it already sees a record there): 403 otherwise. */
export async function canWorkAt(em: EntityManager, actor: Actor, unitId: string): Promise<void> {
  const rows = await em.execute<{ organization_id: string }[]>('select e.organization_id from control_unit cu join establishment e on e.id = cu.establishment_id where cu.id = ?', [unitId]);
  tagsPolicy.canWork(actor, rows[0]!);
}
