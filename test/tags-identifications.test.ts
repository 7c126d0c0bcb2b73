import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { count, rows } from './helpers/db.js';
import { animalBody, fieldWork, identify } from './helpers/identify.js';
import { ISO_Z, UUID_RE } from './helpers/places.js';
import { makeUnit, stockAnimals, stockTags } from './helpers/tags.js';
import { eventsOf } from './helpers/tags-out.js';

const app = useApp();

const KEYS = ['id', 'control_unit_id', 'control_unit', 'operator_user_id', 'int_animal_count', 'animals', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at'].sort();
const PARTIAL_KEYS = ['id', 'control_unit_id', 'str_control_unit_code', 'str_establishment_name', 'operator_user_id', 'int_animal_count', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at'].sort();

const post = (token: string, body: unknown) => app.call('POST', '/api/tags-identifications', { token, body });
const tagStates = (codes: string[]) => rows<{ str_code: string; str_status: string; animal_id: string | null; tags_reservation_id: string | null }>(app, 'select str_code, str_status, animal_id, tags_reservation_id from tag where str_code in (?) order by str_code', [codes]);
const DAY = 86_400_000;

describe('POST /api/tags-identifications', () => {
  test('applies tags by code and by id: 201 Tags Identification with its animals; tags APPLIED, animals ACTIVE at the unit, the box OPENED, events', async () => {
    const { owner, unit, stock } = await fieldWork(app, 5);
    await app.service.orm.em.fork().execute(`update establishment set str_socioenvironmental_status = 'UNDER_REVIEW' where id = ?`, [unit.establishmentId]);
    const identifiedAt = new Date(Date.now() - 3 * DAY).toISOString();
    const body = {
      to_control_unit_id: unit.unitId,
      ts_unsafe_client_created_at: '2026-03-01T10:00:00.000Z',
      animals: [
        animalBody(stock.codes[0]!, {
          str_name: "Mimosa d'Água?",
          str_rod_code: `RFID-${randomUUID()}`,
          ts_born_date: new Date(Date.now() - 400 * DAY).toISOString(),
          int_weight_kilos_at_identification: 180,
          ts_identified_at: identifiedAt,
          geo_identification: { type: 'Point', coordinates: [-47.9, -15.8] },
          str_extra_tag: 'B-12',
          str_description: 'malhada',
        }),
        { tag_id: stock.tagIds[1], str_species: 'BUBALINE', str_gender: 'MALE', int_age_months_at_identification: 0 },
      ],
    };
    const res = await post(owner.access, body);
    expect(res.status).toBe(201);
    const ti = res.body.data;
    expect(Object.keys(ti).sort()).toEqual(KEYS);
    expect(ti).toMatchObject({ control_unit_id: unit.unitId, operator_user_id: owner.user.id, int_animal_count: 2, ts_unsafe_client_created_at: '2026-03-01T10:00:00.000Z' });
    expect(ti.id).toMatch(UUID_RE);
    expect(ti.control_unit).toMatchObject({ id: unit.unitId, str_code: unit.code, establishment: { id: unit.establishmentId } });
    expect(ti.animals).toHaveLength(2);
    const [a, b] = ti.animals;
    expect(a).toMatchObject({
      current_tag_id: stock.tagIds[0],
      str_current_tag_code: stock.codes[0],
      str_last_control_unit_code: unit.code,
      str_establishment_name: `Fazenda ${unit.code}`,
      str_name: "Mimosa d'Água?",
      str_species: 'BOVINE',
      str_gender: 'FEMALE',
      str_status: 'ACTIVE',
      str_socioenvironmental_status: 'UNDER_REVIEW',
      int_weight_kilos_at_identification: 180,
      int_age_months_at_identification: null,
      ts_identified_at: identifiedAt,
      geo_identification: { type: 'Point', coordinates: [-47.9, -15.8] },
      str_extra_tag: 'B-12',
      str_description: 'malhada',
    });
    expect(b).toMatchObject({ current_tag_id: stock.tagIds[1], str_species: 'BUBALINE', str_gender: 'MALE', int_age_months_at_identification: 0, ts_born_date: null, geo_identification: null });
    expect(b.ts_identified_at).toMatch(ISO_Z);
    expect((await tagStates(stock.codes.slice(0, 2))).map((t) => [t.str_status, t.animal_id])).toEqual([['APPLIED', a.id], ['APPLIED', b.id]]);
    const [animalRow] = await rows<{ last_control_unit_id: string; tags_identification_id: string; ts_unsafe_client_created_at: Date }>(app, 'select * from animal where id = ?', [a.id]);
    expect(animalRow).toMatchObject({ last_control_unit_id: unit.unitId, tags_identification_id: ti.id });
    expect(new Date(animalRow!.ts_unsafe_client_created_at).toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect((await rows<{ str_status: string }>(app, 'select str_status from tags_box where id = ?', [stock.boxId]))[0]!.str_status).toBe('OPENED');
    const events = await rows<{ str_type: string; record_id: string }>(app, `select str_type, record_id from event where record_id in (?) order by seq`, [[ti.id, a.id, b.id, stock.boxId]]);
    expect(events.map((e) => [e.str_type, e.record_id])).toEqual([
      ['TAGS_IDENTIFICATION_CREATED', ti.id],
      ['TAGS_BOX_OPENED', stock.boxId],
    ]);
    // Each animal's ANIMAL_IDENTIFIED is the identification's one event, listing it (issue 20), at its ts_identified_at.
    for (const animal of [a, b]) expect((await eventsOf(app, 'Animal', animal.id)).map((e) => e.str_type)).toEqual(['ANIMAL_IDENTIFIED']);
    const [first] = (await app.call('GET', `/api/animals/${a.id}/history`, { token: owner.access })).body.data;
    expect(first.criteria.ts_occurred_at).toBe(identifiedAt);
    expect(first.criteria.refs).toMatchObject({ control_unit_id: unit.unitId, establishment_id: unit.establishmentId, organization_id: owner.org.id, tag_id: stock.tagIds[0], str_tag_code: stock.codes[0], tags_identification_id: ti.id });
  });

  test('the last available tags of a box leave it DEPLETED; reserved tags leave their reservation', async () => {
    const { owner, unit, stock } = await fieldWork(app, 3);
    const reserved = await app.call('POST', '/api/tags-reservations', { token: owner.access, body: { reservations: [{ control_unit_id: unit.unitId, str_name: 'r', int_quantity: 2 }] } });
    const ti = await identify(app, owner.access, unit, stock.codes.map((c) => animalBody(c)));
    expect(ti.int_animal_count).toBe(3);
    expect((await tagStates(stock.codes)).map((t) => [t.str_status, t.tags_reservation_id])).toEqual(Array(3).fill(['APPLIED', null]));
    expect((await rows<{ str_status: string }>(app, 'select str_status from tags_box where id = ?', [stock.boxId]))[0]!.str_status).toBe('DEPLETED');
    expect((await rows<{ str_type: string }>(app, 'select str_type from event where record_id = ? order by seq', [stock.boxId])).map((e) => e.str_type)).toEqual(['TAGS_BOX_DEPLETED']);
    expect((await rows<{ str_status: string }>(app, 'select str_status from tags_reservation where id = ?', [reserved.body.data[0].id]))[0]!.str_status).toBe('USED');
  });

  test('bad animals: 422 VALIDATION_FAILED naming each path; nothing written', async () => {
    const { owner, unit, stock } = await fieldWork(app, 8);
    const rod = `RFID-${randomUUID()}`;
    const res = await post(owner.access, {
      to_control_unit_id: unit.unitId,
      animals: [
        { str_tag_code: stock.codes[0], str_gender: 'FEMALE' },
        animalBody(stock.codes[1]!, { ts_born_date: new Date(Date.now() + 10 * DAY).toISOString(), int_age_months_at_identification: -1 }),
        animalBody(stock.codes[2]!, { geo_identification: { type: 'Point', coordinates: [1, 2, 3] }, str_rod_code: rod }),
        animalBody(stock.codes[2]!, { str_rod_code: rod, int_weight_kilos_at_identification: 0 }),
        { str_species: 'BOVINE', str_gender: 'FEMALE' },
        animalBody('12345', { ts_identified_at: new Date(Date.now() + DAY).toISOString(), tag_id: 'nope' }),
        animalBody(stock.codes[6]!, { ts_born_date: new Date(Date.now() - 2 * DAY).toISOString(), ts_identified_at: new Date(Date.now() - 3 * DAY).toISOString() }),
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields).sort()).toEqual(
      [
        'animals[0].str_species',
        'animals[1].ts_born_date',
        'animals[1].int_age_months_at_identification',
        'animals[2].geo_identification',
        'animals[3].str_tag_code',
        'animals[3].str_rod_code',
        'animals[3].int_weight_kilos_at_identification',
        'animals[4]',
        'animals[5].str_tag_code',
        'animals[5].tag_id',
        'animals[5].ts_identified_at',
        'animals[6].ts_born_date',
      ].sort(),
    );
    expect(res.body.detail.fields['animals[3].str_tag_code']).toEqual(['is also given for animals[2]']);
    // GraphQL's own coercion (enums, integers) names the item too.
    const coerced = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[0]!), animalBody(stock.codes[1]!, { str_gender: 'OTHER', int_weight_kilos_at_identification: 1.5 })] });
    expect(coerced.status).toBe(422);
    expect(Object.keys(coerced.body.detail.fields).sort()).toEqual(['animals[1].int_weight_kilos_at_identification', 'animals[1].str_gender']);
    const none = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [] });
    expect(Object.keys(none.body.detail.fields)).toEqual(['animals']);
    // One tag named by id and by code in two animals.
    const same = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[0]!), { ...animalBody(''), str_tag_code: undefined, tag_id: stock.tagIds[0] }] });
    expect(same.status).toBe(422);
    expect(same.body.detail.fields).toEqual({ 'animals[1].tag_id': ["is the same tag as animals[0]'s"] });
    const mismatch = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[1]!, { tag_id: stock.tagIds[0] })] });
    expect(mismatch.body.detail.fields).toEqual({ 'animals[0].str_tag_code': ['is not the code of tag_id'] });
    expect(await count(app, 'animal where last_control_unit_id = ?', [unit.unitId])).toBe(0);
    expect(await count(app, "tag where tags_box_id = ? and str_status = 'AVAILABLE'", [stock.boxId])).toBe(8);
  });

  test('tags not AVAILABLE or RESERVED at the unit: 422 INVALID_STATE naming codes and paths; unknown and invisible tags: 422 no such tag', async () => {
    const { owner, unit, stock } = await fieldWork(app, 3);
    const applied = await stockAnimals(app, unit.unitId, 1);
    const sibling = await makeUnit(app, owner.org.id);
    const elsewhere = await stockTags(app, sibling.unitId, 1);
    const stranger = await member(app);
    const foreign = await stockTags(app, (await makeUnit(app, stranger.org.id)).unitId, 1);
    const res = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[0]!), animalBody(applied.codes[0]!), animalBody(elsewhere.codes[0]!)] });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('INVALID_STATE');
    expect(res.body.detail.allowed).toEqual(['AVAILABLE', 'RESERVED']);
    expect(res.body.detail.tags).toEqual([
      { str_code: applied.codes[0], str_status: 'APPLIED', path: 'animals[1]' },
      { str_code: elsewhere.codes[0], str_status: null, path: 'animals[2]' },
    ]);
    const unknown = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(foreign.codes[0]!), { tag_id: randomUUID(), str_species: 'BOVINE', str_gender: 'MALE' }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.fields).toEqual({ 'animals[0].str_tag_code': ['no such tag'], 'animals[1].tag_id': ['no such tag'] });
    expect(await count(app, 'animal where last_control_unit_id = ?', [unit.unitId])).toBe(1);
    expect(await count(app, "tag where tags_box_id = ? and str_status = 'AVAILABLE'", [stock.boxId])).toBe(3);
  });

  test('a rod code taken by another animal: 422 CONFLICT naming the path', async () => {
    const { owner, unit, stock } = await fieldWork(app, 3);
    const rod = `RFID-${randomUUID()}`;
    await identify(app, owner.access, unit, [animalBody(stock.codes[0]!, { str_rod_code: rod })]);
    const res = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[1]!), animalBody(stock.codes[2]!, { str_rod_code: ` ${rod} ` })] });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(res.body.detail.fields).toEqual({ 'animals[1].str_rod_code': ['is already taken'] });
    expect(await count(app, 'animal where last_control_unit_id = ?', [unit.unitId])).toBe(1);
  });

  test('animal #300 of 500 with an applied tag: nothing of the request is left behind', async () => {
    const { owner, unit, stock } = await fieldWork(app, 500);
    const applied = await stockAnimals(app, unit.unitId, 1);
    const animals = stock.codes.map((c, i) => animalBody(i === 299 ? applied.codes[0]! : c, { id: randomUUID(), str_rod_code: `R-${randomUUID()}` }));
    const res = await post(owner.access, { id: randomUUID(), to_control_unit_id: unit.unitId, animals });
    expect(res.status).toBe(422);
    expect(res.body.detail.tags).toEqual([{ str_code: applied.codes[0], str_status: 'APPLIED', path: 'animals[299]' }]);
    expect(await count(app, 'animal where last_control_unit_id = ?', [unit.unitId])).toBe(1);
    expect(await count(app, 'animal where id in (?)', [animals.map((a) => a.id)])).toBe(0);
    expect(await count(app, 'tags_identification where control_unit_id = ?', [unit.unitId])).toBe(0);
    expect(await count(app, "tag where tags_box_id = ? and str_status = 'AVAILABLE' and animal_id is null", [stock.boxId])).toBe(500);
    expect(await count(app, 'event where record_id in (?)', [[...animals.map((a) => a.id as string), stock.boxId]])).toBe(0);
    expect((await rows<{ str_status: string }>(app, 'select str_status from tags_box where id = ?', [stock.boxId]))[0]!.str_status).toBe('IN_STOCK');
  });

  test('a database refusal after the first writes (animal #300 collides with a stray row) rolls every write back', async () => {
    const { owner, unit, stock } = await fieldWork(app, 500);
    // A record no service would write: an animal already pointing at tag #300, which stays AVAILABLE.
    const stray = randomUUID();
    await app.service.orm.em.fork().execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, current_tag_id) values (?, 'BOVINE', 'MALE', ?, ?)`, [stray, unit.unitId, stock.tagIds[299]]);
    const res = await post(owner.access, { to_control_unit_id: unit.unitId, animals: stock.codes.map((c) => animalBody(c)) });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONFLICT');
    expect(await count(app, 'animal where last_control_unit_id = ?', [unit.unitId])).toBe(1);
    expect(await count(app, 'tags_identification where control_unit_id = ?', [unit.unitId])).toBe(0);
    expect(await count(app, "tag where tags_box_id = ? and str_status = 'AVAILABLE'", [stock.boxId])).toBe(500);
    expect(await count(app, "event where str_type = 'TAGS_BOX_OPENED' and record_id = ?", [stock.boxId])).toBe(0);
  });

  test('identifying 500 animals runs the same number of SQL statements as 5', async () => {
    const statements = async (n: number) => {
      const { owner, unit, stock } = await fieldWork(app, n);
      const res = await post(owner.access, {
        id: randomUUID(),
        to_control_unit_id: unit.unitId,
        animals: stock.codes.map((c, i) => animalBody(c, { id: randomUUID(), str_rod_code: `R-${randomUUID()}`, int_weight_kilos_at_identification: 100 + i })),
      });
      expect(res.status).toBe(201);
      expect(res.body.data.animals).toHaveLength(n);
      return res.sql;
    };
    const five = await statements(5);
    expect(await statements(500)).toBe(five);
    expect(five).toBeLessThan(30);
  });

  test("client ids: the identification's again is a replay; another body under it, or an animal id taken, is a 422 CONFLICT", async () => {
    const { owner, unit, stock } = await fieldWork(app, 6);
    const id = randomUUID();
    const animalId = randomUUID();
    const body = { id, to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[0]!, { id: animalId })] };
    const first = await post(owner.access, body);
    expect(first.status).toBe(201);
    expect(first.body.data.id).toBe(id);
    expect(first.body.data.animals[0].id).toBe(animalId);
    const again = await post(owner.access, body);
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    const other = await post(owner.access, { ...body, animals: [animalBody(stock.codes[1]!, { id: animalId })] });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['id']);
    const reused = await post(owner.access, { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[1]!), animalBody(stock.codes[2]!, { id: animalId })] });
    expect(reused.status).toBe(422);
    expect(reused.body.detail.fields).toEqual({ 'animals[1].id': ['is already taken'] });
    expect(await count(app, 'tags_identification where control_unit_id = ?', [unit.unitId])).toBe(1);
    // Without an identification id, animals whose ids all came from one identification of the same body replay it.
    const loose = { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[3]!, { id: randomUUID() }), animalBody(stock.codes[4]!, { id: randomUUID() })] };
    const made = await post(owner.access, loose);
    const replayed = await post(owner.access, loose);
    expect(replayed.status).toBe(201);
    expect(replayed.body.data).toEqual(made.body.data);
    expect(await count(app, 'tags_identification where control_unit_id = ?', [unit.unitId])).toBe(2);
  });

  test('a VIEWER is refused 403, a stranger names a unit it does not see (422), an OPERATOR identifies', async () => {
    const { owner, unit, stock } = await fieldWork(app, 2);
    const body = { to_control_unit_id: unit.unitId, animals: [animalBody(stock.codes[0]!)] };
    expect((await post((await member(app, 'VIEWER', owner.org)).access, body)).status).toBe(403);
    const invisible = await post((await member(app)).access, body);
    expect(invisible.status).toBe(422);
    expect(invisible.body.detail.fields).toEqual({ to_control_unit_id: ['no such control unit'] });
    expect(await count(app, 'animal where last_control_unit_id = ?', [unit.unitId])).toBe(0);
    const operator = await member(app, 'OPERATOR', owner.org);
    expect((await identify(app, operator.access, unit, body.animals)).operator_user_id).toBe(operator.user.id);
  });
});

describe('reading tags identifications', () => {
  test('index and search give Tags Identification Partial Data; read lists the animals; strangers see nothing', async () => {
    const { owner, unit, stock } = await fieldWork(app, 4);
    const a = await identify(app, owner.access, unit, [animalBody(stock.codes[0]!), animalBody(stock.codes[1]!)]);
    const b = await identify(app, owner.access, unit, [animalBody(stock.codes[2]!)]);
    const index = await app.call('GET', '/api/tags-identifications', { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta.int_total_results).toBe(2);
    expect(index.body.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expect(Object.keys(index.body.data[0]).sort()).toEqual(PARTIAL_KEYS);
    expect(index.body.data[1]).toMatchObject({ str_control_unit_code: unit.code, str_establishment_name: `Fazenda ${unit.code}`, int_animal_count: 2 });
    const search = await app.call('POST', '/api/tags-identifications/search', { token: owner.access, body: { str_tag_code: stock.codes[1], establishment_id: unit.establishmentId } });
    expect(search.body.data.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const read = await app.call('GET', `/api/tags-identifications/${a.id}`, { token: owner.access });
    expect(read.body.data.animals.map((x: { str_current_tag_code: string }) => x.str_current_tag_code)).toEqual(stock.codes.slice(0, 2));
    const stranger = await member(app);
    expect((await app.call('GET', `/api/tags-identifications/${a.id}`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('GET', '/api/tags-identifications', { token: stranger.access })).body.data).toEqual([]);
  });
});
