/**
 * interface.md marks relations optional and never nullable ("Fields marked nullable may be null";
 * "Fields not marked required are optional in responses"): a REST answer leaves out a relation the
 * record does not have, where GraphQL answers null. Scalars, GeoJSON Points and lists stay null.
 */
import { randomInt } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { unitCode } from './helpers/places.js';
import { renavamCheckDigit } from '../src/transit/vehicle.rules.js';

const app = useApp();

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function vehicleBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const d = () => String(randomInt(10));
  const l = () => LETTERS[randomInt(26)]!;
  const first10 = Array.from({ length: 10 }, d).join('');
  return {
    str_brand: 'Volvo', str_color: 'Branco', str_fuel: 'DIESEL', str_last_registration: '2024', str_model: 'FH 540', str_type: 'TRUCK', str_year_of_manufacture: '2019',
    str_license_plate: `${l()}${l()}${l()}${d()}${l()}${d()}${d()}`,
    str_renavam_number: first10 + renavamCheckDigit(first10),
    ...over,
  };
}

test('a vehicle without owner: no owner key over REST, owner null over GraphQL; a null str_ stays null in both', async () => {
  const owner = await member(app, 'OWNER');
  const created = await app.call('POST', '/api/vehicles', { token: owner.access, body: vehicleBody() });
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  for (const res of [created, await app.call('GET', `/api/vehicles/${id}`, { token: owner.access }), await app.call('POST', '/api/vehicles/search', { token: owner.access, body: { id } })]) {
    const v = Array.isArray(res.body.data) ? res.body.data[0] : res.body.data;
    expect(v.id).toBe(id);
    expect(v).not.toHaveProperty('owner');
    expect(v).toHaveProperty('str_trailer_plate', null);
  }
  const gql = await app.graphql('query($id: UUID!) { vehicle(id: $id) { owner { id } str_trailer_plate } }', { id }, owner.access);
  expect(gql.body).toEqual({ data: { vehicle: { owner: null, str_trailer_plate: null } } });

  const owned = await app.call('POST', '/api/vehicles', { token: owner.access, body: vehicleBody({ owner_id: owner.user.id }) });
  expect(owned.body.data.owner.id).toBe(owner.user.id);
});

test('an establishment without county, responsible user or location: relations left out, uuid, dec_, geo_, lst_ and str_ fields null; units in a page each as they are', async () => {
  const owner = await member(app, 'OWNER');
  const created = await app.call('POST', '/api/establishments', { token: owner.access, body: { str_name: 'Fazenda Sem Dono', str_type: 'FARM' } });
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  const units = [];
  for (const over of [{ responsible_user_id: owner.user.id }, {}]) {
    const u = await app.call('POST', '/api/control-units', { token: owner.access, body: { establishment_id: id, str_code: unitCode(), str_name: 'Retiro', str_type: 'PRODUCTION', ...over } });
    expect(u.status).toBe(201);
    units.push(u.body.data.id);
  }

  const read = await app.call('GET', `/api/establishments/${id}`, { token: owner.access });
  expect(read.status).toBe(200);
  expect(read.body.data).not.toHaveProperty('county');
  expect(read.body.data).not.toHaveProperty('responsible_user');
  for (const f of ['county_id', 'responsible_user_id', 'dec_area', 'geo_location', 'lst_invite_movimentation_types', 'str_address']) expect(read.body.data).toHaveProperty(f, null);

  const page = await app.call('GET', '/api/establishments', { token: owner.access });
  const [withResponsible, withoutResponsible] = units.map((unitId) => page.body.data[0].control_units.find((u: { id: string }) => u.id === unitId));
  expect(withResponsible.responsible_user.id).toBe(owner.user.id);
  expect(withoutResponsible).toBeDefined();
  expect(withoutResponsible).not.toHaveProperty('responsible_user');
  expect(withoutResponsible).toHaveProperty('str_predominant_phase', null);

  const gql = await app.graphql('query($id: UUID!) { establishment(id: $id) { county { id } responsible_user { id } geo_location { type } control_units { id responsible_user { id } } } }', { id }, owner.access);
  expect(gql.body.data.establishment).toMatchObject({ county: null, responsible_user: null, geo_location: null });
  expect(gql.body.data.establishment.control_units).toContainEqual({ id: units[1], responsible_user: null });
});

test('OpenAPI says the same: a relation is optional and not nullable, scalars and GeoJSON Points stay nullable', async () => {
  const schemas = (await app.call('GET', '/api/openapi.json')).body.components.schemas;
  expect(schemas.Vehicle.properties.owner).toEqual({ $ref: '#/components/schemas/User' });
  expect(schemas.Vehicle.required).not.toContain('owner');
  expect(schemas.Vehicle.properties.str_trailer_plate).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  expect(schemas.Establishment.properties.county).toEqual({ $ref: '#/components/schemas/County' });
  expect(schemas.Establishment.properties.geo_location).toEqual({ anyOf: [{ $ref: '#/components/schemas/GeoJSONPoint' }, { type: 'null' }] });
  expect(schemas.Invite.properties.gta).toEqual({ $ref: '#/components/schemas/Gta' });
});
