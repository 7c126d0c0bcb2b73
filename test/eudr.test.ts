import { getIssues } from '@placemarkio/check-geojson';
import { mustPost, startApp, useApp, type Reply } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { login, makeUser, member, official } from './helpers/factories.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { makeCounty, useCounty } from './helpers/places.js';
import { animalsStaying, moveAnimals } from './helpers/stays.js';

/**
 * EUDR due diligence (issue 22): a lot's holdings as RFC 7946 GeoJSON for TRACES and the verdict
 * beside it. Every GeoJSON answer is read as text and checked by @placemarkio/check-geojson.
 */
const app = useApp();
const county = useCounty(app);

const today = () => new Date().toISOString().slice(0, 10);

/** POST /api/eudr/geolocation as `call` (checked against the OpenAPI document) and as raw text (the bytes TRACES would get). */
async function geolocation(token: string, lot: Record<string, unknown>): Promise<{ res: Reply; text: string }> {
  const res = await app.call('POST', '/api/eudr/geolocation', { token, body: lot });
  const raw = await fetch(`${app.url}/api/eudr/geolocation`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(lot) });
  return { res, text: await raw.text() };
}

/** A 200 GeoJSON answer: RFC 7946 by the library, its content type and Link, coordinates written with six decimals. */
function expectGeoJson(res: Reply, text: string): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/geo\+json/);
  // No Link a client could not follow (the verdict wants the lot POSTed): a recorded statement's GET has one (eudr-statements.test.ts).
  expect(res.headers.get('link')).toBeNull();
  expect(getIssues(text)).toEqual([]);
  for (const m of text.matchAll(/"coordinates":\[([^\]]*)\]/g)) for (const n of m[1]!.split(',')) expect(n).toMatch(/^-?\d+\.\d{6,}$/);
}

const point = (lon: number, lat: number) => ({ type: 'Point', coordinates: [lon, lat] });

async function placeAt(h: Holding, lon: number, lat: number, over: Record<string, unknown> = {}): Promise<void> {
  const res = await app.call('PATCH', `/api/establishments/${h.unit.establishmentId}`, { token: h.owner.access, body: { geo_location: point(lon, lat), ...over } });
  expect(res.status).toBe(200);
}

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

describe('a hand-drawn life: breeding farm, auction, rearing farm, feedlot, slaughterhouse', () => {
  let breeding: Holding, auction: Holding, rearing: Holding, feedlot: Holding, slaughterhouse: Holding;
  let animalIds: string[];
  let codes: string[];
  let gtaId: string;
  let ingressId: string;

  beforeAll(async () => {
    [breeding, auction, rearing, feedlot, slaughterhouse] = [
      await holding(app, county, 'FARM'),
      await holding(app, county, 'AUCTION'),
      await holding(app, county, 'FARM'),
      await holding(app, county, 'FEEDLOT'),
      await holding(app, county, 'SLAUGHTERHOUSE'),
    ];
    await placeAt(breeding, -56.097412, -15.601038, { dec_area: 812.5 });
    await placeAt(auction, -55.123456, -15.234567);
    await placeAt(rearing, -54.9876543, -14.7654321);
    // A point stored before the rule (too few decimals), as a migrated record may hold.
    await app.service.orm.em.fork().execute('update establishment set num_longitude = -53.5, num_latitude = -14.25 where id = ?', [feedlot.unit.establishmentId]);
    await placeAt(slaughterhouse, -52.000001, -13.999999);
    const stock = await animalsStaying(app, breeding.unit.unitId, 2, at('2024-01-10T08:00:00Z'));
    animalIds = stock.animalIds;
    codes = stock.codes;
    await moveAnimals(app, animalIds, auction.unit.unitId, at('2024-09-01T10:00:00Z'));
    await moveAnimals(app, animalIds, rearing.unit.unitId, at('2024-09-03T15:00:00Z'));
    await moveAnimals(app, animalIds, feedlot.unit.unitId, at('2025-06-01T09:00:00Z'));
    // The last leg through the API: the GTA, the egress at the feedlot, the ingress at the slaughterhouse.
    const gta = await issueGta(app, feedlot.owner.access, feedlot.unit, slaughterhouse.unit, 2, { str_purpose: 'SLAUGHTER' });
    gtaId = gta.id;
    const egress = (await mustPost(app, '/api/animals-egress', feedlot.owner.access, { from_control_unit_id: feedlot.unit.unitId, gta_id: gta.id, tags: codes.map((c) => egressRead(c)) })).body.data;
    expect((await app.call('POST', `/api/animals-egress/${egress.id}/finish`, { token: feedlot.owner.access })).status).toBe(200);
    const ingress = (await mustPost(app, '/api/animals-ingress', slaughterhouse.owner.access, { to_control_unit_id: slaughterhouse.unit.unitId, gtas: [{ gta_id: gta.id }], tags: codes.map((c) => ingressRead(c)) })).body.data;
    expect((await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: slaughterhouse.owner.access })).body.data.str_status).toBe('RECEIVED');
    ingressId = ingress.id;
  });

  const feature = (h: Holding, coordinates: [number, number], first: string, last: string, extra: Record<string, unknown> = {}) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates },
    properties: {
      ProducerName: expect.stringMatching(/ CU-/),
      ProducerCountry: 'BR',
      ProductionPlace: expect.stringMatching(/ CU-/),
      ...extra,
      establishment_id: h.unit.establishmentId,
      str_car: expect.stringMatching(/^Z[A-Z]-\d{7}-[0-9A-F]{32}$/),
      str_socioenvironmental_status: 'COMPLIANT',
      str_first_day: first,
      str_last_day: last,
      int_animals: 2,
    },
  });

  test('the slaughterhouse owner gets every establishment, indirect suppliers included, as RFC 7946 with six decimals, in the order the lot stood there', async () => {
    const { res, text } = await geolocation(slaughterhouse.owner.access, { gta_id: gtaId });
    expectGeoJson(res, text);
    expect(res.body).toEqual({
      type: 'FeatureCollection',
      features: [
        feature(breeding, [-56.097412, -15.601038], '2024-01-10', '2024-09-01', { Area: 812.5 }),
        feature(auction, [-55.123456, -15.234567], '2024-09-01', '2024-09-03'),
        feature(rearing, [-54.9876543, -14.7654321], '2024-09-03', '2025-06-01'),
        feature(feedlot, [-53.5, -14.25], '2025-06-01', today()),
        feature(slaughterhouse, [-52.000001, -13.999999], today(), today()),
      ],
    });
    // The point stored before the rule is still written with six decimals: TRACES counts them.
    expect(text).toContain('"coordinates":[-53.500000,-14.250000]');
    // Nothing else of the suppliers: exactly these properties, and their establishments stay unreadable.
    for (const f of res.body.features) expect(Object.keys(f.properties).sort()).toEqual(Object.keys(feature(breeding, [0, 0], '', '', f.properties.Area === undefined ? {} : { Area: 1 }).properties).sort());
    expect((await app.call('GET', `/api/establishments/${breeding.unit.establishmentId}`, { token: slaughterhouse.owner.access })).status).toBe(404);
  });

  test('the lot by ingress, by animal ids and by tag codes is the same collection; the GraphQL field answers the same', async () => {
    const byGta = (await geolocation(slaughterhouse.owner.access, { gta_id: gtaId })).res.body;
    for (const lot of [{ animals_ingress_id: ingressId }, { lst_animal_ids: animalIds.map((id) => id.toUpperCase()) }, { lst_tag_codes: codes }]) {
      const { res, text } = await geolocation(slaughterhouse.owner.access, lot);
      expectGeoJson(res, text);
      expect(res.body).toEqual(byGta);
    }
    const gql = await app.graphql('query($lot: EudrLotInput!) { eudrGeolocation(lot: $lot) { feature_collection verdict { str_status } } }', { lot: { gta_id: gtaId } }, slaughterhouse.owner.access);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.eudrGeolocation.feature_collection).toEqual(byGta);
  });

  test('the verdict names the feedlot’s point stored with too few decimals, and nothing else', async () => {
    const res = await app.call('POST', '/api/eudr/verdict', { token: slaughterhouse.owner.access, body: { gta_id: gtaId } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      str_status: 'NOT_READY',
      int_animals: 2,
      int_establishments: 5,
      reasons: [{ establishment_id: feedlot.unit.establishmentId, str_establishment_name: expect.any(String), str_reason: 'INVALID_POINT', str_detail: expect.stringContaining('6 decimals'), int_animals: 2, animals: null }],
    });
    await app.service.orm.em.fork().execute('update establishment set num_longitude = -53.500001, num_latitude = -14.250001 where id = ?', [feedlot.unit.establishmentId]);
    const ready = await app.call('POST', '/api/eudr/verdict', { token: slaughterhouse.owner.access, body: { gta_id: gtaId } });
    expect(ready.body.data).toEqual({ str_status: 'READY', int_animals: 2, int_establishments: 5, reasons: [] });
  });

  test('who may ask: the holder, an authority of the UF, an administrator; a stranger, an earlier holder and another UF’s authority get 404', async () => {
    const lot = { gta_id: gtaId };
    const stranger = await member(app);
    const otherCounty = await (async () => {
      for (;;) {
        const c = await makeCounty(app);
        if (c.str_federative_unit !== county.str_federative_unit) return c;
      }
    })();
    for (const token of [stranger.access, breeding.owner.access, feedlot.owner.access, (await official(app, otherCounty.id)).access]) {
      for (const path of ['/api/eudr/geolocation', '/api/eudr/verdict']) {
        const res = await app.call('POST', path, { token, body: lot });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'NOT_FOUND', detail: 'lot not found' });
      }
      expect((await app.call('POST', '/api/eudr/geolocation', { token, body: { lst_animal_ids: animalIds } })).status).toBe(404);
    }
    const admin = await login(app, await makeUser(app, { admin: true }));
    for (const token of [(await official(app, county.id)).access, admin.access]) {
      const { res, text } = await geolocation(token, lot);
      expectGeoJson(res, text);
      expect(res.body.features).toHaveLength(5);
    }
  });

  test('a slaughterhouse unit and a window: the animals slaughtered there then', async () => {
    await mustPost(app, '/api/tags-writeoffs', slaughterhouse.owner.access, { control_unit_id: slaughterhouse.unit.unitId, str_reason: 'ANIMAL_SLAUGHTER', tags: [{ str_code: codes[0] }] });
    const now = Date.now();
    const window = { control_unit_id: slaughterhouse.unit.unitId, ts_from: new Date(now - DAY).toISOString(), ts_to: new Date(now + DAY).toISOString() };
    const { res, text } = await geolocation(slaughterhouse.owner.access, window);
    expectGeoJson(res, text);
    expect(res.body.features.map((f: { properties: { int_animals: number } }) => f.properties.int_animals)).toEqual([1, 1, 1, 1, 1]);
    const before = { ...window, ts_from: new Date(now - 3 * DAY).toISOString(), ts_to: new Date(now - 2 * DAY).toISOString() };
    expect((await app.call('POST', '/api/eudr/geolocation', { token: slaughterhouse.owner.access, body: before })).status).toBe(404);
  });

  test('statements are flat in the lot’s size', async () => {
    const one = await app.call('POST', '/api/eudr/geolocation', { token: slaughterhouse.owner.access, body: { lst_animal_ids: [animalIds[1]] } });
    const both = await app.call('POST', '/api/eudr/geolocation', { token: slaughterhouse.owner.access, body: { gta_id: gtaId } });
    expect(one.status).toBe(200);
    expect(one.sql).toBe(2);
    expect(both.sql).toBe(one.sql);
  });
});

describe('NOT_READY, each reason', () => {
  test('no point, no CAR, NON_COMPLIANT: each named on its establishment; the holding without a point is kept, its geometry null', async () => {
    const bare = await holding(app, county, 'FARM', { car: false, socio: 'NON_COMPLIANT' });
    const holder = await holding(app, county, 'FEEDLOT');
    await placeAt(holder, -50.111111, -10.222222);
    const { animalIds } = await animalsStaying(app, bare.unit.unitId, 3, new Date(Date.now() - 30 * DAY));
    await moveAnimals(app, animalIds, holder.unit.unitId);
    const { res, text } = await geolocation(holder.owner.access, { lst_animal_ids: animalIds });
    expectGeoJson(res, text);
    expect(res.body.features.map((f: { geometry: unknown }) => f.geometry)).toEqual([null, point(-50.111111, -10.222222)]);
    expect(res.body.features[0].properties).toMatchObject({ establishment_id: bare.unit.establishmentId, str_car: null, str_socioenvironmental_status: 'NON_COMPLIANT', int_animals: 3 });
    const verdict = await app.call('POST', '/api/eudr/verdict', { token: holder.owner.access, body: { lst_animal_ids: animalIds } });
    expect(verdict.body.data.str_status).toBe('NOT_READY');
    expect(verdict.body.data.reasons.map((r: { establishment_id: string; str_reason: string; int_animals: number }) => [r.establishment_id, r.str_reason, r.int_animals])).toEqual([
      [bare.unit.establishmentId, 'NO_POINT', 3],
      [bare.unit.establishmentId, 'NO_CAR', 3],
      [bare.unit.establishmentId, 'NON_COMPLIANT', 3],
    ]);
  });

  test('an animal that arrived with an unknown code: its earlier holdings are unknown', async () => {
    const farm = await holding(app, county, 'FARM');
    const slaughterhouse = await holding(app, county, 'SLAUGHTERHOUSE');
    await placeAt(farm, -49.123456, -12.123456);
    await placeAt(slaughterhouse, -49.654321, -12.654321);
    const { codes } = await animalsStaying(app, farm.unit.unitId, 1);
    const gta = await issueGta(app, farm.owner.access, farm.unit, slaughterhouse.unit, 1, { str_purpose: 'SLAUGHTER' });
    const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, gta_id: gta.id, tags: [egressRead(codes[0]!)] })).body.data;
    await app.call('POST', `/api/animals-egress/${egress.id}/finish`, { token: farm.owner.access });
    const unknown = `076${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}`;
    const ingress = (await mustPost(app, '/api/animals-ingress', slaughterhouse.owner.access, { to_control_unit_id: slaughterhouse.unit.unitId, gtas: [{ gta_id: gta.id }], tags: [ingressRead(codes[0]!), ingressRead(unknown)] })).body.data;
    await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: slaughterhouse.owner.access });
    const verdict = await app.call('POST', '/api/eudr/verdict', { token: slaughterhouse.owner.access, body: { animals_ingress_id: ingress.id } });
    expect(verdict.body.data).toMatchObject({ str_status: 'NOT_READY', int_animals: 2, int_establishments: 2 });
    // Named by tag code and id, so the operator knows which ear to look at.
    const [stranger] = await rows<{ animal_id: string }>(app, 'select animal_id from tag where str_code = ?', [unknown]);
    expect(verdict.body.data.reasons).toEqual([
      { establishment_id: slaughterhouse.unit.establishmentId, str_establishment_name: expect.any(String), str_reason: 'UNKNOWN_ORIGIN', str_detail: expect.stringContaining(unknown), int_animals: 1, animals: [{ id: stranger!.animal_id, str_tag_code: unknown }] },
    ]);
  });
});

describe('the input boundary', () => {
  test('an establishment’s geo_location: six decimals, inside Brazil, [longitude, latitude]', async () => {
    const h = await holding(app, county, 'FARM');
    for (const [coordinates, says] of [
      [[-47.9297, -15.7797], '6 decimals'],
      [[2.352222, 48.856613], 'inside Brazil'],
      [[-15.779722, -47.929722], 'check the order'],
      [[-57.575926, -25.263739], 'more than 10 km'], // Asunción, Paraguay
      [[-31.512347, -12.874561], 'more than 10 km'], // the Atlantic
    ] as const) {
      const res = await app.call('PATCH', `/api/establishments/${h.unit.establishmentId}`, { token: h.owner.access, body: { geo_location: { type: 'Point', coordinates } } });
      expect(res.status).toBe(422);
      expect(res.body.detail.fields.geo_location[0]).toContain(says);
    }
    const [stored] = await rows<{ num_longitude: number | null }>(app, 'select num_longitude from establishment where id = ?', [h.unit.establishmentId]);
    expect(stored!.num_longitude).toBeNull();
    // An oceanic island is Brazil.
    await placeAt(h, -32.423151, -3.854329);
  });

  test('a geo_location that is no GeoJSON Point of numbers is a 422 naming geo_location, the field the client sent', async () => {
    const h = await holding(app, county, 'FARM');
    for (const geo_location of [
      { type: 'Point', coordinates: ['-47.929722', '-15.779722'] },
      { type: 'Polygon', coordinates: [[[-47.9, -15.7], [-47.8, -15.7], [-47.8, -15.8], [-47.9, -15.7]]] },
      { type: 'Point', coordinates: [-47.929722] },
      { type: 'Point' },
      'somewhere',
    ]) {
      for (const [method, path] of [['PATCH', `/api/establishments/${h.unit.establishmentId}`], ['PATCH', `/api/v1/establishments/${h.unit.establishmentId}`]] as const) {
        const res = await app.call(method, path, { token: h.owner.access, body: { geo_location } });
        expect([JSON.stringify(geo_location), res.status, res.body.error, Object.keys(res.body.detail?.fields ?? {})]).toEqual([JSON.stringify(geo_location), 422, 'VALIDATION_FAILED', ['geo_location']]);
      }
    }
  });

  test('a lot is exactly one kind, lists hold 1 to 5,000, a window goes with a unit and lasts at most 31 days', async () => {
    const h = await holding(app, county, 'SLAUGHTERHOUSE');
    const id = h.unit.unitId;
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'lot'],
      [{ gta_id: id, animals_ingress_id: id }, 'lot'],
      [{ lst_animal_ids: [] }, 'lst_animal_ids'],
      [{ lst_animal_ids: Array.from({ length: 5001 }, () => id) }, 'lst_animal_ids'],
      [{ lst_tag_codes: ['12345'] }, 'lst_tag_codes[0]'],
      [{ gta_id: id, ts_from: new Date().toISOString() }, 'ts_from'],
      [{ control_unit_id: id }, 'ts_from'],
      [{ control_unit_id: id, ts_from: '2026-01-01T00:00:00Z', ts_to: '2026-03-01T00:00:00Z' }, 'ts_to'],
      [{ control_unit_id: id, ts_from: '2026-01-02T00:00:00Z', ts_to: '2026-01-01T00:00:00Z' }, 'ts_to'],
    ];
    for (const [body, field] of cases) {
      const res = await app.call('POST', '/api/eudr/geolocation', { token: h.owner.access, body });
      expect([res.status, Object.keys(res.body.detail.fields)]).toEqual([422, expect.arrayContaining([field])]);
    }
  });

  test('a lot past the EU system’s file limit is a 422 naming the limit and the count', async () => {
    const small = await startApp({ EUDR_STATEMENT_MAX_BYTES: '1000' });
    try {
      // Its own county and places: on PGlite each service has a database of its own.
      const place = await makeCounty(small);
      const farms = [await holding(small, place, 'FARM'), await holding(small, place, 'FARM'), await holding(small, place, 'FARM')];
      const holder = await holding(small, place, 'FEEDLOT');
      const { animalIds } = await animalsStaying(small, farms[0]!.unit.unitId, 1, new Date(Date.now() - 30 * DAY));
      await moveAnimals(small, animalIds, farms[1]!.unit.unitId, new Date(Date.now() - 20 * DAY));
      await moveAnimals(small, animalIds, farms[2]!.unit.unitId, new Date(Date.now() - 10 * DAY));
      await moveAnimals(small, animalIds, holder.unit.unitId);
      const res = await small.call('POST', '/api/eudr/geolocation', { token: holder.owner.access, body: { lst_animal_ids: animalIds } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'RULE_VIOLATED',
        detail: { rule: 'EUDR_STATEMENT_TOO_LARGE', message: expect.stringContaining('limit of 1000 bytes'), int_limit_bytes: 1000, int_bytes: expect.any(Number), int_establishments: 4 },
      });
      expect(res.body.detail.int_bytes).toBeGreaterThan(1000);
      // A lot that stood at one establishment only fits.
      const { animalIds: homeBred } = await animalsStaying(small, holder.unit.unitId, 1);
      expect((await small.call('POST', '/api/eudr/geolocation', { token: holder.owner.access, body: { lst_animal_ids: homeBred } })).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
