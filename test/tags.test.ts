import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member, official } from './helpers/factories.js';
import { ISO_Z, UUID_RE, makeCounty } from './helpers/places.js';
import { makeUnit, stockTags } from './helpers/tags.js';
import { TAGS_BOX_KEYS } from './helpers/transfer.js';

const app = useApp();

const db = () => app.service.orm.em.fork();

const TAG_KEYS = [
  'id', 'str_code', 'str_status', 'bl_external_tag', 'ts_created_at', 'ts_updated_at', 'animal_id', 'last_control_unit_id', 'tags_reservation_id',
  'last_control_unit', 'tags_reservation', 'ts_writeoff_at',
].sort();
const CONTROL_UNIT_KEYS = ['id', 'establishment', 'str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'ts_created_at', 'ts_updated_at'].sort();
const RESERVATION_KEYS = [
  'id', 'str_name', 'int_quantity', 'str_status', 'ts_created_at', 'ts_updated_at', 'control_unit', 'control_unit_id', 'operator_user_id', 'str_begin', 'str_description', 'str_finish', 'str_label',
].sort();

async function setup(n = 10) {
  const owner = await member(app);
  const county = await makeCounty(app);
  const unit = await makeUnit(app, owner.org.id, county);
  const stock = await stockTags(app, unit.unitId, n);
  return { owner, county, unit, stock };
}

/** The first `k` tags of the stock RESERVED under one reservation (set-up). */
async function reserve(unitId: string, tagIds: string[]): Promise<string> {
  const id = randomUUID();
  await db().execute(`insert into tags_reservation (id, control_unit_id, str_name, int_quantity) values (?, ?, 'Curral 3', ?)`, [id, unitId, tagIds.length]);
  await db().execute(`update tag set str_status = 'RESERVED', tags_reservation_id = ? where id in (?)`, [id, tagIds]);
  return id;
}

describe('tags', () => {
  test('GET /api/tags/:id: Tag Partial Data with its unit and reservation', async () => {
    const { owner, unit, stock } = await setup(3);
    const plain = await app.call('GET', `/api/tags/${stock.tagIds[0]}`, { token: owner.access });
    expect(plain.status).toBe(200);
    const tag = plain.body.data;
    expect(Object.keys(tag).sort()).toEqual(TAG_KEYS.filter((k) => k !== 'tags_reservation')); // no reservation: the relation is left out (absent, not null)
    expect(tag).toMatchObject({
      id: stock.tagIds[0],
      str_code: stock.codes[0],
      str_status: 'AVAILABLE',
      bl_external_tag: false,
      animal_id: null,
      last_control_unit_id: unit.unitId,
      tags_reservation_id: null,
      ts_writeoff_at: null,
    });
    expect(tag.id).toMatch(UUID_RE);
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(tag[f]).toMatch(ISO_Z);
    expect(Object.keys(tag.last_control_unit).sort()).toEqual(CONTROL_UNIT_KEYS);
    expect(tag.last_control_unit).toMatchObject({ id: unit.unitId, str_code: unit.code, establishment: { id: unit.establishmentId } });
    const reservation = await reserve(unit.unitId, [stock.tagIds[1]!]);
    const reserved = (await app.call('GET', `/api/tags/${stock.tagIds[1]}`, { token: owner.access })).body.data;
    expect(reserved).toMatchObject({ str_status: 'RESERVED', tags_reservation_id: reservation });
    expect(Object.keys(reserved.tags_reservation).sort()).toEqual(RESERVATION_KEYS);
    expect(reserved.tags_reservation).toMatchObject({ id: reservation, str_name: 'Curral 3', int_quantity: 1, str_status: 'ACTIVE', control_unit_id: unit.unitId, control_unit: { id: unit.unitId } });
    const bad = await app.call('GET', '/api/tags/123', { token: owner.access });
    expect(bad.status).toBe(400);
  });

  test('index and search: exact fields, a range of codes, str_query, order and pages; unknown and malformed filters are 422', async () => {
    const { owner, unit, stock } = await setup(10);
    const reservation = await reserve(unit.unitId, stock.tagIds.slice(0, 3));
    const search = (body: unknown, query = '') => app.call('POST', `/api/tags/search${query}`, { token: owner.access, body });
    const codes = (res: { body: { data: { str_code: string }[] } }) => res.body.data.map((t) => t.str_code);
    const mine = { last_control_unit_id: unit.unitId };
    expect((await search({ ...mine, str_status: 'RESERVED', str_order_by: 'str_code', str_order: 'ASC' })).body.data.map((t: { id: string }) => t.id)).toEqual(stock.tagIds.slice(0, 3));
    expect((await search({ tags_reservation_id: reservation })).body.meta.int_total_results).toBe(3);
    expect((await search({ tags_box_id: stock.boxId, str_status: 'AVAILABLE' })).body.meta.int_total_results).toBe(7);
    expect(codes(await search({ ...mine, str_begin: stock.codes[4], str_finish: stock.codes[6], str_order_by: 'str_code', str_order: 'ASC' }))).toEqual(stock.codes.slice(4, 7));
    expect(codes(await search({ str_query: stock.codes[8]!.slice(-9) }))).toEqual([stock.codes[8]]);
    expect((await search({ ...mine, bl_external_tag: true })).body.meta.int_total_results).toBe(0);
    const page = await search({ ...mine, str_order_by: 'str_code', str_order: 'DESC' }, '?int_max_results=4&int_current_page=2');
    expect(codes(page)).toEqual(stock.codes.slice(2, 6).reverse());
    expect(page.body.meta).toEqual({ int_current_page: 2, int_max_results: 4, int_total_results: 10, int_total_pages: 3 });
    const index = await app.call('GET', `/api/tags?tags_box_id=${stock.boxId}&bl_external_tag=false&int_max_results=1`, { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta.int_total_results).toBe(10);
    const unknown = await search({ str_colour: 'red' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.fields).toEqual({ str_colour: ['is not a known filter'] });
    expect(unknown.body.detail.accepted_keys).toEqual(expect.arrayContaining(['str_code', 'str_status', 'last_control_unit_id', 'tags_box_id', 'tags_reservation_id', 'animal_id', 'bl_external_tag', 'str_begin', 'str_finish', 'ts_created_at_from', 'str_query']));
    const malformed = await search({ animal_id: 'x', bl_external_tag: 'yes' });
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.detail.fields).sort()).toEqual(['animal_id', 'bl_external_tag']);
  });

  test('the index runs the same statements for a page of 2 and of 20 tags (units and reservations batched)', async () => {
    const { owner, unit, stock } = await setup(20);
    await reserve(unit.unitId, stock.tagIds.slice(0, 5));
    await reserve(unit.unitId, stock.tagIds.slice(5, 10));
    const statements = async (size: number) => {
      const res = await app.call('GET', `/api/tags?tags_box_id=${stock.boxId}&str_order_by=str_code&str_order=ASC&int_max_results=${size}`, { token: owner.access });
      expect(res.body.data).toHaveLength(size);
      return res.sql;
    };
    expect(await statements(20)).toBe(await statements(2));
  });

  test('another organization gets 404 and empty lists; an authority of the unit\'s UF reads them, another UF does not', async () => {
    const { county, unit, stock } = await setup(2);
    const stranger = await member(app);
    expect((await app.call('GET', `/api/tags/${stock.tagIds[0]}`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('GET', `/api/tags-boxes/${stock.boxId}`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('POST', '/api/tags/search', { token: stranger.access, body: { tags_box_id: stock.boxId } })).body.meta.int_total_results).toBe(0);
    expect((await app.call('GET', `/api/tags-boxes?control_unit_id=${unit.unitId}`, { token: stranger.access })).body.meta.int_total_results).toBe(0);
    const authority = await official(app, county.id);
    expect((await app.call('GET', `/api/tags/${stock.tagIds[0]}`, { token: authority.access })).status).toBe(200);
    let other = await makeCounty(app);
    while (other.str_federative_unit === county.str_federative_unit) other = await makeCounty(app);
    const outsider = await official(app, other.id);
    expect((await app.call('GET', `/api/tags/${stock.tagIds[0]}`, { token: outsider.access })).status).toBe(404);
  });
});

describe('tags boxes', () => {
  test('GET /api/tags-boxes/:id and the search: the Tags Box record, by status and by a code it holds', async () => {
    const { owner, unit, stock } = await setup(10);
    const other = await stockTags(app, unit.unitId, 5);
    await db().execute(`update tags_box set str_status = 'OPENED' where id = ?`, [other.boxId]);
    const res = await app.call('GET', `/api/tags-boxes/${stock.boxId}`, { token: owner.access });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(TAGS_BOX_KEYS);
    expect(res.body.data).toMatchObject({ id: stock.boxId, str_begin: stock.codes[0], str_finish: stock.codes[9], int_quantity: 10, str_status: 'IN_STOCK', control_unit_id: unit.unitId });
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(res.body.data[f]).toMatch(ISO_Z);
    const search = (body: unknown) => app.call('POST', '/api/tags-boxes/search', { token: owner.access, body });
    expect((await search({ str_tag_code: stock.codes[5] })).body.data.map((b: { id: string }) => b.id)).toEqual([stock.boxId]);
    expect((await search({ control_unit_id: unit.unitId, str_status: 'OPENED' })).body.data.map((b: { id: string }) => b.id)).toEqual([other.boxId]);
    expect((await search({ str_query: stock.codes[0] })).body.data.map((b: { id: string }) => b.id)).toEqual([stock.boxId]);
    const index = await app.call('GET', `/api/tags-boxes?control_unit_id=${unit.unitId}`, { token: owner.access });
    expect(index.body.data.map((b: { id: string }) => b.id)).toEqual([other.boxId, stock.boxId]);
    expect((await search({ str_tag_code: null })).status).toBe(422);
  });
});

describe('GraphQL', () => {
  test('tag, tags, tagsBox and tagsBoxes', async () => {
    const { owner, unit, stock } = await setup(3);
    const tag = await app.graphql('query($id: UUID!) { tag(id: $id) { str_code last_control_unit { str_code } tags_box_id } }', { id: stock.tagIds[2] }, owner.access);
    expect(tag.body.data.tag).toEqual({ str_code: stock.codes[2], last_control_unit: { str_code: unit.code }, tags_box_id: stock.boxId });
    const tags = await app.graphql('query($f: JSONObject) { tags(filter: $f) { meta { int_total_results } } }', { f: { tags_box_id: stock.boxId } }, owner.access);
    expect(tags.body.data.tags.meta.int_total_results).toBe(3);
    const box = await app.graphql('query($id: UUID!) { tagsBox(id: $id) { int_quantity str_status } }', { id: stock.boxId }, owner.access);
    expect(box.body.data.tagsBox).toEqual({ int_quantity: 3, str_status: 'IN_STOCK' });
    const boxes = await app.graphql('query($f: JSONObject) { tagsBoxes(filter: $f) { data { id } } }', { f: { control_unit_id: unit.unitId } }, owner.access);
    expect(boxes.body.data.tagsBoxes.data).toEqual([{ id: stock.boxId }]);
    const stranger = await member(app);
    const hidden = await app.graphql('query($id: UUID!) { tag(id: $id) { id } }', { id: stock.tagIds[0] }, stranger.access);
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
