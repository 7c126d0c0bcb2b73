import { mustPost, useApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { holding, moveByGta, type Holding } from './helpers/movements.js';
import { makeCounty } from './helpers/places.js';
import { stockAnimals, stockTags } from './helpers/tags.js';

/**
 * Issue 20, option b: an applied tag is where its animal is. A movement writes no tag row; the
 * tag is read at its animal's new unit (GET, search, visibility); a tag leaving APPLIED keeps the
 * place where that happened, and stays there when its animal moves on.
 */

let farm: Holding;
let feedlot: Holding;
let herd: Awaited<ReturnType<typeof stockAnimals>>;

interface TagTableRow {
  id: string;
  str_status: string;
  last_control_unit_id: string | null;
  ts_updated_at: Date;
}

const tagRows = (ids: string[]) => rows<TagTableRow>(app, 'select id, str_status, last_control_unit_id, ts_updated_at from tag where id = any(array[?]::uuid[]) order by id', [ids]);

/** The animals of `codes` from one holding to the other over HTTP (moveByGta), received. */
async function move(from: Holding, to: Holding, codes: string[]): Promise<void> {
  const { finished } = await moveByGta(app, from, to, codes);
  expect(finished.body.data.str_status).toBe('RECEIVED');
}

const app = useApp();
beforeAll(async () => {
  const county = await makeCounty(app);
  farm = await holding(app, county, 'FARM');
  feedlot = await holding(app, county, 'FEEDLOT');
  herd = await stockAnimals(app, farm.unit.unitId, 3);
});

test('a moved animal\'s tag is read at its new unit, and the move wrote no tag row', async () => {
  const before = await tagRows(herd.tagIds);
  expect(before.map((t) => [t.str_status, t.last_control_unit_id])).toEqual(Array(3).fill(['APPLIED', null]));
  await move(farm, feedlot, herd.codes);
  expect(await tagRows(herd.tagIds)).toEqual(before);

  const read = await app.call('GET', `/api/tags/${herd.tagIds[0]}`, { token: feedlot.owner.access });
  expect(read.status).toBe(200);
  expect(read.body.data).toMatchObject({ str_status: 'APPLIED', animal_id: herd.animalIds[0], last_control_unit_id: feedlot.unit.unitId });
  // The farm no longer sees it: visibility follows the animal too.
  expect((await app.call('GET', `/api/tags/${herd.tagIds[0]}`, { token: farm.owner.access })).status).toBe(404);
  const search = (token: string, unitId: string) => app.call('POST', '/api/tags/search', { token, body: { last_control_unit_id: unitId, str_status: 'APPLIED' } });
  const atFeedlot = await search(feedlot.owner.access, feedlot.unit.unitId);
  expect(atFeedlot.status).toBe(200);
  expect(atFeedlot.body.data.map((t: { id: string }) => t.id).sort()).toEqual([...herd.tagIds].sort());
  expect(atFeedlot.body.meta.int_total_results).toBe(3);
  expect((await search(farm.owner.access, farm.unit.unitId)).body.data).toEqual([]);
  const animal = await app.call('POST', '/graphql', { token: feedlot.owner.access, body: { query: `{ animal(id: "${herd.animalIds[1]}") { current_tag { id last_control_unit { id } } } }` } });
  expect(animal.body).toEqual({ data: { animal: { current_tag: { id: herd.tagIds[1], last_control_unit: { id: feedlot.unit.unitId } } } } });
});

test('a replaced and a written-off tag keep the unit where that happened; the new tag follows its animal', async () => {
  const fresh = await stockTags(app, feedlot.unit.unitId, 1);
  await mustPost(app, '/api/tags-replacements', feedlot.owner.access, { control_unit_id: feedlot.unit.unitId, tags: [{ tag_id: herd.tagIds[0], new_tag_id: fresh.tagIds[0], str_reason: 'LOST' }] });
  await mustPost(app, '/api/tags-writeoffs', feedlot.owner.access, { control_unit_id: feedlot.unit.unitId, str_reason: 'ANIMAL_DEATH', tags: [{ id: herd.tagIds[1] }] });
  const [replaced] = await tagRows([herd.tagIds[0]!]);
  const [writtenOff] = await tagRows([herd.tagIds[1]!]);
  const [applied] = await tagRows([fresh.tagIds[0]!]);
  expect([replaced!.str_status, replaced!.last_control_unit_id]).toEqual(['REPLACED', feedlot.unit.unitId]);
  expect([writtenOff!.str_status, writtenOff!.last_control_unit_id]).toEqual(['WRITTEN_OFF', feedlot.unit.unitId]);
  expect([applied!.str_status, applied!.last_control_unit_id]).toEqual(['APPLIED', null]);

  // The retagged animal goes back to the farm: its new tag goes with it, the replaced one stays.
  await move(feedlot, farm, [fresh.codes[0]!]);
  const place = async (token: string, id: string) => {
    const res = await app.call('GET', `/api/tags/${id}`, { token });
    return res.status === 200 ? res.body.data.last_control_unit_id : res.status;
  };
  expect(await place(farm.owner.access, fresh.tagIds[0]!)).toBe(farm.unit.unitId);
  expect(await place(feedlot.owner.access, herd.tagIds[0]!)).toBe(feedlot.unit.unitId);
  expect(await place(feedlot.owner.access, herd.tagIds[1]!)).toBe(feedlot.unit.unitId);
  expect(await place(farm.owner.access, herd.tagIds[0]!)).toBe(404);
});

test('a stale place on an applied tag is refused by the database', async () => {
  await expect(app.service.orm.em.fork().execute('update tag set last_control_unit_id = ? where id = ?', [farm.unit.unitId, herd.tagIds[2]])).rejects.toThrow(/tag_applied_place_from_animal/);
});

test('a stay names its unit and that unit\'s establishment: one key checks both (Migration0033)', async () => {
  const insertStay = (establishmentId: string) =>
    app.service.orm.em.fork().transactional((tx) =>
      tx.execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to) values (?, ?, ?, now(), now())', [herd.animalIds[2], farm.unit.unitId, establishmentId]),
    );
  await expect(insertStay(feedlot.unit.establishmentId)).rejects.toThrow(/animal_stay_unit_of_establishment/);
  await expect(insertStay(farm.unit.establishmentId)).resolves.toBeDefined();
});
