import { verifyChain } from '../src/shared/events.js';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { animalBody, identify } from './helpers/identify.js';
import { makeUnit, type TestUnit } from './helpers/tags.js';
import { expectUsedBy, reservationStatus, reserveOverHttp, type TagRow } from './helpers/tags-out.js';
import { createEgress, createIngress, evaluate, ranges, type Box, type Rec } from './helpers/transfer.js';

/**
 * One supplier range over its whole life, every step a REST call: in at the organization's tag
 * stock, sent to a production unit, reserved, applied to animals, replaced, written off with its
 * animal's death. Stages share state and run in order.
 */

type Member = Awaited<ReturnType<typeof member>>;
let owner: Member;
let operator: Member;
let stockUnit: TestUnit;
let farm: TestUnit;

const app = useApp();
beforeAll(async () => {
  owner = await member(app);
  operator = await member(app, 'OPERATOR', owner.org);
  stockUnit = await makeUnit(app, owner.org.id, undefined, 'TAG_STOCK');
  farm = await makeUnit(app, owner.org.id);
});

/** A tag as GET /api/tags reads it: the fields this test looks at. */
type TagRead = Pick<TagRow, 'id' | 'str_code' | 'str_status' | 'animal_id' | 'tags_reservation_id'> & { last_control_unit_id: string | null };

const get = async (path: string, token = owner.access) => {
  const res = await app.call('GET', path, { token });
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body.data;
};

/** The box's tags as the owner reads them, by code. */
const tagsOfBox = async (boxId: string): Promise<Record<string, TagRead>> => {
  const res = await app.call('POST', '/api/tags/search', { token: owner.access, body: { tags_box_id: boxId } });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.data as TagRead[]).map((t) => [t.str_code, t]));
};
const statuses = (tags: Record<string, TagRead>): Record<string, string> => Object.fromEntries(Object.values(tags).map((t) => [t.str_code, t.str_status]));

/** What the stages hand on. */
const life = {} as {
  supplied: Rec;
  sentBox: Box;
  keptBox: Box;
  codes: string[];
  egress: Rec;
  reservationId: string;
  animalIds: string[];
  tags: Record<string, TagRead>;
  replacementId: string;
  writeoffId: string;
};

describe('a supplier range from the tag stock to an animal\'s death', () => {
  test('1. the supplier\'s two boxes arrive at the tag stock unit and are both accepted', async () => {
    const pending = await createIngress(app, owner.access, { to_control_unit_id: stockUnit.unitId, str_label: 'NF 2026/1', tags_boxes: ranges(2, 10) });
    expect(pending).toMatchObject({ str_status: 'PENDING', tags_egress_id: null, to_control_unit_id: stockUnit.unitId });
    expect(pending.tags_boxes.map((b) => [b.str_status, b.str_box_status])).toEqual([['PENDING', 'IN_TRANSIT'], ['PENDING', 'IN_TRANSIT']]);
    life.supplied = await evaluate(app, owner.access, pending);
    expect(life.supplied.str_status).toBe('EVALUATED');
    expect(life.supplied.tags_boxes.map((b) => [b.str_status, b.str_box_status])).toEqual([['ACCEPTED', 'IN_STOCK'], ['ACCEPTED', 'IN_STOCK']]);
    [life.sentBox, life.keptBox] = life.supplied.tags_boxes as [Box, Box];
    const tags = await tagsOfBox(life.sentBox.id);
    life.codes = Object.keys(tags).sort();
    expect(life.codes).toHaveLength(10);
    expect(life.codes[0]).toBe(life.sentBox.str_begin);
    expect(Object.values(tags).map((t) => [t.str_status, t.last_control_unit_id])).toEqual(Array(10).fill(['AVAILABLE', stockUnit.unitId]));
  });

  test('2. one box leaves the tag stock for the production unit (TRANSFER)', async () => {
    life.egress = await createEgress(app, owner.access, {
      str_type: 'TRANSFER',
      from_control_unit_id: stockUnit.unitId,
      to_control_unit_id: farm.unitId,
      tags_boxes: [{ id: life.sentBox.id }],
    });
    expect(life.egress).toMatchObject({ str_status: 'SENT', str_type: 'TRANSFER', from_control_unit_id: stockUnit.unitId, to_control_unit_id: farm.unitId });
    expect(life.egress.tags_boxes.map((b) => [b.id, b.str_status])).toEqual([[life.sentBox.id, 'IN_TRANSIT']]);
    expect(new Set(Object.values(statuses(await tagsOfBox(life.sentBox.id))))).toEqual(new Set(['IN_TRANSIT']));
  });

  test('3. the production unit takes the egress in and accepts the box: its tags are AVAILABLE there', async () => {
    const arriving = await createIngress(app, owner.access, { to_control_unit_id: farm.unitId, tags_egress_id: life.egress.id });
    expect(arriving).toMatchObject({ str_status: 'PENDING', tags_egress_id: life.egress.id });
    const accepted = await evaluate(app, owner.access, arriving);
    expect(accepted.str_status).toBe('EVALUATED');
    expect(accepted.tags_boxes.map((b) => [b.id, b.str_status, b.str_box_status])).toEqual([[life.sentBox.id, 'ACCEPTED', 'IN_STOCK']]);
    expect(await get(`/api/tags-boxes/${life.sentBox.id}`)).toMatchObject({ str_status: 'IN_STOCK', control_unit_id: farm.unitId });
    const tags = Object.values(await tagsOfBox(life.sentBox.id));
    expect(tags.map((t) => [t.str_status, t.last_control_unit_id])).toEqual(Array(10).fill(['AVAILABLE', farm.unitId]));
  });

  test('4. three of the farm\'s tags are reserved for the operator', async () => {
    const [c0, , c2] = life.codes;
    const reservation = await reserveOverHttp(app, owner.access, { control_unit_id: farm.unitId, operator_user_id: operator.user.id, str_begin: c0, str_finish: c2 });
    expect(reservation).toMatchObject({ str_status: 'ACTIVE', int_quantity: 3, operator_user_id: operator.user.id });
    life.reservationId = reservation.id;
    expect(Object.values(await tagsOfBox(life.sentBox.id)).filter((t) => t.tags_reservation_id === reservation.id).map((t) => t.str_code).sort()).toEqual(life.codes.slice(0, 3));
  });

  test('5. the operator identifies three animals, two with reserved tags and one with an available tag', async () => {
    const c = life.codes;
    const done = await identify(app, operator.access, farm, [animalBody(c[0]!, { str_name: 'Mimosa' }), animalBody(c[1]!), animalBody(c[5]!, { str_gender: 'MALE' })]);
    expect(done.int_animal_count).toBe(3);
    life.animalIds = done.animals.map((a: { id: string }) => a.id);
    expect(done.animals.map((a: { str_current_tag_code: string; str_status: string }) => [a.str_current_tag_code, a.str_status])).toEqual([[c[0], 'ACTIVE'], [c[1], 'ACTIVE'], [c[5], 'ACTIVE']]);
    // One of its tags is still reserved: the reservation goes on.
    expect(await reservationStatus(app, owner.access, life.reservationId)).toBe('ACTIVE');
    expect(await get(`/api/tags-boxes/${life.sentBox.id}`)).toMatchObject({ str_status: 'OPENED' });
    life.tags = await tagsOfBox(life.sentBox.id);
  });

  test('6. Mimosa\'s damaged tag is replaced by the last reserved one, which uses the reservation up', async () => {
    const [c0, , c2] = life.codes;
    const res = await app.call('POST', '/api/tags-replacements', {
      token: operator.access,
      body: { control_unit_id: farm.unitId, tags: [{ str_tag_code: c0, str_new_tag_code: c2, str_reason: 'DAMAGED' }] },
    });
    expect(res.status).toBe(201);
    life.replacementId = res.body.data.id;
    expect(res.body.data.tags[0]).toMatchObject({ animal_id: life.animalIds[0], old_tag: { str_code: c0, str_status: 'REPLACED' }, new_tag: { str_code: c2, str_status: 'APPLIED' } });
    await expectUsedBy(app, owner.access, life.reservationId, { control_unit_id: farm.unitId, tags_replacement_id: life.replacementId });
  });

  test('7. Mimosa dies: her new tag is written off for ANIMAL_DEATH', async () => {
    const c2 = life.codes[2]!;
    const res = await app.call('POST', '/api/tags-writeoffs', { token: operator.access, body: { control_unit_id: farm.unitId, str_reason: 'ANIMAL_DEATH', tags: [{ str_code: c2 }] } });
    expect(res.status).toBe(201);
    life.writeoffId = res.body.data.id;
    expect(res.body.data.tags).toMatchObject([{ str_code: c2, str_status: 'WRITTEN_OFF' }]);
  });

  test('the animal reads DEAD with the written-off tag; its history is identified → tag replaced → died, naming units and codes', async () => {
    const [c0, , c2] = life.codes;
    const mimosa = life.animalIds[0]!;
    const animal = await get(`/api/animals/${mimosa}`);
    expect(animal).toMatchObject({ id: mimosa, str_name: 'Mimosa', str_status: 'DEAD', current_tag: { id: life.tags[c2!]!.id, str_code: c2, str_status: 'WRITTEN_OFF' } });

    const history = await app.call('GET', `/api/animals/${mimosa}/history`, { token: owner.access });
    expect(history.status).toBe(200);
    const criteria = history.body.data.map((h: { criteria: Record<string, unknown> }) => h.criteria);
    expect(criteria.map((e: { str_event: string }) => e.str_event)).toEqual(['ANIMAL_IDENTIFIED', 'ANIMAL_TAG_REPLACED', 'ANIMAL_DIED']);
    const at = { organization_id: owner.org.id, establishment_id: farm.establishmentId, control_unit_id: farm.unitId };
    expect(criteria[0]).toMatchObject({ actor: { id: operator.user.id }, refs: { ...at, tag_id: life.tags[c0!]!.id, str_tag_code: c0, tags_reservation_id: life.reservationId } });
    expect(criteria[1]).toMatchObject({
      actor: { id: operator.user.id },
      changes: { current_tag_id: life.tags[c2!]!.id },
      refs: { ...at, tags_replacement_id: life.replacementId, str_old_tag_code: c0, str_new_tag_code: c2, str_reason: 'DAMAGED', tags_reservation_id: life.reservationId },
    });
    expect(criteria[2]).toMatchObject({ actor: { id: operator.user.id }, changes: { str_status: 'DEAD' }, refs: { ...at, tags_writeoff_id: life.writeoffId, str_tag_code: c2, str_reason: 'ANIMAL_DEATH' } });
  });

  test('where everything ends: tags, reservation, boxes and egress', async () => {
    const c = life.codes;
    const old = await get(`/api/tags/${life.tags[c[0]!]!.id}`);
    // A replaced tag keeps its animal, for traceability.
    expect(old).toMatchObject({ str_code: c[0], str_status: 'REPLACED', animal_id: life.animalIds[0], tags_reservation_id: null });
    expect(statuses(await tagsOfBox(life.sentBox.id))).toEqual({
      [c[0]!]: 'REPLACED',
      [c[1]!]: 'APPLIED',
      [c[2]!]: 'WRITTEN_OFF',
      [c[5]!]: 'APPLIED',
      ...Object.fromEntries([3, 4, 6, 7, 8, 9].map((i) => [c[i]!, 'AVAILABLE'])),
    });
    expect(await get(`/api/tags-reservations/${life.reservationId}`)).toMatchObject({ str_status: 'USED', int_quantity: 3 });
    expect(await get(`/api/tags-boxes/${life.sentBox.id}`)).toMatchObject({ str_status: 'OPENED', control_unit_id: farm.unitId });
    expect(await get(`/api/tags-boxes/${life.keptBox.id}`)).toMatchObject({ str_status: 'IN_STOCK', control_unit_id: stockUnit.unitId });
    expect(new Set(Object.values(statuses(await tagsOfBox(life.keptBox.id))))).toEqual(new Set(['AVAILABLE']));
    expect(await get(`/api/tags-egress/${life.egress.id}`)).toMatchObject({ str_status: 'RECEIVED' });
    const animals = await app.call('POST', '/api/animals/search', { token: owner.access, body: { establishment_id: farm.establishmentId } });
    expect(Object.fromEntries(animals.body.data.map((a: { id: string; str_status: string }) => [a.id, a.str_status]))).toEqual({
      [life.animalIds[0]!]: 'DEAD',
      [life.animalIds[1]!]: 'ACTIVE',
      [life.animalIds[2]!]: 'ACTIVE',
    });
  });

  test('final tags never come back: applying, reserving or writing off a REPLACED or WRITTEN_OFF tag is 422 INVALID_STATE and changes nothing', async () => {
    const [c0, c1, c2] = life.codes as [string, string, string];
    const before = statuses(await tagsOfBox(life.sentBox.id));
    const finals = [{ str_code: c0, str_status: 'REPLACED' }, { str_code: c2, str_status: 'WRITTEN_OFF' }];

    const apply = await app.call('POST', '/api/tags-identifications', { token: operator.access, body: { to_control_unit_id: farm.unitId, animals: [animalBody(c0), animalBody(c2)] } });
    expect(apply.status).toBe(422);
    expect(apply.body.error).toBe('INVALID_STATE');
    expect(apply.body.detail).toMatchObject({ allowed: ['AVAILABLE', 'RESERVED'], tags: finals.map((t, i) => ({ ...t, path: `animals[${i}]` })) });

    const retag = await app.call('POST', '/api/tags-replacements', { token: operator.access, body: { control_unit_id: farm.unitId, tags: [{ str_tag_code: c1, str_new_tag_code: c0, str_reason: 'LOST' }] } });
    expect(retag.status).toBe(422);
    expect(retag.body.error).toBe('INVALID_STATE');
    expect(retag.body.detail).toMatchObject({ allowed: ['AVAILABLE', 'RESERVED'], tags: [finals[0]] });

    const reserve = await app.call('POST', '/api/tags-reservations', {
      token: owner.access,
      body: { reservations: [c0, c2].map((code) => ({ control_unit_id: farm.unitId, str_name: 'De novo', str_begin: code, str_finish: code })) },
    });
    expect(reserve.status).toBe(422);
    expect(reserve.body.error).toBe('INVALID_STATE');
    expect(reserve.body.detail).toMatchObject({ allowed: ['AVAILABLE'], tags: finals.map((t, i) => ({ ...t, path: `reservations[${i}]` })) });

    for (const reason of ['DAMAGED', 'ANIMAL_DEATH']) {
      const writeOff = await app.call('POST', '/api/tags-writeoffs', { token: operator.access, body: { control_unit_id: farm.unitId, str_reason: reason, tags: [{ str_code: c0 }, { str_code: c2 }] } });
      expect({ reason, status: writeOff.status, error: writeOff.body.error }).toEqual({ reason, status: 422, error: 'INVALID_STATE' });
      expect(writeOff.body.detail).toMatchObject({ allowed: ['AVAILABLE', 'RESERVED', 'APPLIED'], tags: finals });
    }

    expect(statuses(await tagsOfBox(life.sentBox.id))).toEqual(before);
    expect((await get(`/api/animals/${life.animalIds[0]}`)).str_status).toBe('DEAD');
  });

  test('the event chain still holds after the whole life', async () => {
    expect(await verifyChain(app.service.orm.em.fork())).toEqual({ ok: true, checked: expect.any(Number) });
  });
});
