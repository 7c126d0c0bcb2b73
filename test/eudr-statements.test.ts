import { getIssues } from '@placemarkio/check-geojson';
import { mustPost, useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { animalsStaying } from './helpers/stays.js';

/**
 * A lot's EUDR statement as a record (issue 38): created from the lot, its GeoJSON and verdict as
 * GETs (the GeoJSON's Link followed), what TRACES gave recorded by PATCH, and the references shown
 * on the lot's animals and GTA.
 */
const app = useApp();
const county = useCounty(app);

async function placeAt(h: Holding, lon: number, lat: number): Promise<void> {
  const res = await app.call('PATCH', `/api/establishments/${h.unit.establishmentId}`, { token: h.owner.access, body: { geo_location: { type: 'Point', coordinates: [lon, lat] } } });
  expect(res.status).toBe(200);
}

describe('a slaughterhouse records the statement of a GTA’s lot', () => {
  let farm: Holding, slaughterhouse: Holding;
  let animalIds: string[];
  let gtaId: string;
  let statementId: string;

  beforeAll(async () => {
    farm = await holding(app, county, 'FARM');
    slaughterhouse = await holding(app, county, 'SLAUGHTERHOUSE');
    await placeAt(farm, -49.123456, -12.123456);
    await placeAt(slaughterhouse, -49.654321, -12.654321);
    const stock = await animalsStaying(app, farm.unit.unitId, 2);
    animalIds = stock.animalIds;
    const gta = await issueGta(app, farm.owner.access, farm.unit, slaughterhouse.unit, 2, { str_purpose: 'SLAUGHTER' });
    gtaId = gta.id;
    const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, gta_id: gta.id, tags: stock.codes.map((c) => egressRead(c)) })).body.data;
    expect((await app.call('POST', `/api/animals-egress/${egress.id}/finish`, { token: farm.owner.access })).status).toBe(200);
    const ingress = (await mustPost(app, '/api/animals-ingress', slaughterhouse.owner.access, { to_control_unit_id: slaughterhouse.unit.unitId, gtas: [{ gta_id: gta.id }], tags: stock.codes.map((c) => ingressRead(c)) })).body.data;
    expect((await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: slaughterhouse.owner.access })).status).toBe(200);
  });

  test('POST the lot: 201 with an id; its GeoJSON is a GET whose Link, followed, answers the verdict', async () => {
    const created = await app.call('POST', '/api/eudr/statements', { token: slaughterhouse.owner.access, body: { gta_id: gtaId.toUpperCase() } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ id: expect.any(String), lot: { gta_id: gtaId }, gta_id: gtaId, int_animals: 2, str_reference_number: null, upstream_statements: [], ts_submitted_at: null });
    statementId = created.body.data.id;
    expect((await app.call('GET', `/api/eudr/statements/${statementId}`, { token: slaughterhouse.owner.access })).body.data).toEqual(created.body.data);

    const geo = await app.call('GET', `/api/eudr/statements/${statementId}/geolocation`, { token: slaughterhouse.owner.access });
    expect(geo.status).toBe(200);
    expect(geo.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    const raw = await fetch(`${app.url}/api/eudr/statements/${statementId}/geolocation`, { headers: { authorization: `Bearer ${slaughterhouse.owner.access}` } });
    expect(getIssues(await raw.text())).toEqual([]);
    expect(geo.body.features.map((f: { properties: { establishment_id: string } }) => f.properties.establishment_id)).toEqual([farm.unit.establishmentId, slaughterhouse.unit.establishmentId]);
    // The same lot POSTed answers the same collection.
    expect((await app.call('POST', '/api/eudr/geolocation', { token: slaughterhouse.owner.access, body: { gta_id: gtaId } })).body).toEqual(geo.body);

    const link = /^<([^>]+)>; rel="describedby"/.exec(geo.headers.get('link') ?? '');
    expect(link?.[1]).toBe(`/api/eudr/statements/${statementId}/verdict`);
    const verdict = await app.call('GET', link![1]!, { token: slaughterhouse.owner.access });
    expect(verdict.status).toBe(200);
    expect(verdict.body.data).toMatchObject({ int_animals: 2, int_establishments: 2 });
    expect(verdict.body.data).toEqual((await app.call('POST', '/api/eudr/verdict', { token: slaughterhouse.owner.access, body: { gta_id: gtaId } })).body.data);
  });

  test('only the organization that made it reads it; the lot’s earlier holder and a stranger may not make one', async () => {
    const stranger = await member(app);
    for (const token of [stranger.access, farm.owner.access]) {
      for (const path of ['', '/geolocation', '/verdict']) expect((await app.call('GET', `/api/eudr/statements/${statementId}${path}`, { token })).status).toBe(404);
      expect((await app.call('PATCH', `/api/eudr/statements/${statementId}`, { token, body: { str_reference_number: '25BRVHQ8JAPRTG' } })).status).toBe(404);
      const res = await app.call('POST', '/api/eudr/statements', { token, body: { gta_id: gtaId } });
      expect(res.body).toEqual({ error: 'NOT_FOUND', detail: 'lot not found' });
    }
  });

  test('PATCH records what TRACES gave; the lot’s animals and GTA then show the reference', async () => {
    const ofAnimal = async (token: string) => (await app.call('GET', `/api/animals/${animalIds[0]}/eudr-statements`, { token })).body.data;
    expect(await ofAnimal(slaughterhouse.owner.access)).toEqual([]);
    const res = await app.call('PATCH', `/api/eudr/statements/${statementId}`, {
      token: slaughterhouse.owner.access,
      body: {
        str_reference_number: ' 25brvhq8japrtg ',
        str_verification_number: 'y6adf7pf',
        str_dds_identifier: 'C7A1E3B2-1F4D-4E8A-9B0C-2D3E4F5A6B7C',
        upstream_statements: [{ str_reference_number: '25BRAAAA1111BB', str_verification_number: 'ZZ11YY22' }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      str_reference_number: '25BRVHQ8JAPRTG',
      str_verification_number: 'Y6ADF7PF',
      str_dds_identifier: 'c7a1e3b2-1f4d-4e8a-9b0c-2d3e4f5a6b7c',
      upstream_statements: [{ str_reference_number: '25BRAAAA1111BB', str_verification_number: 'ZZ11YY22' }],
      ts_submitted_at: expect.any(String),
    });
    const reference = { statement_id: statementId, str_reference_number: '25BRVHQ8JAPRTG', str_verification_number: 'Y6ADF7PF', str_dds_identifier: 'c7a1e3b2-1f4d-4e8a-9b0c-2d3e4f5a6b7c', ts_submitted_at: res.body.data.ts_submitted_at };
    expect(await ofAnimal(slaughterhouse.owner.access)).toEqual([reference]);
    // The GTA's issuer (the farm) reads it too, and the animal's; a stranger reads neither.
    for (const token of [slaughterhouse.owner.access, farm.owner.access]) {
      const gta = await app.call('GET', `/api/gtas/${gtaId}/eudr-statements`, { token });
      expect([gta.status, gta.body.data]).toEqual([200, [reference]]);
    }
    const stranger = await member(app);
    expect((await app.call('GET', `/api/gtas/${gtaId}/eudr-statements`, { token: stranger.access })).status).toBe(404);
    expect((await app.call('GET', `/api/animals/${animalIds[0]}/eudr-statements`, { token: stranger.access })).status).toBe(404);
    const gql = await app.graphql('query($id: UUID!) { animal(id: $id) { eudr_statements { str_reference_number } } }', { id: animalIds[1] }, slaughterhouse.owner.access);
    expect(gql.body.data.animal.eudr_statements).toEqual([{ str_reference_number: '25BRVHQ8JAPRTG' }]);
  });

  test('bad references are 422s naming the field; a reference already recorded on another statement is a conflict', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ str_reference_number: 'abc' }, 'str_reference_number'],
      [{ str_verification_number: 'a-b' }, 'str_verification_number'],
      [{ str_dds_identifier: 'not-a-uuid' }, 'str_dds_identifier'],
      [{ upstream_statements: [{ str_reference_number: '25BRAAAA1111BB', str_verification_number: '?' }] }, 'upstream_statements[0].str_verification_number'],
    ];
    for (const [body, field] of cases) {
      const res = await app.call('PATCH', `/api/eudr/statements/${statementId}`, { token: slaughterhouse.owner.access, body });
      expect([res.status, res.body.error, Object.keys(res.body.detail.fields)]).toEqual([422, 'VALIDATION_FAILED', [field]]);
    }
    const other = await app.call('POST', '/api/eudr/statements', { token: slaughterhouse.owner.access, body: { lst_animal_ids: animalIds } });
    expect(other.status).toBe(201);
    const taken = await app.call('PATCH', `/api/eudr/statements/${other.body.data.id}`, { token: slaughterhouse.owner.access, body: { str_reference_number: '25BRVHQ8JAPRTG' } });
    expect(taken.body.error).toBe('CONFLICT');
  });
});
