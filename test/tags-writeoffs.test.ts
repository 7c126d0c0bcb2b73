import { randomUUID } from 'node:crypto';
import { mustPost, useApp } from './helpers/app.js';
import { count } from './helpers/db.js';
import { makeUser, login, member, official } from './helpers/factories.js';
import { ISO_Z, UUID_RE, useCounty } from './helpers/places.js';
import { makeUnit, ownerWithUnit, stockAnimals, stockTags, type TestUnit } from './helpers/tags.js';
import { TAG_KEYS, animalRows, eventsOf, expectUsedBy, reservationStatus, reserveOverHttp, reserveTags, setStatus, statusCounts, tagRows } from './helpers/tags-out.js';

const app = useApp();
const county = useCounty(app);

const WRITEOFF_KEYS = ['id', 'str_reason', 'str_reason_description', 'control_unit', 'operator_user', 'tags', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at'].sort();
const PARTIAL_KEYS = [
  'id', 'str_reason', 'ts_created_at', 'ts_updated_at', 'control_unit_id', 'operator_user_id', 'str_control_unit_name', 'str_establishment_name',
  'str_operator_user_name', 'str_reason_description', 'ts_unsafe_client_created_at',
].sort();
const UNIT_KEYS = ['id', 'establishment', 'str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'ts_created_at', 'ts_updated_at'].sort();

const setup = () => ownerWithUnit(app, county);

const post = (token: string, body: unknown) => app.call('POST', '/api/tags-writeoffs', { token, body });
const byCode = (codes: string[]) => codes.map((str_code) => ({ str_code }));

const writeOff = (token: string, body: unknown) => mustPost(app, '/api/tags-writeoffs', token, body);

const writeoffsAt = (unit: TestUnit) => count(app, 'tags_writeoff where control_unit_id = ?', [unit.unitId]);

describe('POST /api/tags-writeoffs: unused tags', () => {
  test('AVAILABLE and RESERVED tags → WRITTEN_OFF with reason and time; the reserved one leaves its reservation; the documented record; events', async () => {
    const { owner, unit } = await setup();
    const { boxId, codes, tagIds } = await stockTags(app, unit.unitId, 5);
    const reservationId = await reserveTags(app, unit.unitId, [tagIds[1]!]);
    const clientAt = '2026-01-02T03:04:05.678Z';
    const res = await writeOff(owner.access, {
      control_unit_id: unit.unitId,
      str_reason: 'DEFECTIVE',
      tags: [{ id: tagIds[0] }, { str_code: codes[1] }],
      ts_unsafe_client_created_at: clientAt,
    });
    const w = res.body.data;
    expect(Object.keys(w).sort()).toEqual(WRITEOFF_KEYS);
    expect(w.id).toMatch(UUID_RE);
    expect(w).toMatchObject({ str_reason: 'DEFECTIVE', str_reason_description: null, ts_unsafe_client_created_at: clientAt });
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(w[f]).toMatch(ISO_Z);
    expect(Object.keys(w.control_unit).sort()).toEqual(UNIT_KEYS);
    expect(w.control_unit).toMatchObject({ id: unit.unitId, str_code: unit.code, str_name: 'Retiro' });
    expect(w.operator_user).toMatchObject({ id: owner.user.id, str_name: owner.user.str_name, str_email: owner.email });
    expect(w.tags.map((t: { str_code: string }) => t.str_code)).toEqual(codes.slice(0, 2));
    for (const t of w.tags) {
      expect(Object.keys(t).sort()).toEqual(TAG_KEYS);
      expect(t.str_status).toBe('WRITTEN_OFF');
      expect(t.id).toMatch(UUID_RE);
      expect(t.ts_updated_at).toMatch(ISO_Z);
    }

    const rows = await tagRows(app, tagIds);
    expect(rows.map((t) => t.str_status)).toEqual(['WRITTEN_OFF', 'WRITTEN_OFF', 'AVAILABLE', 'AVAILABLE', 'AVAILABLE']);
    expect(rows[0]).toMatchObject({ str_writeoff_reason: 'DEFECTIVE', tags_reservation_id: null });
    expect(rows[1]).toMatchObject({ str_writeoff_reason: 'DEFECTIVE', tags_reservation_id: null });
    expect(rows[0]!.ts_writeoff_at).not.toBeNull();
    expect(rows[2]!.ts_writeoff_at).toBeNull();
    const links = await app.service.orm.em.fork().execute<{ tag_id: string; str_previous_status: string; animal_id: string | null }[]>(
      'select tag_id, str_previous_status, animal_id from tags_writeoff_tag where tags_writeoff_id = ? order by str_previous_status',
      [w.id],
    );
    expect(links).toEqual([
      { tag_id: tagIds[0], str_previous_status: 'AVAILABLE', animal_id: null },
      { tag_id: tagIds[1], str_previous_status: 'RESERVED', animal_id: null },
    ]);

    const events = await eventsOf(app, 'TagsWriteoff', w.id);
    expect(events.map((e) => e.str_type)).toEqual(['TAGS_WRITEOFF_CREATED']);
    expect(events[0]!.payload.tags).toEqual([
      { id: tagIds[0], str_code: codes[0], str_previous_status: 'AVAILABLE' },
      { id: tagIds[1], str_code: codes[1], str_previous_status: 'RESERVED', tags_reservation_id: reservationId },
    ]);
    expect(events[0]!.payload.changes).toMatchObject({ str_reason: 'DEFECTIVE', operator_user_id: owner.user.id, int_tag_count: 2 });
    // Some tags of the box are left: it is OPENED, not DEPLETED.
    expect((await eventsOf(app, 'TagsBox', boxId)).map((e) => e.str_type)).toEqual(['TAGS_BOX_OPENED']);
    const [box] = await app.service.orm.em.fork().execute<{ str_status: string }[]>('select str_status from tags_box where id = ?', [boxId]);
    expect(box!.str_status).toBe('OPENED');
  });

  test('writing off the last RESERVED tags of a reservation makes it USED (one TAGS_RESERVATION_USED naming the writeoff); it cannot be released', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockTags(app, unit.unitId, 4);
    const reservation = await reserveOverHttp(app, owner.access, { control_unit_id: unit.unitId, str_begin: codes[0], str_finish: codes[1] });
    await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: byCode([codes[0]!]) });
    expect(await reservationStatus(app, owner.access, reservation.id)).toBe('ACTIVE');
    const last = await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'LOST_UNUSED', tags: byCode([codes[1]!, codes[2]!]) });
    await expectUsedBy(app, owner.access, reservation.id, { control_unit_id: unit.unitId, tags_writeoff_id: last.body.data.id });
  });

  test('a box with none of its tags left available or reserved becomes DEPLETED', async () => {
    const { owner, unit } = await setup();
    const { boxId, codes } = await stockTags(app, unit.unitId, 4);
    await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'LOST_UNUSED', tags: byCode(codes.slice(0, 2)) });
    await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'OTHER', str_reason_description: 'Roídos por ratos', tags: byCode(codes.slice(2)) });
    const [box] = await app.service.orm.em.fork().execute<{ str_status: string }[]>('select str_status from tags_box where id = ?', [boxId]);
    expect(box!.str_status).toBe('DEPLETED');
    expect((await eventsOf(app, 'TagsBox', boxId)).map((e) => e.str_type)).toEqual(['TAGS_BOX_OPENED', 'TAGS_BOX_DEPLETED']);
  });

  test('bad bodies: 422 naming each field and item by path, nothing written', async () => {
    const { owner, unit } = await setup();
    const { codes, tagIds } = await stockTags(app, unit.unitId, 3);
    const empty = await post(owner.access, {});
    expect(empty.status).toBe(422);
    expect(empty.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(empty.body.detail.fields).sort()).toEqual(['control_unit_id', 'str_reason', 'tags']);

    const bad = await post(owner.access, {
      id: 'nope',
      control_unit_id: unit.unitId,
      operator_user_id: 'x',
      str_reason: 'EATEN',
      tags: [{ id: tagIds[0] }, { id: tagIds[1], str_code: codes[1] }, { id: 'not-a-uuid' }, { str_code: '12345' }, {}],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields).sort()).toEqual(['id', 'operator_user_id', 'str_reason', 'tags[1].id', 'tags[2].id', 'tags[3].str_code', 'tags[4].id'].sort());

    const other = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'OTHER', str_reason_description: '  ', tags: byCode(codes) });
    expect(other.status).toBe(422);
    expect(other.body.detail.fields).toEqual({ str_reason_description: ['is required when str_reason is OTHER'] });

    // The same tag named twice (by id and by code) is refused where it repeats.
    const twice = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: [{ id: tagIds[0] }, { str_code: codes[2] }, { str_code: codes[0] }] });
    expect(twice.status).toBe(422);
    expect(twice.body.detail.fields).toEqual({ 'tags[2].str_code': ['names the same tag as tags[0]'] });

    const unknown = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: [{ str_code: '076999999999999' }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.fields).toEqual({ 'tags[0].str_code': ['no such tag at this control unit'] });

    expect(await writeoffsAt(unit)).toBe(0);
    expect(await statusCounts(app, tagIds)).toEqual({ AVAILABLE: 3 });
  });
});

describe('POST /api/tags-writeoffs: applied tags end their animals', () => {
  test.each([
    ['ANIMAL_DEATH', 'DEAD', 'ANIMAL_DIED'],
    ['ANIMAL_SLAUGHTER', 'SLAUGHTERED', 'ANIMAL_SLAUGHTERED'],
    ['ANIMAL_EXPORT', 'EXPORTED', 'ANIMAL_EXPORTED'],
  ])('%s: the tags → WRITTEN_OFF, their ACTIVE animals → %s with ts_ended_at and an %s event each', async (reason, ended, eventType) => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds, codes } = await stockAnimals(app, unit.unitId, 3);
    const res = await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: reason, tags: byCode(codes.slice(0, 2)) });
    expect(res.body.data.tags.map((t: { str_status: string }) => t.str_status)).toEqual(['WRITTEN_OFF', 'WRITTEN_OFF']);
    const animals = await animalRows(app, animalIds);
    const status = Object.fromEntries(animals.map((a) => [a.id, a]));
    for (const id of animalIds.slice(0, 2)) {
      expect(status[id]!.str_status).toBe(ended);
      expect(status[id]!.ts_ended_at).not.toBeNull();
      // The animal keeps the last tag it carried.
      expect(status[id]!.current_tag_id).toBe(tagIds[animalIds.indexOf(id)]);
      const events = await eventsOf(app, 'Animal', id);
      expect(events.map((e) => e.str_type)).toEqual([eventType]);
      expect(events[0]!.payload).toMatchObject({ changes: { str_status: ended }, refs: { tags_writeoff_id: res.body.data.id, str_tag_code: codes[animalIds.indexOf(id)], str_reason: reason } });
    }
    expect(status[animalIds[2]!]).toMatchObject({ str_status: 'ACTIVE', ts_ended_at: null });
    const rows = await tagRows(app, tagIds.slice(0, 2));
    // A written-off tag keeps its animal for history.
    expect(rows.map((t) => [t.str_status, t.animal_id])).toEqual([['WRITTEN_OFF', animalIds[0]], ['WRITTEN_OFF', animalIds[1]]]);
    const links = await count(app, 'tags_writeoff_tag where tags_writeoff_id = ? and animal_id is not null', [res.body.data.id]);
    expect(links).toBe(2);
  });

  test('a dead animal cannot be written off or replaced again: its tag is final (422 INVALID_STATE naming code and status)', async () => {
    const { owner, unit } = await setup();
    const { animalIds, codes } = await stockAnimals(app, unit.unitId, 1);
    await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'ANIMAL_DEATH', tags: byCode(codes) });
    for (const reason of ['ANIMAL_SLAUGHTER', 'DAMAGED']) {
      const again = await post(owner.access, { control_unit_id: unit.unitId, str_reason: reason, tags: byCode(codes) });
      expect(again.status).toBe(422);
      expect(again.body.error).toBe('INVALID_STATE');
      expect(again.body.detail).toMatchObject({ allowed: ['AVAILABLE', 'RESERVED', 'APPLIED'], tags: [{ str_code: codes[0], str_status: 'WRITTEN_OFF' }], int_offending: 1 });
    }
    const { codes: fresh } = await stockTags(app, unit.unitId, 1);
    const replace = await app.call('POST', '/api/tags-replacements', {
      token: owner.access,
      body: { control_unit_id: unit.unitId, tags: [{ str_tag_code: codes[0], str_new_tag_code: fresh[0], str_reason: 'LOST' }] },
    });
    expect(replace.status).toBe(422);
    expect(replace.body.error).toBe('INVALID_STATE');
    expect(replace.body.detail).toMatchObject({ allowed: ['APPLIED'], tags: [{ str_code: codes[0], str_status: 'WRITTEN_OFF' }] });
    expect((await animalRows(app, animalIds))[0]!.str_status).toBe('DEAD');
    expect(await writeoffsAt(unit)).toBe(1);
  });

  test('animals not ACTIVE (MISSING, IN_TRANSIT) are not ended: 422 INVALID_STATE naming each animal, nothing written', async () => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds, codes } = await stockAnimals(app, unit.unitId, 3);
    await setStatus(app, 'animal', [animalIds[1]!], 'MISSING');
    await setStatus(app, 'animal', [animalIds[2]!], 'IN_TRANSIT');
    const res = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'ANIMAL_DEATH', tags: byCode(codes) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('INVALID_STATE');
    expect(res.body.detail.allowed).toEqual(['ACTIVE']);
    expect(res.body.detail.animals).toEqual([
      { id: animalIds[1], str_tag_code: codes[1], str_status: 'MISSING' },
      { id: animalIds[2], str_tag_code: codes[2], str_status: 'IN_TRANSIT' },
    ]);
    expect((await animalRows(app, animalIds)).map((a) => a.str_status).sort()).toEqual(['ACTIVE', 'IN_TRANSIT', 'MISSING']);
    expect(await statusCounts(app, tagIds)).toEqual({ APPLIED: 3 });
    expect(await writeoffsAt(unit)).toBe(0);
  });
});

describe('POST /api/tags-writeoffs: refusals', () => {
  test('the reason must fit the tag: an applied tag lost or damaged is replaced, an unused tag did not die (422 RULE_VIOLATED), nothing written', async () => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds: applied, codes: appliedCodes } = await stockAnimals(app, unit.unitId, 2);
    const { tagIds: unused, codes: unusedCodes } = await stockTags(app, unit.unitId, 2);
    for (const reason of ['DAMAGED', 'DEFECTIVE', 'LOST_UNUSED', 'OTHER']) {
      const res = await post(owner.access, { control_unit_id: unit.unitId, str_reason: reason, str_reason_description: 'x', tags: byCode([unusedCodes[0]!, appliedCodes[1]!]) });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('RULE_VIOLATED');
      expect(res.body.detail).toMatchObject({ rule: 'WRITEOFF_REASON_FITS_TAG', str_reason: reason, allowed: ['AVAILABLE', 'RESERVED'], tags: [{ str_code: appliedCodes[1], str_status: 'APPLIED' }] });
      expect(res.body.detail.message).toContain('/api/tags-replacements');
    }
    const death = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'ANIMAL_DEATH', tags: byCode([appliedCodes[0]!, unusedCodes[1]!]) });
    expect(death.status).toBe(422);
    expect(death.body.error).toBe('RULE_VIOLATED');
    expect(death.body.detail).toMatchObject({ allowed: ['APPLIED'], tags: [{ str_code: unusedCodes[1], str_status: 'AVAILABLE' }] });
    expect(await statusCounts(app, applied)).toEqual({ APPLIED: 2 });
    expect(await statusCounts(app, unused)).toEqual({ AVAILABLE: 2 });
    expect((await animalRows(app, animalIds)).map((a) => a.str_status)).toEqual(['ACTIVE', 'ACTIVE']);
    expect(await writeoffsAt(unit)).toBe(0);
  });

  test('tags IN_TRANSIT, REPLACED or WRITTEN_OFF: 422 INVALID_STATE naming each code and status and the allowed ones; the good tags of the request stay', async () => {
    const { owner, unit } = await setup();
    const { tagIds, codes } = await stockTags(app, unit.unitId, 4);
    await setStatus(app, 'tag', [tagIds[0]!], 'IN_TRANSIT');
    await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: byCode([codes[1]!]) });
    const { codes: appliedCodes } = await stockAnimals(app, unit.unitId, 1);
    const replaced = await app.call('POST', '/api/tags-replacements', {
      token: owner.access,
      body: { control_unit_id: unit.unitId, tags: [{ str_tag_code: appliedCodes[0], str_new_tag_code: codes[3], str_reason: 'ILLEGIBLE' }] },
    });
    expect(replaced.status).toBe(201);

    const res = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: byCode([codes[2]!, codes[0]!, codes[1]!, appliedCodes[0]!]) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('INVALID_STATE');
    expect(res.body.detail).toMatchObject({
      allowed: ['AVAILABLE', 'RESERVED', 'APPLIED'],
      tags: [
        { str_code: codes[0], str_status: 'IN_TRANSIT' },
        { str_code: codes[1], str_status: 'WRITTEN_OFF' },
        { str_code: appliedCodes[0], str_status: 'REPLACED' },
      ],
      int_offending: 3,
    });
    expect((await tagRows(app, [tagIds[2]!]))[0]!.str_status).toBe('AVAILABLE');
    expect(await writeoffsAt(unit)).toBe(1);
  });

  test('who: a VIEWER 403, a stranger 422 on control_unit_id (the unit is not visible), an operator_user_id outside the organization 422; an OPERATOR writes off for another member', async () => {
    const { owner, unit } = await setup();
    const { tagIds, codes } = await stockTags(app, unit.unitId, 2);
    const body = { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: byCode([codes[0]!]) };
    const viewer = await member(app, 'VIEWER', owner.org);
    const refused = await post(viewer.access, body);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('FORBIDDEN');
    const stranger = await member(app);
    const invisible = await post(stranger.access, body);
    expect(invisible.status).toBe(422);
    expect(Object.keys(invisible.body.detail.fields)).toEqual(['control_unit_id']);
    const authority = await official(app, county.id);
    expect((await post(authority.access, body)).status).toBe(403);
    const outsider = await post(owner.access, { ...body, operator_user_id: stranger.user.id });
    expect(outsider.status).toBe(422);
    expect(Object.keys(outsider.body.detail.fields)).toEqual(['operator_user_id']);
    expect(await statusCounts(app, tagIds)).toEqual({ AVAILABLE: 2 });

    const operator = await member(app, 'OPERATOR', owner.org);
    const res = await writeOff(operator.access, { ...body, operator_user_id: viewer.user.id });
    expect(res.body.data.operator_user.id).toBe(viewer.user.id);
    const events = await eventsOf(app, 'TagsWriteoff', res.body.data.id);
    expect(events[0]!.payload.changes.operator_user_id).toBe(viewer.user.id);
  });
});

describe('POST /api/tags-writeoffs: bulk and offline-first', () => {
  const bulk = async (n: number, reason: string) => {
    const { owner, unit } = await setup();
    const stock = reason === 'ANIMAL_DEATH' ? await stockAnimals(app, unit.unitId, n) : await stockTags(app, unit.unitId, n);
    const res = await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: reason, tags: byCode(stock.codes) });
    expect(res.body.data.tags).toHaveLength(n);
    expect(await statusCounts(app, stock.tagIds)).toEqual({ WRITTEN_OFF: n });
    const read = await app.call('GET', `/api/tags-writeoffs/${res.body.data.id}`, { token: owner.access });
    expect(read.body.data.tags).toHaveLength(n);
    expect([res.sql, read.sql]).toEqual([expect.any(Number), expect.any(Number)]);
    expect(Math.min(res.sql, read.sql)).toBeGreaterThan(0);
    return [res.sql, read.sql];
  };

  test('500 tags run the same number of SQL statements as 5 (create and read), unused tags and ended animals alike', async () => {
    expect(await bulk(500, 'DAMAGED')).toEqual(await bulk(5, 'DAMAGED'));
    expect(await bulk(500, 'ANIMAL_DEATH')).toEqual(await bulk(5, 'ANIMAL_DEATH'));
  });

  test('tag #250 of 500 not at the unit: 422 naming tags[249], nothing left behind', async () => {
    const { owner, unit } = await setup();
    const elsewhere = await makeUnit(app, owner.org.id, county);
    const { tagIds, codes } = await stockTags(app, unit.unitId, 500);
    const { tagIds: otherIds, codes: otherCodes } = await stockTags(app, elsewhere.unitId, 1);
    const list = [...codes];
    list[249] = otherCodes[0]!;
    const res = await post(owner.access, { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: byCode(list) });
    expect(res.status).toBe(422);
    expect(res.body.detail.fields).toEqual({ 'tags[249].str_code': ['no such tag at this control unit'] });
    expect(await statusCounts(app, [...tagIds, ...otherIds])).toEqual({ AVAILABLE: 501 });
    expect(await writeoffsAt(unit)).toBe(0);
    expect(await count(app, 'tags_writeoff_tag where tag_id = any(array[?]::uuid[])', [tagIds])).toBe(0);
    expect(await count(app, "tags_box where control_unit_id = ? and str_status <> 'IN_STOCK'", [unit.unitId])).toBe(0);
  });

  test('two writeoffs at once sharing a tag: one succeeds, the other is 422 INVALID_STATE and writes nothing', async () => {
    const { owner, unit } = await setup();
    const { tagIds, codes } = await stockTags(app, unit.unitId, 41);
    const first = { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: byCode(codes.slice(0, 21)) };
    const second = { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: byCode(codes.slice(20)) };
    const results = await Promise.all([post(owner.access, first), post(owner.access, second)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    const refused = results.find((r) => r.status === 422)!;
    expect(refused.body.error).toBe('INVALID_STATE');
    expect(refused.body.detail.tags).toEqual([{ str_code: codes[20], str_status: 'WRITTEN_OFF' }]);
    expect(await statusCounts(app, tagIds)).toEqual({ WRITTEN_OFF: 21, AVAILABLE: 20 });
    expect(await writeoffsAt(unit)).toBe(1);
    expect(await count(app, 'tags_writeoff_tag where tag_id = any(array[?]::uuid[])', [tagIds])).toBe(21);
  });

  test('a client id: the same body again is a replay (201, same record, one row, one event); another body is 422 CONFLICT; at once, both get the record', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockTags(app, unit.unitId, 6);
    const id = randomUUID();
    const body = { id, control_unit_id: unit.unitId, str_reason: 'LOST_UNUSED', tags: byCode(codes.slice(0, 2)), ts_unsafe_client_created_at: '2025-12-31T23:59:59.000Z' };
    const first = await writeOff(owner.access, body);
    const second = await writeOff(owner.access, body);
    expect(first.body.data.id).toBe(id);
    expect(second.body).toEqual(first.body);
    const other = await post(owner.access, { ...body, tags: byCode(codes.slice(2, 3)) });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
    expect(await count(app, 'tags_writeoff where id = ?', [id])).toBe(1);
    expect((await eventsOf(app, 'TagsWriteoff', id)).length).toBe(1);

    const racing = { ...body, id: randomUUID(), tags: byCode(codes.slice(3)) };
    const [a, b] = await Promise.all([post(owner.access, racing), post(owner.access, racing)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body).toEqual(b.body);
    expect(await count(app, 'tags_writeoff where id = ?', [racing.id])).toBe(1);
  });
});

describe('reading tags writeoffs', () => {
  test('index and search answer Tags Writeoff Partial Data, filtered; by id the Tags Writeoff; a stranger gets 404 and an empty list; an authority of the UF reads', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockTags(app, unit.unitId, 3);
    const { animalIds, codes: appliedCodes } = await stockAnimals(app, unit.unitId, 1);
    const a = (await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: byCode(codes.slice(0, 2)) })).body.data;
    const b = (await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'ANIMAL_EXPORT', tags: byCode(appliedCodes) })).body.data;

    const index = await app.call('GET', `/api/tags-writeoffs?control_unit_id=${unit.unitId}`, { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
    expect(index.body.data.map((w: { id: string }) => w.id)).toEqual([b.id, a.id]);
    const partial = index.body.data[1];
    expect(Object.keys(partial).sort()).toEqual(PARTIAL_KEYS);
    expect(partial).toEqual({
      id: a.id,
      str_reason: 'DEFECTIVE',
      ts_created_at: a.ts_created_at,
      ts_updated_at: a.ts_updated_at,
      control_unit_id: unit.unitId,
      operator_user_id: owner.user.id,
      str_control_unit_name: 'Retiro',
      str_establishment_name: `Fazenda ${unit.code}`,
      str_operator_user_name: owner.user.str_name,
      str_reason_description: null,
      ts_unsafe_client_created_at: null,
    });

    const search = async (filter: Record<string, unknown>) => (await app.call('POST', '/api/tags-writeoffs/search', { token: owner.access, body: filter })).body.data.map((w: { id: string }) => w.id);
    expect(await search({ str_reason: 'ANIMAL_EXPORT' })).toEqual([b.id]);
    expect(await search({ str_tag_code: codes[1] })).toEqual([a.id]);
    expect(await search({ animal_id: animalIds[0] })).toEqual([b.id]);
    expect(await search({ establishment_id: unit.establishmentId, str_order_by: 'ts_created_at', str_order: 'ASC' })).toEqual([a.id, b.id]);
    const unknown = await app.call('POST', '/api/tags-writeoffs/search', { token: owner.access, body: { bogus: 1 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.fields).toEqual({ bogus: ['is not a known filter'] });

    const read = await app.call('GET', `/api/tags-writeoffs/${b.id}`, { token: owner.access });
    expect(Object.keys(read.body.data).sort()).toEqual(WRITEOFF_KEYS);
    expect(read.body.data.tags).toEqual([expect.objectContaining({ str_code: appliedCodes[0], str_status: 'WRITTEN_OFF' })]);

    const stranger = await member(app);
    const hidden = await app.call('GET', `/api/tags-writeoffs/${a.id}`, { token: stranger.access });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toBe('NOT_FOUND');
    const strangerList = await app.call('GET', `/api/tags-writeoffs?control_unit_id=${unit.unitId}`, { token: stranger.access });
    expect(strangerList.body.data).toEqual([]);
    const authority = await official(app, county.id);
    expect((await app.call('GET', `/api/tags-writeoffs/${a.id}`, { token: authority.access })).status).toBe(200);
    const admin = await login(app, await makeUser(app, { admin: true }));
    expect((await app.call('GET', `/api/tags-writeoffs/${a.id}`, { token: admin.access })).status).toBe(200);
    expect((await app.call('GET', '/api/tags-writeoffs/not-a-uuid', { token: owner.access })).status).toBe(400);
  });

  test('the index runs the same number of statements for 2 and for 12 writeoffs (REST and GraphQL with relations)', async () => {
    const sqlFor = async (n: number) => {
      const { owner, unit } = await setup();
      const { codes } = await stockTags(app, unit.unitId, n * 2);
      for (let i = 0; i < n; i++) await writeOff(owner.access, { control_unit_id: unit.unitId, str_reason: 'DAMAGED', tags: byCode(codes.slice(i * 2, i * 2 + 2)) });
      const rest = await app.call('GET', '/api/tags-writeoffs', { token: owner.access });
      expect(rest.body.data).toHaveLength(n);
      const gql = await app.graphql(
        '{ tagsWriteoffs { data { id str_establishment_name operator_user { str_name organizations { id } } control_unit { str_code establishment { str_name } } tags { str_code str_status } } } }',
        {},
        owner.access,
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.tagsWriteoffs.data).toHaveLength(n);
      expect(gql.body.data.tagsWriteoffs.data[0].tags).toHaveLength(2);
      expect(Math.min(rest.sql, gql.sql)).toBeGreaterThan(0);
      return [rest.sql, gql.sql];
    };
    expect(await sqlFor(12)).toEqual(await sqlFor(2));
  });

  test('GraphQL: createTagsWriteoff and tagsWriteoff', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockTags(app, unit.unitId, 1);
    const created = await app.graphql(
      'mutation($input: TagsWriteoffCreateInput!) { createTagsWriteoff(input: $input) { id str_reason tags { str_code str_status } } }',
      { input: { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: [{ str_code: codes[0] }] } },
      owner.access,
    );
    expect(created.body.errors).toBeUndefined();
    const w = created.body.data.createTagsWriteoff;
    expect(w.tags).toEqual([{ str_code: codes[0], str_status: 'WRITTEN_OFF' }]);
    const read = await app.graphql('query($id: UUID!) { tagsWriteoff(id: $id) { id str_operator_user_name control_unit_id } }', { id: w.id }, owner.access);
    expect(read.body.data.tagsWriteoff).toEqual({ id: w.id, str_operator_user_name: owner.user.str_name, control_unit_id: unit.unitId });
    const refused = await app.graphql(
      'mutation($input: TagsWriteoffCreateInput!) { createTagsWriteoff(input: $input) { id } }',
      { input: { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: [{ str_code: codes[0] }] } },
      owner.access,
    );
    expect(refused.body.errors[0].extensions.code).toBe('INVALID_STATE');
  });
});
