import { randomUUID } from 'node:crypto';
import { fromConstraintViolation } from '../src/shared/errors.js';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { ISO_Z, UUID_RE } from './helpers/places.js';
import { codeAt, freshCodeBlock, ownerWithUnit, type TestUnit } from './helpers/tags.js';
import { count } from './helpers/db.js';
import { INGRESS_BOX_KEYS, INGRESS_KEYS, type Box, createIngress, evaluate, ranges, tagStatuses } from './helpers/transfer.js';

const app = useApp();

const db = () => app.service.orm.em.fork();

const setup = () => ownerWithUnit(app);

const post = (token: string, body: unknown) => app.call('POST', '/api/tags-ingress', { token, body });
const evaluateCall = (token: string, id: string, body: unknown) => app.call('POST', `/api/tags-ingress/${id}/evaluate`, { token, body });
const boxesAt = (unit: TestUnit) => count(app, 'tags_box where control_unit_id = ?', [unit.unitId]);
const ingressesAt = (unit: TestUnit) => count(app, 'tags_ingress where to_control_unit_id = ?', [unit.unitId]);
const tagsAt = (unit: TestUnit) => count(app, 'tag where last_control_unit_id = ?', [unit.unitId]);

describe('POST /api/tags-ingress from a supplier', () => {
  test('boxes wait IN_TRANSIT at the unit, no tag made yet: 201, the record, one event per record', async () => {
    const { owner, unit } = await setup();
    const [a, b] = ranges(2, 10);
    const at = '2026-03-01T10:20:30.000Z';
    const ingress = await createIngress(app, owner.access, {
      to_control_unit_id: unit.unitId,
      str_description: 'Lote do fornecedor',
      str_label: 'NF 123',
      ts_unsafe_client_created_at: at,
      tags_boxes: [a, { ...b, str_code: `CAIXA-${b!.str_begin}` }],
    });
    expect(Object.keys(ingress).sort()).toEqual(INGRESS_KEYS);
    expect(ingress.id).toMatch(UUID_RE);
    expect(ingress).toMatchObject({
      str_status: 'PENDING',
      to_control_unit_id: unit.unitId,
      tags_egress_id: null,
      operator_user_id: owner.user.id,
      str_description: 'Lote do fornecedor',
      str_label: 'NF 123',
      ts_evaluated_at: null,
      ts_unsafe_client_created_at: at,
    });
    expect(ingress.to_control_unit).toMatchObject({ id: unit.unitId, str_code: unit.code, establishment: { id: unit.establishmentId } });
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(ingress[f]).toMatch(ISO_Z);
    expect(ingress.tags_boxes).toHaveLength(2);
    for (const box of ingress.tags_boxes) expect(Object.keys(box).sort()).toEqual(INGRESS_BOX_KEYS);
    const byBegin = Object.fromEntries(ingress.tags_boxes.map((x: Box) => [x.str_begin, x]));
    expect(byBegin[a!.str_begin]).toMatchObject({ str_code: `${a!.str_begin}-${a!.str_finish}`, str_finish: a!.str_finish, int_quantity: 10, str_status: 'PENDING', str_box_status: 'IN_TRANSIT' });
    expect(byBegin[b!.str_begin]).toMatchObject({ str_code: `CAIXA-${b!.str_begin}`, int_quantity: 10, str_status: 'PENDING', str_box_status: 'IN_TRANSIT' });
    expect(await tagsAt(unit)).toBe(0);
    const events = await db().execute<{ str_type: string; str_record_type: string; record_id: string }[]>(
      `select str_type, str_record_type, record_id from event where record_id in (?) order by seq`,
      [[ingress.id, ...ingress.tags_boxes.map((x: Box) => x.id)]],
    );
    expect(events.map((e) => e.str_type).sort()).toEqual(['TAGS_BOX_CREATED', 'TAGS_BOX_CREATED', 'TAGS_INGRESS_CREATED']);
    const [created] = await db().execute<{ str_payload: string }[]>(`select str_payload from event where record_id = ? and str_type = 'TAGS_INGRESS_CREATED'`, [ingress.id]);
    expect(JSON.parse(created!.str_payload).changes.tags_boxes.map((x: Box) => x.str_begin).sort()).toEqual([a!.str_begin, b!.str_begin].sort());
  });

  test('one range split by int_box_size: boxes of that size, the last one smaller', async () => {
    const { owner, unit } = await setup();
    const begin = freshCodeBlock();
    const ingress = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, str_begin: begin, str_finish: codeAt(begin, 24), int_box_size: 10 });
    expect(ingress.tags_boxes.map((b: Box) => [b.str_begin, b.str_finish, b.int_quantity])).toEqual([
      [begin, codeAt(begin, 9), 10],
      [codeAt(begin, 10), codeAt(begin, 19), 10],
      [codeAt(begin, 20), codeAt(begin, 24), 5],
    ]);
    const whole = freshCodeBlock();
    const one = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, str_begin: whole, str_finish: codeAt(whole, 99) });
    expect(one.tags_boxes.map((b: Box) => b.int_quantity)).toEqual([100]);
  });

  test('shape errors: 422 VALIDATION_FAILED naming each field, nothing written', async () => {
    const { owner, unit } = await setup();
    const cases: [unknown, string[]][] = [
      [{ to_control_unit_id: unit.unitId }, ['tags_boxes']],
      [{ to_control_unit_id: unit.unitId, tags_boxes: [] }, ['tags_boxes']],
      [{ to_control_unit_id: unit.unitId, tags_boxes: [{ str_begin: '123', str_finish: null }] }, ['tags_boxes[0].str_begin', 'tags_boxes[0].str_finish']],
      [{ to_control_unit_id: unit.unitId, tags_boxes: [{ str_begin: '076000000000010', str_finish: '076000000000009', id: 'x' }] }, ['tags_boxes[0].id', 'tags_boxes[0].str_finish']],
      [{ to_control_unit_id: unit.unitId, str_begin: '076000000000000', str_finish: '076000000200000' }, ['str_finish']],
      [{ to_control_unit_id: unit.unitId, str_begin: '076000000000000', str_finish: '076000000009999', int_box_size: 5 }, ['int_box_size']],
      [{ to_control_unit_id: unit.unitId, str_begin: '076000000000000', str_finish: '076000000000009', int_box_size: 0 }, ['int_box_size']],
      [{ to_control_unit_id: unit.unitId, tags_egress_id: randomUUID(), tags_boxes: ranges(1, 5) }, ['tags_egress_id']],
      [{ tags_boxes: ranges(1, 5) }, ['to_control_unit_id']],
      [{ to_control_unit_id: 'nope', tags_boxes: ranges(1, 5) }, ['to_control_unit_id']],
      [{ to_control_unit_id: unit.unitId, id: 'nope', operator_user_id: 'nope', tags_boxes: ranges(1, 5) }, ['id', 'operator_user_id']],
      [{ to_control_unit_id: unit.unitId, tags_boxes: ranges(1, 5), ts_unsafe_client_created_at: 'yesterday' }, ['ts_unsafe_client_created_at']],
    ];
    for (const [body, fields] of cases) {
      const res = await post(owner.access, body);
      expect({ body, status: res.status, error: res.body.error, fields: Object.keys(res.body.detail?.fields ?? {}).sort() }).toEqual({ body, status: 422, error: 'VALIDATION_FAILED', fields: fields.sort() });
    }
    expect(await ingressesAt(unit)).toBe(0);
    expect(await boxesAt(unit)).toBe(0);
  });

  test('a range that overlaps another box, codes that exist as tags, a taken box code: 422 CONFLICT naming the box, nothing written', async () => {
    const { owner, unit } = await setup();
    const [first] = ranges(1, 100);
    await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [{ ...first, str_code: `BOX-${first!.str_begin}` }] });
    const [fresh, other] = ranges(2, 10);
    const overlapping = { str_begin: codeAt(first!.str_begin, 50), str_finish: codeAt(first!.str_begin, 150) };
    const res = await post(owner.access, { to_control_unit_id: unit.unitId, str_description: 'half-way', tags_boxes: [fresh, overlapping] });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(res.body.detail.fields).toEqual({ 'tags_boxes[1].str_begin': [`overlaps the range of box BOX-${first!.str_begin}`] });
    // An external tag already carries a code of the range.
    await db().execute(`insert into tag (id, str_code, str_status, bl_external_tag, last_control_unit_id) values (?, ?, 'AVAILABLE', true, ?)`, [randomUUID(), codeAt(other!.str_begin, 3), unit.unitId]);
    const tagged = await post(owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [fresh, other] });
    expect(tagged.status).toBe(422);
    expect(tagged.body.detail.fields).toEqual({ 'tags_boxes[1].str_begin': [`the code ${codeAt(other!.str_begin, 3)} already exists as a tag`] });
    const code = await post(owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [{ ...fresh, str_code: `BOX-${first!.str_begin}` }] });
    expect(code.status).toBe(422);
    expect(code.body.detail.fields).toEqual({ 'tags_boxes[0].str_code': ['is already taken by another box'] });
    const within = await post(owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [fresh, { str_begin: codeAt(fresh!.str_begin, 9), str_finish: codeAt(fresh!.str_begin, 20) }] });
    expect(within.status).toBe(422);
    expect(within.body.error).toBe('CONFLICT');
    expect(Object.keys(within.body.detail.fields)).toEqual(['tags_boxes[1].str_begin']);
    // Nothing of the refused requests: one ingress, one box, one external tag.
    expect(await ingressesAt(unit)).toBe(1);
    expect(await boxesAt(unit)).toBe(1);
    expect(await count(app, 'tags_box where str_begin = ?', [fresh!.str_begin])).toBe(0);
    expect(await tagsAt(unit)).toBe(1);
  });

  test('a VIEWER is refused 403; a unit the caller does not see is a 422 on to_control_unit_id; an operator from elsewhere is a 422', async () => {
    const { owner, unit } = await setup();
    const viewer = await member(app, 'VIEWER', owner.org);
    const refused = await post(viewer.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(1, 5) });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('FORBIDDEN');
    const stranger = await member(app);
    const invisible = await post(stranger.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(1, 5) });
    expect(invisible.status).toBe(422);
    expect(Object.keys(invisible.body.detail.fields)).toEqual(['to_control_unit_id']);
    const foreignOperator = await post(owner.access, { to_control_unit_id: unit.unitId, operator_user_id: stranger.user.id, tags_boxes: ranges(1, 5) });
    expect(foreignOperator.status).toBe(422);
    expect(Object.keys(foreignOperator.body.detail.fields)).toEqual(['operator_user_id']);
    expect(await ingressesAt(unit)).toBe(0);
    const operator = await member(app, 'OPERATOR', owner.org);
    const made = await createIngress(app, operator.access, { to_control_unit_id: unit.unitId, operator_user_id: viewer.user.id, tags_boxes: ranges(1, 5) });
    expect(made.operator_user_id).toBe(viewer.user.id);
  });

  test('a client id: the same body again is a replay (201, one record); another body, or another organization, is a 422 CONFLICT', async () => {
    const { owner, unit } = await setup();
    const id = randomUUID();
    const body = { id, to_control_unit_id: unit.unitId, tags_boxes: ranges(2, 5), ts_unsafe_client_created_at: '2026-01-02T03:04:05.000Z' };
    const first = await createIngress(app, owner.access, body);
    expect(first.id).toBe(id);
    const again = await createIngress(app, owner.access, body);
    expect(again).toEqual(first);
    expect(await createIngress(app, owner.access, { ...body, id: id.toUpperCase() })).toEqual(first);
    const other = await post(owner.access, { ...body, str_label: 'changed' });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
    const elsewhere = await setup();
    const foreign = await post(elsewhere.owner.access, { ...body, to_control_unit_id: elsewhere.unit.unitId });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toBe('CONFLICT');
    expect(await count(app, 'tags_ingress where id = ?', [id])).toBe(1);
    expect(await boxesAt(unit)).toBe(2);
    // Replayed after its evaluation: what the create first answered (CONTRACT.md: the stored response).
    const evaluated = await evaluate(app, owner.access, first);
    expect(evaluated.str_status).toBe('EVALUATED');
    const late = await createIngress(app, owner.access, body);
    expect(late).toEqual(first);
  });

  test('a race on the disjoint ranges answers 422 CONFLICT, never 500; the database constraint is classified as such', async () => {
    const { owner, unit } = await setup();
    const [range] = ranges(1, 50);
    const results = await Promise.all([0, 1, 2, 3].map(() => post(owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [range] })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.error).toBe('CONFLICT');
    expect(await boxesAt(unit)).toBe(1);
    // The exclusion constraint itself (what a writer that passed the check meets): CONFLICT naming the field.
    const em = db();
    const inside = { id: randomUUID(), begin: codeAt(range!.str_begin, 10), finish: codeAt(range!.str_begin, 60) };
    const error = await em
      .execute(`insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, ?, ?, 51, 'IN_STOCK', ?)`, [inside.id, inside.id, inside.begin, inside.finish, unit.unitId])
      .then(() => null, (e: unknown) => e);
    expect(fromConstraintViolation(error)).toMatchObject({ code: 'CONFLICT', detail: { fields: { 'tags_boxes.str_begin': ['overlaps the range of another box'] } } });
  });
});

describe('POST /api/tags-ingress/:id/evaluate', () => {
  test('every box ACCEPTED: EVALUATED, the tags made AVAILABLE at the unit, boxes IN_STOCK, events', async () => {
    const { owner, unit } = await setup();
    const ingress = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(2, 25) });
    const done = await evaluate(app, owner.access, ingress);
    expect(Object.keys(done).sort()).toEqual(INGRESS_KEYS);
    expect(done.str_status).toBe('EVALUATED');
    expect(done.ts_evaluated_at).toMatch(ISO_Z);
    expect(done.tags_boxes.map((b: Box) => [b.str_status, b.str_box_status])).toEqual([['ACCEPTED', 'IN_STOCK'], ['ACCEPTED', 'IN_STOCK']]);
    for (const box of ingress.tags_boxes) expect(await tagStatuses(app, box.id)).toEqual({ AVAILABLE: 25 });
    expect(await count(app, 'tag where last_control_unit_id = ? and bl_external_tag = false', [unit.unitId])).toBe(50);
    const [b0] = ingress.tags_boxes;
    const codes = await db().execute<{ str_code: string }[]>('select str_code from tag where tags_box_id = ? order by str_code', [b0.id]);
    expect(codes.map((c) => c.str_code)).toEqual(Array.from({ length: 25 }, (_, i) => codeAt(b0.str_begin, i)));
    const events = await db().execute<{ str_type: string }[]>(`select str_type from event where record_id in (?) and str_type <> 'TAGS_BOX_CREATED' and str_type <> 'TAGS_INGRESS_CREATED'`, [[ingress.id, ...ingress.tags_boxes.map((x: Box) => x.id)]]);
    expect(events.map((e) => e.str_type).sort()).toEqual(['TAGS_BOX_ACCEPTED', 'TAGS_BOX_ACCEPTED', 'TAGS_INGRESS_EVALUATED']);
    expect(await count(app, `event where str_type = 'TAGS_INGRESS_EVALUATED' and record_id = ?`, [ingress.id])).toBe(1);
  });

  test('one box REJECTED: PARTIALLY_ACCEPTED, the rejected box DEPLETED with no tag, its codes never issued again', async () => {
    const { owner, unit } = await setup();
    const boxes = ranges(3, 10);
    const ingress = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: boxes });
    const rejected = ingress.tags_boxes[1];
    const done = await evaluate(app, owner.access, ingress, (i) => (i === 1 ? 'REJECTED' : 'ACCEPTED'));
    expect(done.str_status).toBe('PARTIALLY_ACCEPTED');
    expect(done.tags_boxes[1]).toMatchObject({ id: rejected.id, str_status: 'REJECTED', str_box_status: 'DEPLETED' });
    expect(await tagStatuses(app, rejected.id)).toEqual({});
    expect(await tagsAt(unit)).toBe(20);
    const again = await post(owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [{ str_begin: rejected.str_begin, str_finish: rejected.str_finish }] });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('CONFLICT');
    const events = await db().execute<{ str_type: string; record_id: string }[]>(`select str_type, record_id from event where str_type like 'TAGS_BOX_%ED' and str_type <> 'TAGS_BOX_CREATED' and record_id in (?)`, [ingress.tags_boxes.map((x: Box) => x.id)]);
    expect(events.find((e) => e.record_id === rejected.id)?.str_type).toBe('TAGS_BOX_REJECTED');
  });

  test('refusals: every box must be named once, with ACCEPTED or REJECTED (422); an evaluated ingress is 422 INVALID_STATE; nothing changes', async () => {
    const { owner, unit } = await setup();
    const ingress = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(2, 5) });
    const [a, b] = ingress.tags_boxes;
    const cases: [unknown, string[]][] = [
      [{}, ['tags_boxes']],
      [{ tags_boxes: [{ id: a.id, str_status: 'ACCEPTED' }] }, ['tags_boxes']],
      [{ tags_boxes: [{ id: a.id, str_status: 'MAYBE' }, { id: b.id, str_status: 'ACCEPTED' }] }, ['tags_boxes[0].str_status']],
      [{ tags_boxes: [{ id: a.id, str_status: 'ACCEPTED' }, { id: a.id, str_status: 'REJECTED' }] }, ['tags_boxes[1].id']],
      [{ tags_boxes: [{ id: a.id, str_status: 'ACCEPTED' }, { id: b.id, str_status: 'ACCEPTED' }, { id: randomUUID(), str_status: 'ACCEPTED' }] }, ['tags_boxes[2].id']],
      [{ tags_boxes: [{ str_status: 'ACCEPTED' }, { id: 'nope', str_status: 'ACCEPTED' }] }, ['tags_boxes[0].id', 'tags_boxes[1].id']],
    ];
    for (const [body, fields] of cases) {
      const res = await evaluateCall(owner.access, ingress.id, body);
      expect({ body, status: res.status, error: res.body.error, fields: Object.keys(res.body.detail?.fields ?? {}).sort() }).toEqual({ body, status: 422, error: 'VALIDATION_FAILED', fields: fields.sort() });
    }
    expect(await count(app, `tags_ingress_box where tags_ingress_id = ? and str_status = 'PENDING'`, [ingress.id])).toBe(2);
    await evaluate(app, owner.access, ingress);
    const twice = await evaluateCall(owner.access, ingress.id, { tags_boxes: [{ id: a.id, str_status: 'REJECTED' }, { id: b.id, str_status: 'REJECTED' }] });
    expect(twice.status).toBe(422);
    expect(twice.body.error).toBe('INVALID_STATE');
    expect(twice.body.detail).toMatchObject({ str_status: 'EVALUATED', allowed: ['PENDING'] });
    expect(await tagsAt(unit)).toBe(10);
    expect(await count(app, `tags_box where control_unit_id = ? and str_status = 'IN_STOCK'`, [unit.unitId])).toBe(2);
  });

  test('an evaluation that fails half-way (a code taken since) leaves the ingress PENDING, its boxes IN_TRANSIT and no tag', async () => {
    const { owner, unit } = await setup();
    const [a, b] = ranges(2, 20);
    const ingress = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [a, b] });
    // An external tag registered after the ingress, inside its second range (the tag table knows nothing of pending boxes).
    await db().execute(`insert into tag (id, str_code, str_status, bl_external_tag) values (?, ?, 'AVAILABLE', true)`, [randomUUID(), codeAt(b!.str_begin, 7)]);
    const res = await evaluateCall(owner.access, ingress.id, { tags_boxes: ingress.tags_boxes.map((x: Box) => ({ id: x.id, str_status: 'ACCEPTED' })) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(Object.keys(res.body.detail.fields)).toEqual(['str_code']);
    const read = await app.call('GET', `/api/tags-ingress/${ingress.id}`, { token: owner.access });
    expect(read.body.data.str_status).toBe('PENDING');
    expect(read.body.data.tags_boxes.map((x: Box) => [x.str_status, x.str_box_status])).toEqual([['PENDING', 'IN_TRANSIT'], ['PENDING', 'IN_TRANSIT']]);
    expect(await tagsAt(unit)).toBe(0);
    expect(await count(app, `event where record_id = ? and str_type = 'TAGS_INGRESS_EVALUATED'`, [ingress.id])).toBe(0);
    // Rejecting the box whose codes clash is still possible.
    const done = await evaluate(app, owner.access, ingress, (i) => (ingress.tags_boxes[i].str_begin === b!.str_begin ? 'REJECTED' : 'ACCEPTED'));
    expect(done.str_status).toBe('PARTIALLY_ACCEPTED');
    expect(await tagsAt(unit)).toBe(20);
  });

  test('a VIEWER is refused 403, a stranger gets 404; the unit\'s operator evaluates', async () => {
    const { owner, unit } = await setup();
    const ingress = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(1, 5) });
    const body = { tags_boxes: [{ id: ingress.tags_boxes[0].id, str_status: 'ACCEPTED' }] };
    const viewer = await member(app, 'VIEWER', owner.org);
    expect((await evaluateCall(viewer.access, ingress.id, body)).status).toBe(403);
    const stranger = await member(app);
    const hidden = await evaluateCall(stranger.access, ingress.id, body);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toBe('NOT_FOUND');
    expect((await evaluateCall(owner.access, 'not-a-uuid', body)).status).toBe(400);
    const operator = await member(app, 'OPERATOR', owner.org);
    expect((await evaluate(app, operator.access, ingress)).str_status).toBe('EVALUATED');
  });

  test('a 10,000-tag ingress and its evaluation run the same SQL statements as a 10-tag one', async () => {
    const { owner, unit } = await setup();
    const statements = async (size: number) => {
      const [range] = ranges(1, size);
      const created = await post(owner.access, { to_control_unit_id: unit.unitId, tags_boxes: [range] });
      expect(created.status).toBe(201);
      const body = { tags_boxes: created.body.data.tags_boxes.map((b: Box) => ({ id: b.id, str_status: 'ACCEPTED' })) };
      const evaluated = await evaluateCall(owner.access, created.body.data.id, body);
      expect(evaluated.status).toBe(200);
      expect(await tagStatuses(app, created.body.data.tags_boxes[0].id)).toEqual({ AVAILABLE: size });
      return { create: created.sql, evaluate: evaluated.sql };
    };
    const small = await statements(10);
    const large = await statements(10_000);
    expect(small.create).toBeGreaterThan(0);
    expect(large).toEqual(small);
    // A split range: 100 boxes cost what one does.
    const begin = freshCodeBlock();
    const split = await post(owner.access, { to_control_unit_id: unit.unitId, str_begin: begin, str_finish: codeAt(begin, 999), int_box_size: 10 });
    expect(split.body.data.tags_boxes).toHaveLength(100);
    expect(split.sql).toBe(small.create);
  });
});

describe('reading tags ingresses', () => {
  test('index, search and read are scoped to the units the caller sees; a stranger gets 404 and an empty list', async () => {
    const { owner, unit } = await setup();
    const first = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, str_label: 'first', tags_boxes: ranges(1, 5) });
    const second = await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, str_label: 'second lot', tags_boxes: ranges(1, 5) });
    await evaluate(app, owner.access, second);
    const index = await app.call('GET', `/api/tags-ingress?to_control_unit_id=${unit.unitId}`, { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.data.map((i: Box) => i.id)).toEqual([second.id, first.id]);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
    const search = await app.call('POST', '/api/tags-ingress/search', { token: owner.access, body: { str_status: 'PENDING', to_control_unit_id: unit.unitId } });
    expect(search.body.data.map((i: Box) => i.id)).toEqual([first.id]);
    const query = await app.call('POST', '/api/tags-ingress/search', { token: owner.access, body: { str_query: 'SECOND', to_control_unit_id: unit.unitId } });
    expect(query.body.data.map((i: Box) => i.id)).toEqual([second.id]);
    const byBox = await app.call('POST', '/api/tags-ingress/search', { token: owner.access, body: { tags_box_id: first.tags_boxes[0].id } });
    expect(byBox.body.data.map((i: Box) => i.id)).toEqual([first.id]);
    const unknown = await app.call('POST', '/api/tags-ingress/search', { token: owner.access, body: { str_color: 'red' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.accepted_keys).toContain('tags_box_id');
    const stranger = await member(app);
    expect((await app.call('GET', `/api/tags-ingress/${first.id}`, { token: stranger.access })).status).toBe(404);
    const theirs = await app.call('GET', `/api/tags-ingress?to_control_unit_id=${unit.unitId}`, { token: stranger.access });
    expect(theirs.body.meta.int_total_results).toBe(0);
  });

  test('the index runs the same statements for 2 and for 12 ingresses (boxes and units batched)', async () => {
    const { owner, unit } = await setup();
    const statements = async () => (await app.call('GET', `/api/tags-ingress?to_control_unit_id=${unit.unitId}`, { token: owner.access })).sql;
    for (let i = 0; i < 2; i++) await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(2, 3) });
    const few = await statements();
    for (let i = 0; i < 10; i++) await createIngress(app, owner.access, { to_control_unit_id: unit.unitId, tags_boxes: ranges(2, 3) });
    expect(await statements()).toBe(few);
  });
});

describe('GraphQL', () => {
  test('createTagsIngress and evaluateTagsIngress, errors with the contract codes', async () => {
    const { owner, unit } = await setup();
    const created = await app.graphql(
      'mutation($input: TagsIngressCreateInput!) { createTagsIngress(input: $input) { id str_status tags_boxes { id str_status int_quantity } } }',
      { input: { to_control_unit_id: unit.unitId, tags_boxes: ranges(2, 4) } },
      owner.access,
    );
    const ingress = created.body.data.createTagsIngress;
    expect(ingress.str_status).toBe('PENDING');
    const input = { tags_boxes: ingress.tags_boxes.map((b: Box, i: number) => ({ id: b.id, str_status: i ? 'REJECTED' : 'ACCEPTED' })) };
    const evaluateQuery = 'mutation($id: UUID!, $input: TagsIngressEvaluateInput!) { evaluateTagsIngress(id: $id, input: $input) { str_status tags_boxes { str_status } to_control_unit { str_code } } }';
    const evaluated = await app.graphql(evaluateQuery, { id: ingress.id, input }, owner.access);
    expect(evaluated.body.data.evaluateTagsIngress).toMatchObject({ str_status: 'PARTIALLY_ACCEPTED', to_control_unit: { str_code: unit.code } });
    const again = await app.graphql(evaluateQuery, { id: ingress.id, input }, owner.access);
    expect(again.body.errors[0].extensions.code).toBe('INVALID_STATE');
    const list = await app.graphql('query($f: JSONObject) { tagsIngresses(filter: $f) { data { id } meta { int_total_results } } }', { f: { to_control_unit_id: unit.unitId } }, owner.access);
    expect(list.body.data.tagsIngresses).toEqual({ data: [{ id: ingress.id }], meta: { int_total_results: 1 } });
  });
});
