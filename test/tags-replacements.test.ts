import { randomUUID } from 'node:crypto';
import { mustPost, useApp } from './helpers/app.js';
import { count } from './helpers/db.js';
import { member, official } from './helpers/factories.js';
import { ISO_Z, UUID_RE, useCounty } from './helpers/places.js';
import { makeUnit, ownerWithUnit, stockAnimals, stockTags, type TestUnit } from './helpers/tags.js';
import { TAG_KEYS, animalRows, eventsOf, expectUsedBy, reservationStatus, reserveOverHttp, reserveTags, setStatus, statusCounts, tagRows } from './helpers/tags-out.js';

const app = useApp();
const county = useCounty(app);

const REPLACEMENT_KEYS = ['id', 'control_unit_id', 'operator_user_id', 'str_description', 'str_label', 'tags', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at'].sort();
const ITEM_KEYS = ['animal_id', 'str_reason', 'old_tag', 'new_tag'].sort();

const setup = () => ownerWithUnit(app, county);

const post = (token: string, body: unknown) => app.call('POST', '/api/tags-replacements', { token, body });
const pairs = (olds: string[], news: string[], reason = 'LOST') => olds.map((c, i) => ({ str_tag_code: c, str_new_tag_code: news[i], str_reason: reason }));

const replace = (token: string, body: unknown) => mustPost(app, '/api/tags-replacements', token, body);

const replacementsAt = (unit: TestUnit) => count(app, 'tags_replacement where control_unit_id = ?', [unit.unitId]);

describe('POST /api/tags-replacements', () => {
  test('applied tags → REPLACED (keeping the animal), new AVAILABLE or RESERVED tags → APPLIED on the same animals; the documented record; events', async () => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds: oldIds, codes: oldCodes } = await stockAnimals(app, unit.unitId, 2);
    const { boxId, tagIds: newIds, codes: newCodes } = await stockTags(app, unit.unitId, 3);
    const reservationId = await reserveTags(app, unit.unitId, [newIds[1]!]);
    const clientAt = '2026-03-04T05:06:07.000Z';
    const res = await replace(owner.access, {
      control_unit_id: unit.unitId,
      str_description: ' Brincos perdidos no pasto ',
      str_label: 'Lote 7',
      ts_unsafe_client_created_at: clientAt,
      tags: [
        { tag_id: oldIds[0], new_tag_id: newIds[0], str_reason: 'LOST' },
        { str_tag_code: oldCodes[1], str_new_tag_code: newCodes[1], str_reason: 'ILLEGIBLE' },
      ],
    });
    const r = res.body.data;
    expect(Object.keys(r).sort()).toEqual(REPLACEMENT_KEYS);
    expect(r.id).toMatch(UUID_RE);
    expect(r).toMatchObject({
      control_unit_id: unit.unitId,
      operator_user_id: owner.user.id,
      str_description: 'Brincos perdidos no pasto',
      str_label: 'Lote 7',
      ts_unsafe_client_created_at: clientAt,
    });
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(r[f]).toMatch(ISO_Z);
    expect(r.tags).toHaveLength(2);
    for (const [i, item] of r.tags.entries()) {
      expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      expect(Object.keys(item.old_tag).sort()).toEqual(TAG_KEYS);
      expect(Object.keys(item.new_tag).sort()).toEqual(TAG_KEYS);
      expect(item).toMatchObject({
        animal_id: animalIds[i],
        str_reason: ['LOST', 'ILLEGIBLE'][i],
        old_tag: { id: oldIds[i], str_code: oldCodes[i], str_status: 'REPLACED' },
        new_tag: { id: newIds[i], str_code: newCodes[i], str_status: 'APPLIED' },
      });
      expect(item.new_tag.ts_updated_at).toMatch(ISO_Z);
    }

    // The animals keep their ids; the old tags keep their animals for history.
    const animals = await animalRows(app, animalIds);
    expect(Object.fromEntries(animals.map((a) => [a.id, [a.str_status, a.current_tag_id]]))).toEqual({
      [animalIds[0]!]: ['ACTIVE', newIds[0]],
      [animalIds[1]!]: ['ACTIVE', newIds[1]],
    });
    const old = await tagRows(app, oldIds);
    expect(old.map((t) => [t.str_status, t.animal_id])).toEqual([['REPLACED', animalIds[0]], ['REPLACED', animalIds[1]]]);
    const fresh = await tagRows(app, newIds);
    expect(fresh.map((t) => [t.str_status, t.animal_id, t.tags_reservation_id])).toEqual([
      ['APPLIED', animalIds[0], null],
      ['APPLIED', animalIds[1], null],
      ['AVAILABLE', null, null],
    ]);

    const events = await eventsOf(app, 'TagsReplacement', r.id);
    expect(events.map((e) => e.str_type)).toEqual(['TAGS_REPLACEMENT_CREATED']);
    expect(events[0]!.payload.tags[1]).toEqual({
      animal_id: animalIds[1],
      old_tag_id: oldIds[1],
      str_old_tag_code: oldCodes[1],
      new_tag_id: newIds[1],
      str_new_tag_code: newCodes[1],
      str_reason: 'ILLEGIBLE',
      tags_reservation_id: reservationId,
    });
    for (const [i, animalId] of animalIds.entries()) {
      const history = await eventsOf(app, 'Animal', animalId);
      expect(history.map((e) => e.str_type)).toEqual(['ANIMAL_TAG_REPLACED']);
      expect(history[0]!.payload).toMatchObject({
        changes: { current_tag_id: newIds[i] },
        refs: { tags_replacement_id: r.id, old_tag_id: oldIds[i], str_old_tag_code: oldCodes[i], new_tag_id: newIds[i], str_new_tag_code: newCodes[i] },
      });
    }
    expect((await eventsOf(app, 'TagsBox', boxId)).map((e) => e.str_type)).toEqual(['TAGS_BOX_OPENED']);
  });

  test('an animal is replaced again later: its second tag → REPLACED, a third → APPLIED; the first stays REPLACED', async () => {
    const { owner, unit } = await setup();
    const { animalIds, codes: first } = await stockAnimals(app, unit.unitId, 1);
    const { tagIds, codes } = await stockTags(app, unit.unitId, 2);
    await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs(first, [codes[0]!], 'DAMAGED') });
    await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs([codes[0]!], [codes[1]!], 'LOST') });
    expect((await tagRows(app, tagIds)).map((t) => t.str_status)).toEqual(['REPLACED', 'APPLIED']);
    expect((await animalRows(app, animalIds))[0]!.current_tag_id).toBe(tagIds[1]);
    const search = await app.call('POST', '/api/tags-replacements/search', { token: owner.access, body: { animal_id: animalIds[0] } });
    expect(search.body.meta.int_total_results).toBe(2);
  });

  test('a replacement taking the last RESERVED tag of a reservation makes it USED (one TAGS_RESERVATION_USED naming the replacement); it cannot be released', async () => {
    const { owner, unit } = await setup();
    const { codes: olds } = await stockAnimals(app, unit.unitId, 2);
    const { codes } = await stockTags(app, unit.unitId, 3);
    const reservation = await reserveOverHttp(app, owner.access, { control_unit_id: unit.unitId, str_begin: codes[0], str_finish: codes[1] });
    await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs([olds[0]!], [codes[0]!]) });
    expect(await reservationStatus(app, owner.access, reservation.id)).toBe('ACTIVE');
    const last = await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs([olds[1]!], [codes[1]!], 'DAMAGED') });
    await expectUsedBy(app, owner.access, reservation.id, { control_unit_id: unit.unitId, tags_replacement_id: last.body.data.id });
  });

  test('refused transitions: an old tag not APPLIED, a new tag not AVAILABLE/RESERVED (a final tag never comes back): 422 INVALID_STATE naming codes and statuses, nothing changed', async () => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds: appliedIds, codes: applied } = await stockAnimals(app, unit.unitId, 3);
    const { tagIds: unusedIds, codes: unused } = await stockTags(app, unit.unitId, 4);
    await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs([applied[0]!], [unused[0]!]) });
    const writeoff = await app.call('POST', '/api/tags-writeoffs', { token: owner.access, body: { control_unit_id: unit.unitId, str_reason: 'DEFECTIVE', tags: [{ str_code: unused[1] }] } });
    expect(writeoff.status).toBe(201);

    const replacedAgain = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs([applied[0]!], [unused[3]!]) });
    expect(replacedAgain.status).toBe(422);
    expect(replacedAgain.body.error).toBe('INVALID_STATE');
    expect(replacedAgain.body.detail).toMatchObject({ allowed: ['APPLIED'], tags: [{ str_code: applied[0], str_status: 'REPLACED' }] });

    const oldUnused = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs([applied[1]!, unused[2]!], [unused[3]!, applied[2]!]) });
    expect(oldUnused.status).toBe(422);
    expect(oldUnused.body.error).toBe('INVALID_STATE');
    expect(oldUnused.body.detail).toMatchObject({ allowed: ['APPLIED'], tags: [{ str_code: unused[2], str_status: 'AVAILABLE' }], int_offending: 1 });

    // New tags: another animal's (APPLIED), the replaced one (REPLACED) and the written-off one (WRITTEN_OFF).
    for (const [code, status] of [[applied[2]!, 'APPLIED'], [applied[0]!, 'REPLACED'], [unused[1]!, 'WRITTEN_OFF']] as const) {
      const res = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs([applied[1]!], [code]) });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('INVALID_STATE');
      expect(res.body.detail).toMatchObject({ allowed: ['AVAILABLE', 'RESERVED'], tags: [{ str_code: code, str_status: status }] });
    }
    expect(await statusCounts(app, appliedIds)).toEqual({ REPLACED: 1, APPLIED: 2 });
    expect(await statusCounts(app, unusedIds)).toEqual({ APPLIED: 1, WRITTEN_OFF: 1, AVAILABLE: 2 });
    expect((await animalRows(app, animalIds.slice(1))).map((a) => a.current_tag_id).sort()).toEqual(appliedIds.slice(1).sort());
    expect(await replacementsAt(unit)).toBe(1);
  });

  test('animals not ACTIVE (MISSING, DEAD) are not re-tagged: 422 INVALID_STATE naming each animal, nothing changed', async () => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds, codes } = await stockAnimals(app, unit.unitId, 3);
    const { tagIds: newIds, codes: newCodes } = await stockTags(app, unit.unitId, 3);
    await setStatus(app, 'animal', [animalIds[0]!], 'MISSING');
    await setStatus(app, 'animal', [animalIds[2]!], 'DEAD');
    const res = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs(codes, newCodes) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('INVALID_STATE');
    expect(res.body.detail).toMatchObject({
      allowed: ['ACTIVE'],
      animals: [
        { id: animalIds[0], str_tag_code: codes[0], str_status: 'MISSING' },
        { id: animalIds[2], str_tag_code: codes[2], str_status: 'DEAD' },
      ],
    });
    expect(await statusCounts(app, tagIds)).toEqual({ APPLIED: 3 });
    expect(await statusCounts(app, newIds)).toEqual({ AVAILABLE: 3 });
    expect(await replacementsAt(unit)).toBe(0);
  });

  test('bad bodies: 422 naming each field and item by path; tags of another unit and a tag named twice are refused where named', async () => {
    const { owner, unit } = await setup();
    const elsewhere = await makeUnit(app, owner.org.id, county);
    const { codes } = await stockAnimals(app, unit.unitId, 2);
    const { codes: newCodes } = await stockTags(app, unit.unitId, 2);
    const { codes: otherCodes } = await stockTags(app, elsewhere.unitId, 1);
    const empty = await post(owner.access, {});
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.detail.fields).sort()).toEqual(['control_unit_id', 'tags']);

    const bad = await post(owner.access, {
      control_unit_id: unit.unitId,
      tags: [
        { str_tag_code: codes[0], str_new_tag_code: newCodes[0] },
        { str_tag_code: codes[1], str_reason: 'STOLEN' },
        { tag_id: 'x', str_new_tag_code: '1', str_reason: 'LOST' },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.fields).toEqual({
      'tags[0].str_reason': ['is required'],
      'tags[1].new_tag_id': ['new_tag_id or str_new_tag_code is required'],
      'tags[1].str_reason': ['must be one of LOST, DAMAGED, ILLEGIBLE'],
      'tags[2].tag_id': ['must be a uuid'],
      'tags[2].str_new_tag_code': ['must be a tag code of 15 digits'],
    });

    const elsewhereTag = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs(codes, [newCodes[0]!, otherCodes[0]!]) });
    expect(elsewhereTag.status).toBe(422);
    expect(elsewhereTag.body.detail.fields).toEqual({ 'tags[1].str_new_tag_code': ['no such tag at this control unit'] });

    const twice = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs(codes, [newCodes[0]!, newCodes[0]!]) });
    expect(twice.status).toBe(422);
    expect(twice.body.detail.fields).toEqual({ 'tags[1].str_new_tag_code': ['names the same tag as tags[0]'] });

    const selfSwap = await post(owner.access, { control_unit_id: unit.unitId, tags: pairs([codes[0]!], [codes[0]!]) });
    expect(selfSwap.status).toBe(422);
    expect(selfSwap.body.detail.fields).toEqual({ 'tags[0].str_new_tag_code': ['names the same tag as tags[0]'] });
    expect(await replacementsAt(unit)).toBe(0);
  });

  test('who: a VIEWER 403, a stranger 422 on control_unit_id; an OPERATOR replaces', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockAnimals(app, unit.unitId, 1);
    const { codes: newCodes } = await stockTags(app, unit.unitId, 1);
    const body = { control_unit_id: unit.unitId, tags: pairs(codes, newCodes) };
    expect((await post((await member(app, 'VIEWER', owner.org)).access, body)).status).toBe(403);
    const stranger = await post((await member(app)).access, body);
    expect(stranger.status).toBe(422);
    expect(Object.keys(stranger.body.detail.fields)).toEqual(['control_unit_id']);
    expect(await replacementsAt(unit)).toBe(0);
    const operator = await member(app, 'OPERATOR', owner.org);
    const res = await replace(operator.access, body);
    expect(res.body.data.operator_user_id).toBe(operator.user.id);
  });
});

describe('POST /api/tags-replacements: bulk and offline-first', () => {
  const bulk = async (n: number) => {
    const { owner, unit } = await setup();
    const { animalIds, codes } = await stockAnimals(app, unit.unitId, n);
    const { tagIds: newIds, codes: newCodes } = await stockTags(app, unit.unitId, n);
    const res = await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs(codes, newCodes) });
    expect(res.body.data.tags).toHaveLength(n);
    expect(await statusCounts(app, newIds)).toEqual({ APPLIED: n });
    expect(new Set((await animalRows(app, animalIds)).map((a) => a.current_tag_id))).toEqual(new Set(newIds));
    const read = await app.call('GET', `/api/tags-replacements/${res.body.data.id}`, { token: owner.access });
    expect(read.body.data.tags).toHaveLength(n);
    expect(Math.min(res.sql, read.sql)).toBeGreaterThan(0);
    return [res.sql, read.sql];
  };

  test('300 replacements run the same number of SQL statements as 3 (create and read)', async () => {
    expect(await bulk(300)).toEqual(await bulk(3));
  });

  test('item #150 of 300 with a new tag of another unit: 422 naming it, nothing left behind', async () => {
    const { owner, unit } = await setup();
    const elsewhere = await makeUnit(app, owner.org.id, county);
    const { animalIds, tagIds, codes } = await stockAnimals(app, unit.unitId, 300);
    const { tagIds: newIds, codes: newCodes } = await stockTags(app, unit.unitId, 300);
    const { codes: otherCodes } = await stockTags(app, elsewhere.unitId, 1);
    const items = pairs(codes, newCodes);
    items[149]!.str_new_tag_code = otherCodes[0]!;
    const res = await post(owner.access, { control_unit_id: unit.unitId, tags: items });
    expect(res.status).toBe(422);
    expect(res.body.detail.fields).toEqual({ 'tags[149].str_new_tag_code': ['no such tag at this control unit'] });
    expect(await statusCounts(app, tagIds)).toEqual({ APPLIED: 300 });
    expect(await statusCounts(app, newIds)).toEqual({ AVAILABLE: 300 });
    expect(new Set((await animalRows(app, animalIds)).map((a) => a.current_tag_id))).toEqual(new Set(tagIds));
    expect(await replacementsAt(unit)).toBe(0);
    expect(await count(app, 'tags_replacement_tag where animal_id = any(array[?]::uuid[])', [animalIds])).toBe(0);
  });

  test('a client id: the same body again is a replay (201, same record, one row); another body is 422 CONFLICT', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockAnimals(app, unit.unitId, 2);
    const { codes: newCodes } = await stockTags(app, unit.unitId, 2);
    const id = randomUUID();
    const body = { id, control_unit_id: unit.unitId, tags: pairs([codes[0]!], [newCodes[0]!]), ts_unsafe_client_created_at: '2026-01-01T00:00:00.000Z' };
    const first = await replace(owner.access, body);
    const second = await replace(owner.access, body);
    expect(first.body.data.id).toBe(id);
    expect(second.body).toEqual(first.body);
    const other = await post(owner.access, { ...body, tags: pairs([codes[1]!], [newCodes[1]!]) });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
    expect(await count(app, 'tags_replacement where id = ?', [id])).toBe(1);
    expect((await eventsOf(app, 'TagsReplacement', id)).length).toBe(1);
  });
});

describe('reading tags replacements', () => {
  test('index, search and by id for the unit; a stranger gets 404 and an empty list; an authority of the UF reads', async () => {
    const { owner, unit } = await setup();
    const { codes } = await stockAnimals(app, unit.unitId, 2);
    const { codes: newCodes } = await stockTags(app, unit.unitId, 2);
    const a = (await replace(owner.access, { control_unit_id: unit.unitId, str_label: 'Manhã', tags: pairs([codes[0]!], [newCodes[0]!], 'DAMAGED') })).body.data;
    const b = (await replace(owner.access, { control_unit_id: unit.unitId, str_label: 'Tarde', tags: pairs([codes[1]!], [newCodes[1]!], 'LOST') })).body.data;
    const index = await app.call('GET', `/api/tags-replacements?control_unit_id=${unit.unitId}`, { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta.int_total_results).toBe(2);
    expect(index.body.data.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    expect(Object.keys(index.body.data[0]).sort()).toEqual(REPLACEMENT_KEYS);
    const search = async (filter: Record<string, unknown>) => (await app.call('POST', '/api/tags-replacements/search', { token: owner.access, body: filter })).body.data.map((r: { id: string }) => r.id);
    expect(await search({ str_reason: 'DAMAGED' })).toEqual([a.id]);
    expect(await search({ str_tag_code: newCodes[1] })).toEqual([b.id]);
    expect(await search({ str_tag_code: codes[0] })).toEqual([a.id]);
    expect(await search({ str_query: 'tarde' })).toEqual([b.id]);
    const read = await app.call('GET', `/api/tags-replacements/${a.id}`, { token: owner.access });
    expect(read.body.data).toEqual(a);

    const stranger = await member(app);
    expect((await app.call('GET', `/api/tags-replacements/${a.id}`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('GET', `/api/tags-replacements?control_unit_id=${unit.unitId}`, { token: stranger.access })).body.data).toEqual([]);
    expect((await app.call('GET', `/api/tags-replacements/${a.id}`, { token: (await official(app, county.id)).access })).status).toBe(200);
  });

  test('the index runs the same number of statements for 2 and for 10 replacements (REST and GraphQL with relations)', async () => {
    const sqlFor = async (n: number) => {
      const { owner, unit } = await setup();
      const { codes } = await stockAnimals(app, unit.unitId, n);
      const { codes: newCodes } = await stockTags(app, unit.unitId, n);
      for (let i = 0; i < n; i++) await replace(owner.access, { control_unit_id: unit.unitId, tags: pairs([codes[i]!], [newCodes[i]!]) });
      const rest = await app.call('GET', '/api/tags-replacements', { token: owner.access });
      expect(rest.body.data).toHaveLength(n);
      const gql = await app.graphql(
        '{ tagsReplacements { data { id str_establishment_name operator_user { str_name } control_unit { str_code } tags { animal_id old_tag { str_code } new_tag { str_code last_control_unit { str_code } } } } } }',
        {},
        owner.access,
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.tagsReplacements.data).toHaveLength(n);
      expect(Math.min(rest.sql, gql.sql)).toBeGreaterThan(0);
      return [rest.sql, gql.sql];
    };
    expect(await sqlFor(10)).toEqual(await sqlFor(2));
  });

  test('GraphQL: createTagsReplacement and tagsReplacement', async () => {
    const { owner, unit } = await setup();
    const { animalIds, codes } = await stockAnimals(app, unit.unitId, 1);
    const { codes: newCodes } = await stockTags(app, unit.unitId, 1);
    const created = await app.graphql(
      'mutation($input: TagsReplacementCreateInput!) { createTagsReplacement(input: $input) { id tags { animal_id str_reason old_tag { str_status } new_tag { str_code str_status } } } }',
      { input: { control_unit_id: unit.unitId, tags: pairs(codes, newCodes, 'ILLEGIBLE') } },
      owner.access,
    );
    expect(created.body.errors).toBeUndefined();
    const r = created.body.data.createTagsReplacement;
    expect(r.tags).toEqual([{ animal_id: animalIds[0], str_reason: 'ILLEGIBLE', old_tag: { str_status: 'REPLACED' }, new_tag: { str_code: newCodes[0], str_status: 'APPLIED' } }]);
    const read = await app.graphql('query($id: UUID!) { tagsReplacement(id: $id) { id str_operator_user_name } }', { id: r.id }, owner.access);
    expect(read.body.data.tagsReplacement).toEqual({ id: r.id, str_operator_user_name: owner.user.str_name });
  });
});
