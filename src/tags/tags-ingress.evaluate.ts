import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { fromStatusesSql } from './tag.rules.js';
import { TagsIngress } from './tags-ingress.entity.js';
import { BOX_TRANSITIONS, INGRESS_TRANSITIONS, boxStateError, ingressOutcome, recordStateError, type Evaluation } from './tags-transfer.rules.js';
import { boxEvents, boxRef, rowsParam, type BoxRow } from './transfer-support.js';
import { HOLDER_OF_UNIT } from '../places/unit-holder.js';

interface IngressBox extends BoxRow {
  /** What the box was before its egress (null for a supplier box). */
  str_box_status: string | null;
}

/**
 * Decides every box of a PENDING ingress in one go, set-based: the same statements for a box of
 * ten tags and for a hundred boxes of a thousand. Accepted supplier boxes get their tags
 * (AVAILABLE) and go IN_STOCK; rejected ones are DEPLETED with no tag. Accepted egress boxes and
 * their tags move to the destination as they were (IN_STOCK or OPENED, AVAILABLE); rejected ones
 * go back to the origin as they were. The egress is then RECEIVED.
 */
export async function evaluateIngress(tx: EntityManager, actor: Actor, id: string, decisions: { id: string; str_status: Evaluation }[]): Promise<TagsIngress> {
  const locked = await tx.execute<Record<string, unknown>[]>('select * from tags_ingress where id = ? for update', [id]);
  const ingress = tx.map(TagsIngress, locked[0] as never);
  if (!(INGRESS_TRANSITIONS.evaluate.from as readonly string[]).includes(ingress.str_status)) {
    throw recordStateError('the tags ingress', ingress.str_status, INGRESS_TRANSITIONS.evaluate.from, `a tags ingress ${ingress.str_status} was evaluated already`);
  }
  const boxes = await tx.execute<IngressBox[]>(
    `select tb.*, eb.str_box_status from tags_ingress_box ib join tags_box tb on tb.id = ib.tags_box_id
       left join tags_egress_box eb on eb.tags_egress_id = ? and eb.tags_box_id = ib.tags_box_id
      where ib.tags_ingress_id = ? order by tb.str_begin for update of tb`,
    [ingress.tags_egress_id, ingress.id],
  );
  checkCoverage(boxes, decisions);
  const stale = boxes.filter((b) => !(BOX_TRANSITIONS.arrive.from as readonly string[]).includes(b.str_status));
  if (stale.length) throw boxStateError('arrive', stale);

  await tx.execute(
    `update tags_ingress_box ib set str_status = x.s from jsonb_to_recordset(?::jsonb) as x(id uuid, s text) where ib.tags_ingress_id = ? and ib.tags_box_id = x.id`,
    [rowsParam(decisions.map((d) => ({ id: d.id, s: d.str_status }))), ingress.id],
  );
  if (ingress.tags_egress_id) await receiveFromEgress(tx, ingress);
  else await receiveFromSupplier(tx, ingress);

  const outcome = ingressOutcome(decisions.map((d) => d.str_status));
  ingress.str_status = outcome;
  ingress.ts_evaluated_at = new Date();
  ingress.ts_updated_at = ingress.ts_evaluated_at;
  await tx.execute('update tags_ingress set str_status = ?, ts_evaluated_at = ?, ts_updated_at = ? where id = ?', [outcome, ingress.ts_evaluated_at, ingress.ts_updated_at, ingress.id]);
  const received = ingress.tags_egress_id
    ? await tx.execute<{ id: string }[]>(`update tags_egress set str_status = 'RECEIVED', ts_updated_at = now() where id = ? and str_status = 'SENT' returning id`, [ingress.tags_egress_id])
    : [];
  if (ingress.tags_egress_id && !received.length) throw recordStateError('the tags egress', 'not SENT', ['SENT'], 'the tags egress of this ingress is no longer SENT');

  await appendEvents(tx, events(actor, ingress, boxes, decisions));
  return ingress;
}

/** The body names each box of the ingress once, and nothing else. */
function checkCoverage(boxes: IngressBox[], decisions: { id: string }[]): void {
  const ours = new Set(boxes.map((b) => b.id));
  const fields: Record<string, string[]> = {};
  decisions.forEach((d, i) => {
    if (!ours.has(d.id)) fields[`tags_boxes[${i}].id`] = ['is not a box of this tags ingress'];
  });
  const named = new Set(decisions.map((d) => d.id));
  const missing = boxes.filter((b) => !named.has(b.id));
  if (missing.length) fields.tags_boxes = [`must evaluate every box of the ingress; missing ${missing.slice(0, 20).map((b) => b.str_code).join(', ')}${missing.length > 20 ? ` and ${missing.length - 20} more` : ''}`];
  if (Object.keys(fields).length) throw DomainError.validation(fields);
}

/** Accepted: their tags are made now, AVAILABLE at the unit, and the box is IN_STOCK. Rejected: DEPLETED, codes spent. */
async function receiveFromSupplier(tx: EntityManager, ingress: TagsIngress): Promise<void> {
  await tx.execute(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id, holder_organization_id, holder_federative_unit)
     select gen_random_uuid(), lpad((tb.str_begin::bigint + g)::text, 15, '0'), 'AVAILABLE', tb.id, tb.control_unit_id, tb.holder_organization_id, tb.holder_federative_unit
       from tags_ingress_box ib join tags_box tb on tb.id = ib.tags_box_id
       cross join lateral generate_series(0, tb.int_quantity - 1) as g
      where ib.tags_ingress_id = ? and ib.str_status = 'ACCEPTED'`,
    [ingress.id],
  );
  await tx.execute(
    `update tags_box tb set str_status = case ib.str_status when 'ACCEPTED' then '${BOX_TRANSITIONS.arrive.to}' else '${BOX_TRANSITIONS.reject.to}' end, ts_updated_at = now()
       from tags_ingress_box ib where ib.tags_ingress_id = ? and ib.tags_box_id = tb.id`,
    [ingress.id],
  );
}

/** Accepted boxes move to the destination; rejected ones stay at the origin. Both are again what they were before the egress. */
async function receiveFromEgress(tx: EntityManager, ingress: TagsIngress): Promise<void> {
  await tx.execute(
    `update tag t set str_status = 'AVAILABLE', ts_updated_at = now(),
            last_control_unit_id = case ib.str_status when 'ACCEPTED' then ?::uuid else t.last_control_unit_id end,
            holder_organization_id = case ib.str_status when 'ACCEPTED' then uh.holder_organization_id else t.holder_organization_id end,
            holder_federative_unit = case ib.str_status when 'ACCEPTED' then uh.holder_federative_unit else t.holder_federative_unit end
       from tags_ingress_box ib, ${HOLDER_OF_UNIT} where ib.tags_ingress_id = ? and t.tags_box_id = ib.tags_box_id and t.str_status in (${fromStatusesSql('receive')})`,
    [ingress.to_control_unit_id, ingress.to_control_unit_id, ingress.id],
  );
  await tx.execute(
    `update tags_box tb set str_status = eb.str_box_status, ts_updated_at = now(),
            control_unit_id = case ib.str_status when 'ACCEPTED' then ?::uuid else tb.control_unit_id end
       from tags_ingress_box ib join tags_egress_box eb on eb.tags_box_id = ib.tags_box_id and eb.tags_egress_id = ?
      where ib.tags_ingress_id = ? and ib.tags_box_id = tb.id`,
    [ingress.to_control_unit_id, ingress.tags_egress_id, ingress.id],
  );
}

function events(actor: Actor, ingress: TagsIngress, boxes: IngressBox[], decisions: { id: string; str_status: Evaluation }[]): EventInput[] {
  const decided = new Map(decisions.map((d) => [d.id, d.str_status]));
  const fromEgress = Boolean(ingress.tags_egress_id);
  const after = (b: IngressBox, accepted: boolean) =>
    fromEgress ? { str_status: b.str_box_status, control_unit_id: accepted ? ingress.to_control_unit_id : b.control_unit_id } : { str_status: accepted ? BOX_TRANSITIONS.arrive.to : BOX_TRANSITIONS.reject.to };
  const refs = { tags_ingress_id: ingress.id, tags_egress_id: ingress.tags_egress_id, to_control_unit_id: ingress.to_control_unit_id };
  const byDecision = (d: Evaluation) => boxes.filter((b) => decided.get(b.id) === d).map((b) => ({ id: b.id, changes: after(b, d === 'ACCEPTED') }));
  const list: EventInput[] = [
    {
      type: 'TAGS_INGRESS_EVALUATED',
      recordType: 'TagsIngress',
      recordId: ingress.id,
      actorId: actor.userId,
      payload: { changes: { str_status: ingress.str_status, tags_boxes: boxes.map((b) => ({ ...boxRef(b), str_status: decided.get(b.id) })) }, refs },
    },
    ...boxEvents(actor, 'TAGS_BOX_ACCEPTED', byDecision('ACCEPTED'), refs),
    ...boxEvents(actor, 'TAGS_BOX_REJECTED', byDecision('REJECTED'), refs),
  ];
  if (fromEgress) {
    list.push({ type: 'TAGS_EGRESS_RECEIVED', recordType: 'TagsEgress', recordId: ingress.tags_egress_id!, actorId: actor.userId, payload: { changes: { str_status: 'RECEIVED' }, refs } });
  }
  return list;
}
