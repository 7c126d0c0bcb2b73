import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { ISO_Z, UUID_RE } from './helpers/places.js';
import { makeUnit, stockTags, type TestUnit } from './helpers/tags.js';
import { count } from './helpers/db.js';
import { createEgress, createIngress, evaluate, ranges, tagStatuses, type Box } from './helpers/transfer.js';

const app = useApp();

const db = () => app.service.orm.em.fork();

const EGRESS_KEYS = [
  'id', 'str_type', 'str_status', 'tags_boxes', 'ts_created_at', 'ts_updated_at', 'from_control_unit', 'to_control_unit', 'from_control_unit_id', 'to_control_unit_id', 'ts_unsafe_client_created_at',
].sort();
const EGRESS_PARTIAL_KEYS = [
  'id', 'str_type', 'str_status', 'tags_boxes', 'ts_created_at', 'ts_updated_at', 'from_control_unit_id', 'to_control_unit_id',
  'str_from_control_unit_code', 'str_from_establishment_name', 'str_to_control_unit_code', 'str_to_establishment_name', 'ts_unsafe_client_created_at',
].sort();
const UNIT_READ_ONLY_KEYS = ['id', 'str_code', 'str_responsible_user_name', 'ts_created_at', 'ts_updated_at'].sort();
const EGRESS_BOX_KEYS = ['id', 'str_code', 'str_begin', 'str_finish', 'int_quantity', 'str_status', 'str_box_status'].sort();

/** An origin organization with a unit and stock, and a destination organization with a unit. */
async function setup(boxes = 2, size = 10) {
  const owner = await member(app);
  const origin = await makeUnit(app, owner.org.id);
  const dest = await member(app);
  const destination = await makeUnit(app, dest.org.id);
  const stock = [];
  for (let i = 0; i < boxes; i++) stock.push(await stockTags(app, origin.unitId, size));
  return { owner, origin, dest, destination, stock };
}

const post = (token: string, body: unknown) => app.call('POST', '/api/tags-egress', { token, body });
const cancel = (token: string, id: string) => app.call('POST', `/api/tags-egress/${id}/cancel`, { token });
const sendBody = (from: TestUnit, to: TestUnit, boxIds: string[], over: Record<string, unknown> = {}) => ({
  from_control_unit_id: from.unitId,
  to_control_unit_id: to.unitId,
  tags_boxes: boxIds.map((id) => ({ id })),
  ...over,
});
const box = async (id: string) => (await db().execute<{ str_status: string; control_unit_id: string }[]>('select str_status, control_unit_id from tags_box where id = ?', [id]))[0]!;
const tagsAt = (unitId: string, status: string) => count(app, 'tag where last_control_unit_id = ? and str_status = ?', [unitId, status]);

describe('a box from the supplier to another organization and back', () => {
  test('supplier → ingress (one box rejected) → egress → the destination\'s ingress (one box rejected) → where every tag and box ends', async () => {
    const owner = await member(app);
    const origin = await makeUnit(app, owner.org.id);
    const dest = await member(app);
    const destination = await makeUnit(app, dest.org.id);

    const supplied = await createIngress(app, owner.access, { to_control_unit_id: origin.unitId, tags_boxes: ranges(3, 20) });
    const received = await evaluate(app, owner.access, supplied, (i) => (i === 2 ? 'REJECTED' : 'ACCEPTED'));
    expect(received.str_status).toBe('PARTIALLY_ACCEPTED');
    expect(await tagsAt(origin.unitId, 'AVAILABLE')).toBe(40);
    const [kept, returned] = received.tags_boxes.filter((b) => b.str_status === 'ACCEPTED');

    const egress = await createEgress(app, owner.access, { ...sendBody(origin, destination, [kept!.id]), tags_boxes: [{ id: kept!.id }, { str_code: returned!.str_code }] });
    expect(egress).toMatchObject({ str_status: 'SENT', str_type: 'TRANSFER', from_control_unit_id: origin.unitId, to_control_unit_id: destination.unitId });
    expect(egress.tags_boxes.map((b) => [b.id, b.str_status, b.str_box_status])).toEqual([kept, returned].map((b) => [b!.id, 'IN_TRANSIT', 'IN_STOCK']));
    expect(await tagsAt(origin.unitId, 'IN_TRANSIT')).toBe(40);
    expect(await tagsAt(origin.unitId, 'AVAILABLE')).toBe(0);

    // The destination sees it and takes it in: the egress's boxes become the ingress's pending boxes.
    const seen = await app.call('GET', `/api/tags-egress/${egress.id}`, { token: dest.access });
    expect(seen.status).toBe(200);
    const arriving = await createIngress(app, dest.access, { to_control_unit_id: destination.unitId, tags_egress_id: egress.id });
    expect(arriving).toMatchObject({ str_status: 'PENDING', tags_egress_id: egress.id });
    expect(arriving.tags_boxes.map((b) => [b.id, b.str_status, b.str_box_status])).toEqual([kept, returned].map((b) => [b!.id, 'PENDING', 'IN_TRANSIT']));
    const done = await evaluate(app, dest.access, arriving, (i) => (arriving.tags_boxes[i]!.id === returned!.id ? 'REJECTED' : 'ACCEPTED'));
    expect(done.str_status).toBe('PARTIALLY_ACCEPTED');

    // Accepted: its box and tags at the destination, as they were. Rejected: back at the origin, as they were.
    expect(await box(kept!.id)).toEqual({ str_status: 'IN_STOCK', control_unit_id: destination.unitId });
    expect(await box(returned!.id)).toEqual({ str_status: 'IN_STOCK', control_unit_id: origin.unitId });
    expect(await tagStatuses(app, kept!.id)).toEqual({ AVAILABLE: 20 });
    expect(await tagsAt(destination.unitId, 'AVAILABLE')).toBe(20);
    expect(await tagsAt(origin.unitId, 'AVAILABLE')).toBe(20);
    expect(await count(app, `tag where tags_box_id in (?) and str_status = 'IN_TRANSIT'`, [[kept!.id, returned!.id]])).toBe(0);
    const after = await app.call('GET', `/api/tags-egress/${egress.id}`, { token: owner.access });
    expect(after.body.data.str_status).toBe('RECEIVED');
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where record_id = ? order by seq`, [egress.id]);
    expect(events.map((e) => e.str_type)).toEqual(['TAGS_EGRESS_SENT', 'TAGS_EGRESS_RECEIVED']);
    const boxEvents = await db().execute<{ str_type: string }[]>(`select str_type from event where record_id = ? order by seq`, [kept!.id]);
    expect(boxEvents.map((e) => e.str_type)).toEqual(['TAGS_BOX_CREATED', 'TAGS_BOX_ACCEPTED', 'TAGS_BOX_SENT', 'TAGS_BOX_ACCEPTED']);
    // The tags now belong to the destination's reads, not the origin's.
    const list = await app.call('POST', '/api/tags/search', { token: dest.access, body: { tags_box_id: kept!.id } });
    expect(list.body.meta.int_total_results).toBe(20);
    const gone = await app.call('POST', '/api/tags/search', { token: owner.access, body: { tags_box_id: kept!.id } });
    expect(gone.body.meta.int_total_results).toBe(0);
    // Cancelling once received is refused.
    const late = await cancel(owner.access, egress.id);
    expect(late.status).toBe(422);
    expect(late.body.error).toBe('INVALID_STATE');
    expect(late.body.detail).toMatchObject({ str_status: 'RECEIVED', allowed: ['SENT'] });
  });

  test('an OPENED box goes as it was: only its AVAILABLE tags travel, it is OPENED at the destination', async () => {
    const { owner, origin, dest, destination, stock } = await setup(1, 10);
    const [opened] = stock;
    await db().execute(`update tag set str_status = 'WRITTEN_OFF', ts_writeoff_at = now(), str_writeoff_reason = 'DAMAGED' where id = ?`, [opened!.tagIds[0]]);
    await db().execute(`update tags_box set str_status = 'OPENED' where id = ?`, [opened!.boxId]);
    const egress = await createEgress(app, owner.access, sendBody(origin, destination, [opened!.boxId], { str_type: 'RETURN' }));
    expect(egress.str_type).toBe('RETURN');
    expect(egress.tags_boxes[0]).toMatchObject({ str_status: 'IN_TRANSIT', str_box_status: 'OPENED' });
    expect(await tagStatuses(app, opened!.boxId)).toEqual({ IN_TRANSIT: 9, WRITTEN_OFF: 1 });
    const ingress = await createIngress(app, dest.access, { to_control_unit_id: destination.unitId, tags_egress_id: egress.id });
    const done = await evaluate(app, dest.access, ingress);
    expect(done.str_status).toBe('EVALUATED');
    expect(done.tags_boxes[0]).toMatchObject({ str_status: 'ACCEPTED', str_box_status: 'OPENED' });
    expect(await box(opened!.boxId)).toEqual({ str_status: 'OPENED', control_unit_id: destination.unitId });
    expect(await tagsAt(destination.unitId, 'AVAILABLE')).toBe(9);
    expect(await tagsAt(origin.unitId, 'WRITTEN_OFF')).toBe(1);
  });
});

describe('POST /api/tags-egress', () => {
  test('the documented records: Tags Egress on create and read, Tags Egress Partial Data in the index; the other unit read-only', async () => {
    const { owner, origin, dest, destination, stock } = await setup(2, 5);
    const at = '2026-02-03T04:05:06.000Z';
    const egress = await createEgress(app, owner.access, sendBody(origin, destination, stock.map((s) => s.boxId), { ts_unsafe_client_created_at: at }));
    expect(Object.keys(egress).sort()).toEqual(EGRESS_KEYS);
    expect(egress.id).toMatch(UUID_RE);
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(egress[f]).toMatch(ISO_Z);
    expect(egress.ts_unsafe_client_created_at).toBe(at);
    for (const side of ['from_control_unit', 'to_control_unit']) expect(Object.keys(egress[side] as object).sort()).toEqual(UNIT_READ_ONLY_KEYS);
    expect(egress.to_control_unit).toMatchObject({ id: destination.unitId, str_code: destination.code, str_responsible_user_name: null });
    for (const b of egress.tags_boxes) expect(Object.keys(b).sort()).toEqual(EGRESS_BOX_KEYS);
    const read = await app.call('GET', `/api/tags-egress/${egress.id}`, { token: owner.access });
    expect(read.body.data).toEqual(egress);
    for (const token of [owner.access, dest.access]) {
      const index = await app.call('GET', `/api/tags-egress?from_control_unit_id=${origin.unitId}`, { token });
      expect(index.body.meta.int_total_results).toBe(1);
      const [row] = index.body.data;
      expect(Object.keys(row).sort()).toEqual(EGRESS_PARTIAL_KEYS);
      expect(row).toMatchObject({
        id: egress.id,
        str_from_control_unit_code: origin.code,
        str_from_establishment_name: `Fazenda ${origin.code}`,
        str_to_control_unit_code: destination.code,
        str_to_establishment_name: `Fazenda ${destination.code}`,
        ts_unsafe_client_created_at: at,
      });
    }
    // The sender reads the destination's codes and names through the egress, never the unit's record.
    expect((await app.call('GET', `/api/control-units/${destination.unitId}`, { token: owner.access })).status).toBe(404);
    const deep = await app.graphql('query($id: UUID!) { tagsEgress(id: $id) { to_control_unit { establishment { str_document } } } }', { id: egress.id }, owner.access);
    expect(deep.body.errors[0].message).toMatch(/Cannot query field "establishment"/);
    const events = await db().execute<{ str_type: string; record_id: string }[]>(`select str_type, record_id from event where record_id in (?) and str_type like 'TAGS_%SENT'`, [[egress.id, ...stock.map((s) => s.boxId)]]);
    expect(events.map((e) => e.str_type).sort()).toEqual(['TAGS_BOX_SENT', 'TAGS_BOX_SENT', 'TAGS_EGRESS_SENT']);
  });

  test('refusals name the box: not at the origin (422), not sendable (INVALID_STATE), holding RESERVED tags or none AVAILABLE (RULE_VIOLATED); nothing moves', async () => {
    const { owner, origin, destination, stock } = await setup(2, 10);
    const [good, other] = stock;
    const elsewhere = await stockTags(app, destination.unitId, 5);
    const shape: [unknown, string[]][] = [
      [{ to_control_unit_id: destination.unitId, tags_boxes: [{ id: good!.boxId }] }, ['from_control_unit_id']],
      [sendBody(origin, destination, []), ['tags_boxes']],
      [{ ...sendBody(origin, destination, [good!.boxId]), to_control_unit_id: origin.unitId }, ['to_control_unit_id']],
      [{ ...sendBody(origin, destination, [good!.boxId]), to_control_unit_id: randomUUID() }, ['to_control_unit_id']],
      [sendBody(origin, destination, [good!.boxId], { str_type: 'GIFT' }), ['str_type']],
      [sendBody(origin, destination, [good!.boxId, good!.boxId]), ['tags_boxes[1]']],
      [{ ...sendBody(origin, destination, []), tags_boxes: [{ id: good!.boxId }, { str_code: `BOX-${good!.codes[0]}` }] }, ['tags_boxes[1]']],
      [{ ...sendBody(origin, destination, []), tags_boxes: [{}, { id: 'nope' }] }, ['tags_boxes[0]', 'tags_boxes[1].id']],
      [sendBody(origin, destination, [good!.boxId, elsewhere.boxId]), ['tags_boxes[1].id']],
      [{ ...sendBody(origin, destination, []), tags_boxes: [{ str_code: 'NO-SUCH-BOX' }] }, ['tags_boxes[0].str_code']],
      [{ ...sendBody(origin, destination, []), tags_boxes: [{ id: good!.boxId, str_code: `BOX-${other!.codes[0]}` }] }, ['tags_boxes[0].id']],
    ];
    for (const [body, fields] of shape) {
      const res = await post(owner.access, body);
      expect({ body, status: res.status, error: res.body.error, fields: Object.keys(res.body.detail?.fields ?? {}).sort() }).toEqual({ body, status: 422, error: 'VALIDATION_FAILED', fields: fields.sort() });
    }
    await db().execute(`update tags_box set str_status = 'DEPLETED' where id = ?`, [other!.boxId]);
    const depleted = await post(owner.access, sendBody(origin, destination, [good!.boxId, other!.boxId]));
    expect(depleted.status).toBe(422);
    expect(depleted.body.error).toBe('INVALID_STATE');
    expect(depleted.body.detail).toMatchObject({ allowed: ['IN_STOCK', 'OPENED'], tags_boxes: [{ str_code: `BOX-${other!.codes[0]}`, str_status: 'DEPLETED' }] });
    await db().execute(`update tags_box set str_status = 'OPENED' where id = ?`, [other!.boxId]);
    const reservation = randomUUID();
    await db().execute(`insert into tags_reservation (id, control_unit_id, str_name, int_quantity) values (?, ?, 'Lote', 2)`, [reservation, origin.unitId]);
    await db().execute(`update tag set str_status = 'RESERVED', tags_reservation_id = ? where id in (?)`, [reservation, other!.tagIds.slice(0, 2)]);
    const reserved = await post(owner.access, sendBody(origin, destination, [good!.boxId, other!.boxId]));
    expect(reserved.status).toBe(422);
    expect(reserved.body.error).toBe('RULE_VIOLATED');
    expect(reserved.body.detail).toMatchObject({ rule: 'TAGS_BOX_HAS_RESERVED_TAGS', tags_boxes: [{ str_code: `BOX-${other!.codes[0]}`, int_reserved: 2 }] });
    await db().execute(`update tag set str_status = 'WRITTEN_OFF', tags_reservation_id = null, ts_writeoff_at = now() where tags_box_id = ?`, [other!.boxId]);
    const empty = await post(owner.access, sendBody(origin, destination, [good!.boxId, other!.boxId]));
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toMatchObject({ rule: 'TAGS_BOX_WITHOUT_AVAILABLE_TAGS' });
    // The good box went nowhere.
    expect(await count(app, 'tags_egress where from_control_unit_id = ?', [origin.unitId])).toBe(0);
    expect(await box(good!.boxId)).toEqual({ str_status: 'IN_STOCK', control_unit_id: origin.unitId });
    expect(await tagStatuses(app, good!.boxId)).toEqual({ AVAILABLE: 10 });
    // A box already on its way cannot leave again.
    await createEgress(app, owner.access, sendBody(origin, destination, [good!.boxId]));
    const twice = await post(owner.access, sendBody(origin, destination, [good!.boxId]));
    expect(twice.status).toBe(422);
    expect(twice.body.detail).toMatchObject({ tags_boxes: [{ str_status: 'IN_TRANSIT' }] });
  });

  test('a VIEWER is refused 403, a stranger cannot send from a unit it does not see (422); two senders of one box: one wins', async () => {
    const { owner, origin, destination, stock } = await setup(1, 10);
    const viewer = await member(app, 'VIEWER', owner.org);
    expect((await post(viewer.access, sendBody(origin, destination, [stock[0]!.boxId]))).status).toBe(403);
    const stranger = await member(app);
    const invisible = await post(stranger.access, sendBody(origin, destination, [stock[0]!.boxId]));
    expect(invisible.status).toBe(422);
    expect(Object.keys(invisible.body.detail.fields)).toEqual(['from_control_unit_id']);
    const results = await Promise.all([0, 1, 2].map(() => post(owner.access, sendBody(origin, destination, [stock[0]!.boxId]))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422]);
    expect(await count(app, 'tags_egress_box where tags_box_id = ?', [stock[0]!.boxId])).toBe(1);
  });

  test('a client id: the same body again is a replay, another body a 422 CONFLICT', async () => {
    const { owner, origin, destination, stock } = await setup(1, 10);
    const id = randomUUID();
    const body = sendBody(origin, destination, [stock[0]!.boxId], { id, ts_unsafe_client_created_at: '2026-05-06T07:08:09.000Z' });
    // Sent upper-case, stored and answered lower-case; the same body with the id either way is the same record.
    const first = await createEgress(app, owner.access, { ...body, id: id.toUpperCase() });
    expect(first.id).toBe(id);
    expect(await createEgress(app, owner.access, body)).toEqual(first);
    const other = await post(owner.access, { ...body, str_type: 'RETURN' });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
    expect(await count(app, 'tags_egress where id = ?', [id])).toBe(1);
    expect(await count(app, `event where record_id = ? and str_type = 'TAGS_EGRESS_SENT'`, [id])).toBe(1);
  });

  test('sending and cancelling a box of 1,000 tags run the same statements as a box of 10', async () => {
    const statements = async (size: number) => {
      const { owner, origin, destination, stock } = await setup(1, size);
      const sent = await post(owner.access, sendBody(origin, destination, [stock[0]!.boxId]));
      expect(sent.status).toBe(201);
      const cancelled = await cancel(owner.access, sent.body.data.id);
      expect(cancelled.status).toBe(200);
      expect(await tagStatuses(app, stock[0]!.boxId)).toEqual({ AVAILABLE: size });
      return [sent.sql, cancelled.sql];
    };
    const small = await statements(10);
    expect(await statements(1000)).toEqual(small);
  });
});

describe('POST /api/tags-egress/:id/cancel', () => {
  test('SENT → CANCELLED by the origin: boxes back as they were (IN_STOCK, OPENED), tags AVAILABLE; again is INVALID_STATE', async () => {
    const { owner, origin, destination, stock } = await setup(2, 10);
    await db().execute(`update tags_box set str_status = 'OPENED' where id = ?`, [stock[1]!.boxId]);
    const egress = await createEgress(app, owner.access, sendBody(origin, destination, stock.map((s) => s.boxId)));
    const res = await cancel(owner.access, egress.id);
    expect(res.status).toBe(200);
    expect(res.body.data.str_status).toBe('CANCELLED');
    const statusOf = Object.fromEntries(res.body.data.tags_boxes.map((b: Box) => [b.id, b.str_status]));
    expect(statusOf).toEqual({ [stock[0]!.boxId]: 'IN_STOCK', [stock[1]!.boxId]: 'OPENED' });
    expect(await box(stock[0]!.boxId)).toEqual({ str_status: 'IN_STOCK', control_unit_id: origin.unitId });
    expect(await box(stock[1]!.boxId)).toEqual({ str_status: 'OPENED', control_unit_id: origin.unitId });
    expect(await tagsAt(origin.unitId, 'AVAILABLE')).toBe(20);
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where record_id in (?) and str_type in ('TAGS_EGRESS_CANCELLED', 'TAGS_BOX_RETURNED')`, [[egress.id, ...stock.map((s) => s.boxId)]]);
    expect(events.map((e) => e.str_type).sort()).toEqual(['TAGS_BOX_RETURNED', 'TAGS_BOX_RETURNED', 'TAGS_EGRESS_CANCELLED']);
    const again = await cancel(owner.access, egress.id);
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('INVALID_STATE');
    expect(again.body.detail).toMatchObject({ str_status: 'CANCELLED', allowed: ['SENT'] });
    // A cancelled egress cannot be received; the boxes may leave again.
    const refused = await app.call('POST', '/api/tags-ingress', { token: owner.access, body: { to_control_unit_id: origin.unitId, tags_egress_id: egress.id } });
    expect(refused.status).toBe(422);
    await createEgress(app, owner.access, sendBody(origin, destination, [stock[0]!.boxId]));
  });

  test('refused while the destination\'s ingress is pending (RULE_VIOLATED); the destination may not cancel (403), a stranger gets 404', async () => {
    const { owner, origin, dest, destination, stock } = await setup(1, 10);
    const egress = await createEgress(app, owner.access, sendBody(origin, destination, [stock[0]!.boxId]));
    expect((await cancel(dest.access, egress.id)).status).toBe(403);
    const stranger = await member(app);
    expect((await cancel(stranger.access, egress.id)).status).toBe(404);
    expect((await app.call('GET', `/api/tags-egress/${egress.id}`, { token: stranger.access })).status).toBe(404);
    await createIngress(app, dest.access, { to_control_unit_id: destination.unitId, tags_egress_id: egress.id });
    const res = await cancel(owner.access, egress.id);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('RULE_VIOLATED');
    expect(res.body.detail.rule).toBe('TAGS_EGRESS_BEING_RECEIVED');
    expect(await tagStatuses(app, stock[0]!.boxId)).toEqual({ IN_TRANSIT: 10 });
  });
});

describe('a tags ingress from a tags egress', () => {
  test('refused when the egress is addressed elsewhere (RULE_VIOLATED), already being received (CONFLICT), unseen (422); nothing written', async () => {
    const { owner, origin, dest, destination, stock } = await setup(1, 10);
    const egress = await createEgress(app, owner.access, sendBody(origin, destination, [stock[0]!.boxId]));
    const other = await makeUnit(app, dest.org.id);
    const elsewhere = await app.call('POST', '/api/tags-ingress', { token: dest.access, body: { to_control_unit_id: other.unitId, tags_egress_id: egress.id } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error).toBe('RULE_VIOLATED');
    expect(elsewhere.body.detail.rule).toBe('TAGS_EGRESS_FOR_ANOTHER_UNIT');
    const stranger = await member(app);
    const strangerUnit = await makeUnit(app, stranger.org.id);
    const unseen = await app.call('POST', '/api/tags-ingress', { token: stranger.access, body: { to_control_unit_id: strangerUnit.unitId, tags_egress_id: egress.id } });
    expect(unseen.status).toBe(422);
    expect(Object.keys(unseen.body.detail.fields)).toEqual(['tags_egress_id']);
    await createIngress(app, dest.access, { to_control_unit_id: destination.unitId, tags_egress_id: egress.id });
    const twice = await app.call('POST', '/api/tags-ingress', { token: dest.access, body: { to_control_unit_id: destination.unitId, tags_egress_id: egress.id } });
    expect(twice.status).toBe(422);
    expect(twice.body.error).toBe('CONFLICT');
    expect(Object.keys(twice.body.detail.fields)).toEqual(['tags_egress_id']);
    expect(await count(app, 'tags_ingress where tags_egress_id = ?', [egress.id])).toBe(1);
  });
});

describe('reading tags egresses', () => {
  test('search by status, type, box and unit code; the index runs the same statements for 2 and 12 egresses', async () => {
    const { owner, origin, destination } = await setup(0);
    const boxes = [];
    for (let i = 0; i < 12; i++) boxes.push(await stockTags(app, origin.unitId, 2));
    const statements = async () => (await app.call('GET', `/api/tags-egress?from_control_unit_id=${origin.unitId}`, { token: owner.access })).sql;
    const sent = [];
    for (const b of boxes.slice(0, 2)) sent.push(await createEgress(app, owner.access, sendBody(origin, destination, [b.boxId])));
    const few = await statements();
    for (const b of boxes.slice(2)) sent.push(await createEgress(app, owner.access, sendBody(origin, destination, [b.boxId], { str_type: 'RETURN' })));
    expect(await statements()).toBe(few);
    await cancel(owner.access, sent[0]!.id);
    const search = (body: unknown) => app.call('POST', '/api/tags-egress/search', { token: owner.access, body });
    expect((await search({ from_control_unit_id: origin.unitId, str_status: 'CANCELLED' })).body.data.map((e: { id: string }) => e.id)).toEqual([sent[0]!.id]);
    expect((await search({ from_control_unit_id: origin.unitId, str_type: 'RETURN' })).body.meta.int_total_results).toBe(10);
    expect((await search({ tags_box_id: boxes[3]!.boxId })).body.data.map((e: { id: string }) => e.id)).toEqual([sent[3]!.id]);
    expect((await search({ str_query: destination.code.toLowerCase() })).body.meta.int_total_results).toBe(12);
    const bad = await search({ str_query: 3 });
    expect(bad.status).toBe(422);
  });
});

describe('GraphQL', () => {
  test('createTagsEgress and cancelTagsEgress', async () => {
    const { owner, origin, destination, stock } = await setup(1, 3);
    const created = await app.graphql(
      'mutation($input: TagsEgressCreateInput!) { createTagsEgress(input: $input) { id str_status to_control_unit { str_code str_name str_establishment_name } tags_boxes { id str_status } } }',
      { input: sendBody(origin, destination, [stock[0]!.boxId]) },
      owner.access,
    );
    const egress = created.body.data.createTagsEgress;
    expect(egress).toMatchObject({ str_status: 'SENT', to_control_unit: { str_code: destination.code, str_name: 'Retiro', str_establishment_name: `Fazenda ${destination.code}` } });
    const cancelled = await app.graphql('mutation($id: UUID!) { cancelTagsEgress(id: $id) { str_status tags_boxes { str_status } } }', { id: egress.id }, owner.access);
    expect(cancelled.body.data.cancelTagsEgress).toEqual({ str_status: 'CANCELLED', tags_boxes: [{ str_status: 'IN_STOCK' }] });
    const again = await app.graphql('mutation($id: UUID!) { cancelTagsEgress(id: $id) { id } }', { id: egress.id }, owner.access);
    expect(again.body.errors[0].extensions.code).toBe('INVALID_STATE');
  });
});
