import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { makeUnit, stockTags } from './helpers/tags.js';

const app = useApp();

const fieldsOf = (body: { error?: string; detail?: { fields?: Record<string, string[]> } }) => ({ error: body.error, fields: Object.keys(body.detail?.fields ?? {}) });

/** Issue 9: the classes of bad input that answered 500 now answer 422 naming the field, and write nothing. */
describe('one input boundary', () => {
  test('a NUL character anywhere is a 422 naming the field, in a body, a query string, a GraphQL variable or literal', async () => {
    const owner = await member(app);
    const search = await app.call('POST', '/api/users/search', { token: owner.access, body: { str_name: 'a\u0000b' } });
    expect({ status: search.status, ...fieldsOf(search.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['str_name'] });
    const index = await app.call('GET', '/api/users?str_name=a%00b', { token: owner.access });
    expect({ status: index.status, ...fieldsOf(index.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['str_name'] });
    const variable = await app.graphql('mutation($input: OrganizationCreateInput!) { createOrganization(input: $input) { id } }', { input: { str_name: 'x\u0000', str_document: '1' } }, owner.access);
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { 'input.str_name': [expect.stringMatching(/NUL/)] } } });
    const literal = await app.graphql('{ users(filter: {str_name: "a\\u0000b"}) { data { id } } }', {}, owner.access);
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  test('strings past their length, numbers past their column, bodies past their depth: 422, nothing written', async () => {
    const owner = await member(app);
    const unit = await makeUnit(app, owner.org.id);
    const long = 'x'.repeat(900_000);
    const code = await app.call('POST', '/api/control-units', { token: owner.access, body: { establishment_id: unit.establishmentId, str_code: long, str_name: 'Retiro', str_type: 'PRODUCTION' } });
    expect({ status: code.status, ...fieldsOf(code.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['str_code'] });
    expect(code.body.detail.fields.str_code).toEqual(['must be at most 255 characters']);

    for (const dec of [1e308, 9007199254740992]) {
      const res = await app.call('PATCH', `/api/establishments/${unit.establishmentId}`, { token: owner.access, body: { dec_area: dec, dec_exploration_area: dec } });
      expect({ status: res.status, ...fieldsOf(res.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['dec_area', 'dec_exploration_area'] });
    }

    const nested = '['.repeat(50_000) + ']'.repeat(50_000);
    const deep = await app.call('POST', '/api/vehicles', { token: owner.access, raw: nested, headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() } });
    expect(deep.status).toBe(422);
    expect(deep.body.error).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(deep.body.detail)).toMatch(/nested deeper/);
  });

  test('`constructor` is an unknown key like any other, `__proto__` a refused body; the Warning header stays bounded', async () => {
    const owner = await member(app);
    const search = await app.call('POST', '/api/establishments/search', { token: owner.access, body: { constructor: 'x', str_name: 'y' } });
    expect({ status: search.status, ...fieldsOf(search.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['constructor'] });
    // A `__proto__` key never becomes an object here: the JSON parser refuses the body (docs/decisions/contract.md).
    const proto = await app.call('POST', '/api/establishments/search', { token: owner.access, raw: '{"__proto__": {"a": 1}}', headers: { 'content-type': 'application/json' } });
    expect(proto.body).toEqual({ error: 'BAD_REQUEST', detail: 'malformed JSON body' });

    // A search names at most 20 of its unknown filters too, not 40,000.
    const filters = await app.call('POST', '/api/establishments/search', { token: owner.access, body: Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`unknown_${i}`, 1])) });
    expect({ status: filters.status, error: filters.body.error, named: Object.keys(filters.body.detail.fields).length }).toEqual({ status: 422, error: 'VALIDATION_FAILED', named: 20 });
    expect(filters.body.detail.accepted_keys).toContain('str_name');

    const extras = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`unknown_${i}`, 1]));
    const res = await app.call('PUT', '/api/self-update', { token: owner.access, body: { ...extras, str_name: 'Dona Ana', constructor: 1 } });
    expect(res.status).toBe(200);
    const warning = res.headers.get('warning')!;
    expect(warning).toMatch(/unknown fields ignored: unknown_0, unknown_1, .* and 39981 more/);
    expect(warning.length).toBeLessThan(1024);
  });

  test('a date-time past what the column holds (year 0, 10000, ±275760) is a 422 naming the field, in a body, a search and a query string', async () => {
    const owner = await member(app);
    const unit = await makeUnit(app, owner.org.id);
    for (const at of ['+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '0000-01-01T00:00:00Z', '+010000-01-01T00:00:00Z']) {
      const search = await app.call('POST', '/api/gtas/search', { token: owner.access, body: { ts_valid_until_to: at } });
      expect({ at, status: search.status, ...fieldsOf(search.body) }).toEqual({ at, status: 422, error: 'VALIDATION_FAILED', fields: ['ts_valid_until_to'] });
      const index = await app.call('GET', `/api/animals?ts_born_date_from=${encodeURIComponent(at)}`, { token: owner.access });
      expect({ at, status: index.status, ...fieldsOf(index.body) }).toEqual({ at, status: 422, error: 'VALIDATION_FAILED', fields: ['ts_born_date_from'] });
      const invite = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unit.unitId, user_id: owner.user.id, str_movimentation_type: 'BOTH', ts_expires_at: at } });
      expect({ at, status: invite.status, ...fieldsOf(invite.body) }).toEqual({ at, status: 422, error: 'VALIDATION_FAILED', fields: ['ts_expires_at'] });
    }
    const variable = await app.graphql('query($f: JSONObject) { users(filter: $f) { data { id } } }', { f: { ts_created_at_from: '0000-01-01T00:00:00Z' } }, owner.access);
    expect(variable.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { 'f.ts_created_at_from': [expect.stringMatching(/0001-01-01/)] } } });
    // The edges themselves are dates like any other.
    const edges = await app.call('POST', '/api/gtas/search', { token: owner.access, body: { ts_valid_until_from: '0001-01-01T00:00:00Z', ts_valid_until_to: '9999-12-31T23:59:59.999Z' } });
    expect(edges.status).toBe(200);
  });

  test('a lone UTF-16 surrogate (no UTF-8 form) is a 422 naming the field, where a json parameter would have been a 500', async () => {
    const owner = await member(app);
    const unit = await makeUnit(app, owner.org.id);
    const { codes } = await stockTags(app, unit.unitId, 1);
    const body = { to_control_unit_id: unit.unitId, animals: [{ str_tag_code: codes[0], str_species: 'BOVINE', str_gender: 'MALE', str_name: 'Mimosa \ud800' }] };
    const res = await app.call('POST', '/api/tags-identifications', { token: owner.access, body });
    expect({ status: res.status, ...fieldsOf(res.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['animals[0].str_name'] });
    const key = await app.call('POST', '/api/users/search', { token: owner.access, body: { 'str_\udc00': 'x' } });
    expect({ status: key.status, ...fieldsOf(key.body) }).toEqual({ status: 422, error: 'VALIDATION_FAILED', fields: ['str_?'] });
    // A whole pair is a character like any other.
    const pair = await app.call('POST', '/api/tags-identifications', { token: owner.access, body: { ...body, animals: [{ ...body.animals[0], str_name: 'Mimosa 🐂' }] } });
    expect(pair.status).toBe(201);
  });
});
