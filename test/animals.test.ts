import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member, official } from './helpers/factories.js';
import { count, rows } from './helpers/db.js';
import { animalBody, fieldWork, identify } from './helpers/identify.js';
import { ISO_Z, makeCounty } from './helpers/places.js';
import { makeUnit, stockTags } from './helpers/tags.js';
import { eventsOf } from './helpers/tags-out.js';
import { appendEvent } from '../src/shared/events.js';

const app = useApp();

const COMMON = [
  'id', 'geo_identification', 'int_age_months_at_identification', 'int_weight_kilos_at_identification', 'str_description', 'str_extra_tag', 'str_gender', 'str_name',
  'str_rod_code', 'str_socioenvironmental_status', 'str_species', 'str_status', 'ts_born_date', 'ts_identified_at', 'ts_created_at', 'ts_updated_at',
];
const ANIMAL_KEYS = [...COMMON, 'current_tag'].sort();
const PARTIAL_KEYS = [...COMMON, 'current_tag_id', 'str_current_tag_code', 'str_establishment_name', 'str_last_control_unit_code'].sort();
const DAY = 86_400_000;

/** An owner whose unit holds `n` animals identified through the API (oldest first). */
async function herd(n: number, over: (i: number) => Record<string, unknown> = () => ({})) {
  const { owner, unit, stock } = await fieldWork(app, n);
  const ti = await identify(app, owner.access, unit, stock.codes.map((c, i) => animalBody(c, over(i))));
  return { owner, unit, stock, animals: ti.animals as { id: string; str_current_tag_code: string }[] };
}

describe('reading animals', () => {
  test('index: Animal Partial Data, newest first, paged; read: Animal with its current tag (Tag Data Without Animal); the same under /api/v1', async () => {
    const { owner, unit, stock, animals } = await herd(3, (i) => ({ str_name: `Vaca ${i}`, geo_identification: { type: 'Point', coordinates: [-50, -10 - i] } }));
    const index = await app.call('GET', '/api/animals?int_max_results=2', { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 2, int_total_results: 3, int_total_pages: 2 });
    expect(index.body.data.map((a: { id: string }) => a.id)).toEqual([animals[2]!.id, animals[1]!.id]);
    const partial = index.body.data[1];
    expect(Object.keys(partial).sort()).toEqual(PARTIAL_KEYS);
    expect(partial).toMatchObject({
      current_tag_id: stock.tagIds[1],
      str_current_tag_code: stock.codes[1],
      str_establishment_name: `Fazenda ${unit.code}`,
      str_last_control_unit_code: unit.code,
      str_name: 'Vaca 1',
      str_status: 'ACTIVE',
      str_species: 'BOVINE',
      str_gender: 'FEMALE',
      str_socioenvironmental_status: 'NOT_EVALUATED',
      geo_identification: { type: 'Point', coordinates: [-50, -11] },
    });
    for (const f of ['ts_identified_at', 'ts_created_at', 'ts_updated_at']) expect(partial[f]).toMatch(ISO_Z);
    for (const base of ['/api', '/api/v1']) {
      const read = await app.call('GET', `${base}/animals/${animals[0]!.id}`, { token: owner.access });
      expect(read.status).toBe(200);
      expect(Object.keys(read.body.data).sort()).toEqual(ANIMAL_KEYS);
      const tag = read.body.data.current_tag;
      expect(Object.keys(tag).sort()).toEqual(['id', 'last_control_unit', 'str_code', 'str_status', 'ts_created_at', 'ts_updated_at']);
      expect(tag).toMatchObject({ id: stock.tagIds[0], str_code: stock.codes[0], str_status: 'APPLIED', last_control_unit: { id: unit.unitId, str_code: unit.code, establishment: { id: unit.establishmentId } } });
    }
    const v1 = await app.call('POST', '/api/v1/animals/search', { token: owner.access, body: { str_name: 'Vaca 2' } });
    expect(v1.body.data.map((a: { id: string }) => a.id)).toEqual([animals[2]!.id]);
    expect((await app.call('PATCH', `/api/v1/animals/${animals[0]!.id}`, { token: owner.access, body: { str_name: "x" } })).status).toBe(404);
  });

  test('search filters: any tag it ever carried, rod code, unit, establishment, status, species, gender, ranges, str_query; unknown keys are a 422', async () => {
    const rod = `RFID-${randomUUID()}`;
    const { owner, unit, stock, animals } = await herd(4, (i) => ({
      str_species: i === 3 ? 'BUBALINE' : 'BOVINE',
      str_gender: i % 2 ? 'MALE' : 'FEMALE',
      str_rod_code: i === 1 ? rod : undefined,
      str_name: i === 2 ? 'Jabuticaba' : undefined,
      ts_born_date: new Date(Date.now() - (100 + i * 100) * DAY).toISOString(),
      ts_identified_at: new Date(Date.now() - i * DAY).toISOString(),
    }));
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((a) => a.id).sort();
    const search = (body: Record<string, unknown>) => app.call('POST', '/api/animals/search', { token: owner.access, body });
    // A replaced tag keeps its animal: the first animal is still found by its old tag's code.
    const em = app.service.orm.em.fork();
    const spare = await stockTags(app, unit.unitId, 1);
    await em.execute(`update tag set str_status = 'REPLACED' where id = ?`, [stock.tagIds[0]]);
    await em.execute(`update tag set str_status = 'APPLIED', animal_id = ?, last_control_unit_id = null where id = ?`, [animals[0]!.id, spare.tagIds[0]]);
    await em.execute(`update animal set current_tag_id = ? where id = ?`, [spare.tagIds[0], animals[0]!.id]);
    expect(ids(await search({ str_tag_code: stock.codes[0] }))).toEqual([animals[0]!.id]);
    expect(ids(await search({ str_tag_code: spare.codes[0] }))).toEqual([animals[0]!.id]);
    expect(ids(await search({ str_rod_code: rod }))).toEqual([animals[1]!.id]);
    expect(ids(await search({ str_query: 'JABUTI' }))).toEqual([animals[2]!.id]);
    expect(ids(await search({ str_query: rod.slice(5, 20) }))).toEqual([animals[1]!.id]);
    expect(ids(await search({ str_species: 'BUBALINE' }))).toEqual([animals[3]!.id]);
    expect(ids(await search({ str_gender: 'MALE', str_status: 'ACTIVE' }))).toEqual([animals[1]!.id, animals[3]!.id].sort());
    expect((await search({ last_control_unit_id: unit.unitId })).body.meta.int_total_results).toBe(4);
    expect((await search({ establishment_id: unit.establishmentId })).body.meta.int_total_results).toBe(4);
    expect((await search({ establishment_id: randomUUID() })).body.meta.int_total_results).toBe(0);
    expect(ids(await search({ ts_born_date_to: new Date(Date.now() - 250 * DAY).toISOString() }))).toEqual([animals[2]!.id, animals[3]!.id].sort());
    expect(ids(await search({ ts_identified_at_from: new Date(Date.now() - 1.5 * DAY).toISOString() }))).toEqual([animals[0]!.id, animals[1]!.id].sort());
    const ordered = await search({ str_order_by: 'ts_born_date', str_order: 'ASC' });
    expect(ordered.body.data.map((a: { id: string }) => a.id)).toEqual([animals[3]!.id, animals[2]!.id, animals[1]!.id, animals[0]!.id]);
    const query = await app.call('GET', `/api/animals?str_species=BUBALINE`, { token: owner.access });
    expect(ids(query)).toEqual([animals[3]!.id]);
    const unknown = await search({ str_colour: 'red' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.accepted_keys).toEqual(expect.arrayContaining(['str_tag_code', 'establishment_id', 'ts_born_date_from', 'str_query']));
  });

  test('strangers and officials of another UF see none (404); an authority of the UF reads them; admins too', async () => {
    const county = await makeCounty(app);
    const owner = await member(app);
    const unit = await makeUnit(app, owner.org.id, county);
    const stock = await stockTags(app, unit.unitId, 1);
    const [animal] = (await identify(app, owner.access, unit, [animalBody(stock.codes[0]!)])).animals;
    for (const token of [(await member(app)).access, (await official(app, (await makeCounty(app, 'ZZ')).id)).access]) {
      expect((await app.call('GET', `/api/animals/${animal.id}`, { token })).status).toBe(404);
      expect((await app.call('GET', `/api/animals/${animal.id}/history`, { token })).status).toBe(404);
      expect((await app.call('POST', '/api/animals/search', { token, body: { str_tag_code: stock.codes[0] } })).body.data).toEqual([]);
    }
    const authority = await official(app, county.id);
    expect((await app.call('GET', `/api/v1/animals/${animal.id}`, { token: authority.access })).status).toBe(200);
    expect((await app.call('PATCH', `/api/animals/${animal.id}`, { token: authority.access, body: { str_name: 'x' } })).status).toBe(403);
  });

  test('the index runs the same number of statements for a page of 2 and of 50 (REST and GraphQL with relations)', async () => {
    const { owner } = await herd(50);
    const page = (n: number) => app.call('GET', `/api/animals?int_max_results=${n}`, { token: owner.access });
    const [two, fifty] = [await page(2), await page(50)];
    expect(fifty.body.data).toHaveLength(50);
    expect(fifty.sql).toBe(two.sql);
    const gql = (n: number) => app.graphql(`{ animals(page: {int_max_results: ${n}}) { data { id current_tag { str_code last_control_unit { establishment { str_name } } } str_establishment_name } } }`, {}, owner.access);
    const [g2, g50] = [await gql(2), await gql(50)];
    expect(g50.body.data.animals.data).toHaveLength(50);
    expect(g50.sql).toBe(g2.sql);
  });
});

describe('PUT/PATCH /api/animals/:id', () => {
  test('corrects the descriptive fields, appends ANIMAL_UPDATED with the changes; status, tag and place are not in the body (ignored, named in Warning)', async () => {
    const { owner, unit, animals } = await herd(1);
    const id = animals[0]!.id;
    const born = new Date(Date.now() - 30 * DAY).toISOString();
    const res = await app.call('PATCH', `/api/animals/${id}`, {
      token: owner.access,
      body: { str_name: ' Estrela ', str_gender: 'MALE', ts_born_date: born, int_weight_kilos_at_identification: 210, str_extra_tag: null, str_status: 'DEAD', last_control_unit_id: randomUUID() },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toContain('str_status');
    expect(Object.keys(res.body.data).sort()).toEqual(ANIMAL_KEYS);
    expect(res.body.data).toMatchObject({ str_name: 'Estrela', str_gender: 'MALE', ts_born_date: born, int_weight_kilos_at_identification: 210, str_status: 'ACTIVE' });
    const [row] = await rows<{ last_control_unit_id: string; str_status: string }>(app, 'select last_control_unit_id, str_status from animal where id = ?', [id]);
    expect(row).toEqual({ last_control_unit_id: unit.unitId, str_status: 'ACTIVE' });
    const put = await app.call('PUT', `/api/animals/${id}`, { token: owner.access, body: { str_description: 'manca' } });
    expect(put.body.data).toMatchObject({ str_description: 'manca', str_name: 'Estrela' });
    // ANIMAL_IDENTIFIED is the identification's event, listing the animal (issue 20).
    const events = await eventsOf(app, 'Animal', id);
    expect(events.map((e) => e.str_type)).toEqual(['ANIMAL_IDENTIFIED', 'ANIMAL_UPDATED', 'ANIMAL_UPDATED']);
    expect(events[1]!.payload.changes).toEqual({ str_name: 'Estrela', str_gender: 'MALE', ts_born_date: born, int_weight_kilos_at_identification: 210 });
    const same = await app.call('PATCH', `/api/animals/${id}`, { token: owner.access, body: { str_description: 'manca' } });
    expect(same.status).toBe(200);
    expect(await eventsOf(app, 'Animal', id)).toHaveLength(3);
  });

  test('bad values are a 422 naming the field; a rod code another animal carries is a CONFLICT; a VIEWER 403, a stranger 404', async () => {
    const rod = `RFID-${randomUUID()}`;
    const { owner, animals } = await herd(2, (i) => ({ str_rod_code: i === 0 ? rod : undefined, ts_identified_at: new Date(Date.now() - 10 * DAY).toISOString() }));
    const id = animals[1]!.id;
    const bad = await app.call('PATCH', `/api/animals/${id}`, { token: owner.access, body: { str_species: null, int_age_months_at_identification: -2, ts_born_date: new Date(Date.now() - 5 * DAY).toISOString() } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields).sort()).toEqual(['int_age_months_at_identification', 'str_species', 'ts_born_date']);
    const enumBad = await app.call('PATCH', `/api/animals/${id}`, { token: owner.access, body: { str_gender: 'X' } });
    expect(Object.keys(enumBad.body.detail.fields)).toEqual(['str_gender']);
    const taken = await app.call('PATCH', `/api/animals/${id}`, { token: owner.access, body: { str_rod_code: rod } });
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({ error: 'CONFLICT', detail: { fields: { str_rod_code: ['is already taken'] } } });
    expect((await app.call('PATCH', `/api/animals/${id}`, { token: (await member(app, 'VIEWER', owner.org)).access, body: { str_name: 'x' } })).status).toBe(403);
    expect((await app.call('PATCH', `/api/animals/${id}`, { token: (await member(app)).access, body: { str_name: 'x' } })).status).toBe(404);
    expect(await count(app, "event where record_id = ? and str_type = 'ANIMAL_UPDATED'", [id])).toBe(0);
  });
});

describe('GET /api/animals/:id/history', () => {
  test('its events oldest first by when they happened, not by when they reached the log', async () => {
    const identifiedAt = new Date(Date.now() - 3 * DAY);
    const { owner, unit, animals } = await herd(1, () => ({ ts_identified_at: identifiedAt.toISOString() }));
    const id = animals[0]!.id;
    await app.call('PATCH', `/api/animals/${id}`, { token: owner.access, body: { str_name: 'Pintada' } });
    // An event recorded last that happened between the two (as a synced offline weighing would be).
    const weighedAt = new Date(Date.now() - DAY);
    const em = app.service.orm.em.fork();
    await em.transactional((tx) => appendEvent(tx, { type: 'ANIMAL_WEIGHED', recordType: 'Animal', recordId: id, actorId: owner.user.id, occurredAt: weighedAt, payload: { changes: { int_weight: 250 }, refs: {} } }));
    for (const base of ['/api', '/api/v1']) {
      const res = await app.call('GET', `${base}/animals/${id}/history`, { token: owner.access });
      expect(res.status).toBe(200);
      expect(res.body.meta.int_total_results).toBe(3);
      expect(res.body.data.map((h: { criteria: { str_event: string } }) => h.criteria.str_event)).toEqual(['ANIMAL_IDENTIFIED', 'ANIMAL_WEIGHED', 'ANIMAL_UPDATED']);
      const first = res.body.data[0];
      expect(Object.keys(first).sort()).toEqual(['criteria', 'id', 'ts_created_at']);
      expect(first.ts_created_at).toBe(identifiedAt.toISOString());
      expect(first.criteria).toMatchObject({ str_event: 'ANIMAL_IDENTIFIED', ts_occurred_at: identifiedAt.toISOString(), actor: { id: owner.user.id }, refs: { control_unit_id: unit.unitId } });
      expect(first.criteria.changes).toMatchObject({ str_status: 'ACTIVE', str_species: 'BOVINE' });
    }
  });
});

describe('GraphQL', () => {
  test('createTagsIdentification, animal, animalHistory, updateAnimal', async () => {
    const { owner, unit, stock } = await fieldWork(app, 1);
    const created = await app.graphql(
      'mutation($input: TagsIdentificationCreateInput!) { createTagsIdentification(input: $input) { id int_animal_count animals { id current_tag { str_code } } } }',
      { input: { to_control_unit_id: unit.unitId, animals: [{ str_tag_code: stock.codes[0], str_species: 'BOVINE', str_gender: 'MALE' }] } },
      owner.access,
    );
    expect(created.body.errors).toBeUndefined();
    const animal = created.body.data.createTagsIdentification.animals[0];
    expect(animal.current_tag.str_code).toBe(stock.codes[0]);
    const updated = await app.graphql('mutation($id: UUID!) { updateAnimal(id: $id, input: {str_name: "Boi"}) { str_name } }', { id: animal.id }, owner.access);
    expect(updated.body.data.updateAnimal.str_name).toBe('Boi');
    const history = await app.graphql('query($id: UUID!) { animalHistory(id: $id) { data { criteria } } }', { id: animal.id }, owner.access);
    expect(history.body.data.animalHistory.data).toHaveLength(2);
    const bad = await app.graphql(
      'mutation($input: TagsIdentificationCreateInput!) { createTagsIdentification(input: $input) { id } }',
      { input: { to_control_unit_id: unit.unitId, animals: [{ str_tag_code: stock.codes[0], str_species: 'BOVINE', str_gender: 'MALE' }] } },
      owner.access,
    );
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_STATE');
  });
});
