import { randomInt, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { startApp, type Reply, type TestApp } from './helpers/app.js';
import { cnpj, cpf, email, makeUser, member, PASSWORD, type Person, type Session } from './helpers/factories.js';
import { carOf, makeCounty, unitCode, type TestCounty } from './helpers/places.js';
import { codeAt, freshCodeBlock, makeUnit, stockAnimals, stockTags } from './helpers/tags.js';
import { Membership } from '../src/identity/membership.entity.js';
import type { Organization } from '../src/identity/organization.entity.js';
import { Tokens } from '../src/identity/tokens.js';
import { renavamCheckDigit } from '../src/transit/vehicle.rules.js';

/**
 * Issue 9: every operation of the service's own OpenAPI document (GET /api/openapi.json, built from
 * rest/*.routes.ts) is sent generated bad requests over real HTTP, as an organization owner and
 * without a session: NUL characters, strings of 300 and 900,000 characters (fields, path and query
 * parameters), numbers past any column and NaN-ish strings, dates PostgreSQL cannot read, lone
 * surrogates, bodies nested 50,000 deep or with 40,000 keys, `__proto__`/`constructor` keys, wrong
 * types and nulls for every field of the request body schema, bodies that are not objects, bad path
 * ids, Idempotency-Key on POSTs. No answer may be a 5xx; every error answer is `{"error", "detail"}`.
 *
 * Bounded (~2,200 requests, ~25-45 s): each operation gets the fixed classes, some turning from one
 * operation to the next, plus a few fc.sample'd mutations of its real fields with a fixed seed, sent
 * four at a time. FUZZ_EXHAUSTIVE=1 sends every field every bad value of its type instead.
 */

const SEED = 9_0009;
/** Random probes (fast-check) per operation, on top of the fixed classes. */
const RANDOM_BODY_PROBES = 3;
const RANDOM_QUERY_PROBES = 1;
const RANDOM_PATH_PROBES = 1;
/** FUZZ_EXHAUSTIVE=1: every field with every bad value of its type, every path and query value (minutes, not seconds). */
const EXHAUSTIVE = process.env.FUZZ_EXHAUSTIVE === '1';
/** Requests in flight at once. */
const CONCURRENCY = 4;

// ---------------------------------------------------------------------------------------------
// The OpenAPI document, read as the fuzzer needs it.

interface Schema {
  type?: string;
  format?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
}

interface Field {
  /** Keys and indexes from the body's root. */
  path: (string | number)[];
  schema: Schema;
  required: boolean;
}

interface Operation {
  method: string;
  /** `/api/users/{id}` */
  template: string;
  id: string;
  auth: boolean;
  pathParams: string[];
  paged: boolean;
  /** The request body's object schema (an input type) or, for searches, the filters it accepts. */
  body?: { schema: Schema; fields: Field[]; search: boolean; required: boolean };
  /** Scalar fields of the records answered (query filters of index GETs). */
  recordFields: string[];
}

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, Schema> } };

function reader(doc: Doc) {
  /** The schema itself: `$ref` followed, a nullable `anyOf` reduced to its non-null branch, an `allOf` merged. */
  const resolve = (s: Schema | undefined): Schema => {
    if (!s) return {};
    if (s.$ref) return resolve(doc.components.schemas[s.$ref.split('/').pop()!]);
    if (s.anyOf) return resolve(s.anyOf.find((b) => b.type !== 'null'));
    if (s.allOf) {
      const parts = s.allOf.map(resolve);
      return parts.reduce((all, p) => ({ ...all, ...p, properties: { ...all.properties, ...p.properties }, required: [...new Set([...(all.required ?? []), ...(p.required ?? [])])] }), {} as Schema);
    }
    return s;
  };
  const fieldsOf = (schema: Schema, prefix: (string | number)[] = [], depth = 0): Field[] => {
    const out: Field[] = [];
    for (const [name, raw] of Object.entries(schema.properties ?? {})) {
      const s = resolve(raw);
      const path = [...prefix, name];
      out.push({ path, schema: s, required: (schema.required ?? []).includes(name) });
      if (depth >= 2) continue;
      if (s.type === 'object' && s.properties) out.push(...fieldsOf(s, path, depth + 1));
      const items = s.type === 'array' ? resolve(s.items) : undefined;
      if (items?.type === 'object' && items.properties) out.push(...fieldsOf(items, [...path, 0], depth + 1));
    }
    return out;
  };
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters as { name: string; in: string }[]) ?? [];
      const responses = op.responses as Record<string, { content?: Record<string, { schema: Schema }> }>;
      const success = Object.entries(responses).find(([status]) => status.startsWith('2'))?.[1];
      const data = resolve(success?.content?.['application/json']?.schema.properties?.data);
      const record = resolve(data.type === 'array' ? data.items : data);
      const recordFields = Object.entries(record.properties ?? {})
        .filter(([, s]) => ['string', 'number', 'integer', 'boolean'].includes(resolve(s).type ?? ''))
        .map(([name]) => name);
      const requestBody = op.requestBody as { required: boolean; content: Record<string, { schema: Schema }> } | undefined;
      let body: Operation['body'];
      if (requestBody) {
        // An upload's form fields are fuzzed as a JSON body too (which it refuses with 400: not multipart).
        const schema = resolve((requestBody.content['application/json'] ?? requestBody.content['multipart/form-data'])!.schema);
        if (schema.properties) body = { schema, fields: fieldsOf(schema), search: false, required: requestBody.required };
        else {
          // A search body: the record's scalar fields, ranges of its ts_* fields, and the free-text and order keys.
          const properties: Record<string, Schema> = {};
          for (const name of recordFields) properties[name] = resolve(record.properties![name]);
          for (const name of recordFields.filter((n) => n.startsWith('ts_'))) {
            properties[`${name}_from`] = { type: 'string', format: 'date-time' };
            properties[`${name}_to`] = { type: 'string', format: 'date-time' };
          }
          properties.str_query = { type: 'string' };
          properties.str_order_by = { type: 'string', enum: recordFields };
          properties.str_order = { type: 'string', enum: ['ASC', 'DESC'] };
          const filters: Schema = { type: 'object', properties, required: [] };
          body = { schema: filters, fields: fieldsOf(filters), search: true, required: false };
        }
      }
      operations.push({
        method: method.toUpperCase(),
        template,
        id: op.operationId as string,
        auth: ((op.security as unknown[]) ?? []).length > 0,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        paged: params.some((p) => p.name === 'int_current_page'),
        body,
        recordFields,
      });
    }
  }
  return { operations, resolve };
}

// ---------------------------------------------------------------------------------------------
// Bad values.

/** A JSON value sent as this text (numbers JSON.stringify cannot write: 1e400, -0, 30 digits). */
class Raw {
  constructor(readonly text: string) {}
}
interface Bad {
  label: string;
  make: () => unknown;
}
/** A constant value is copied each time it is made: a later mutation inside it must not change it for the next probe. */
const bad = (label: string, value: unknown): Bad => ({ label, make: typeof value === 'function' ? (value as () => unknown) : () => structuredClone(value) });

const nestedArray = (depth: number): unknown => {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

const NUL = bad('NUL', 'a\u0000b');
const LONG_300 = bad('300 characters', () => 'x'.repeat(300));
const LONG_900K = bad('900,000 characters', () => 'y'.repeat(900_000));

const NUMBERS: Bad[] = [
  bad('1e308', 1e308), bad('-1e308', -1e308), bad('2**53', 9007199254740992), bad('-(2**53)-1', -9007199254740993),
  bad('2**31', 2 ** 31), bad('-(2**31)-1', -(2 ** 31) - 1), bad('2**31-1', 2 ** 31 - 1), bad('-1', -1), bad('0', 0), bad('1.5', 1.5),
  bad('9999999999.99999', 9999999999.99999), bad('-9999999999.99999', -9999999999.99999), bad('5e-324', 5e-324),
  bad('raw 1e400', () => new Raw('1e400')), bad('raw -1e400', () => new Raw('-1e400')), bad('raw -0', () => new Raw('-0')),
  bad('raw 1e-400', () => new Raw('1e-400')), bad('raw 30 digits', () => new Raw('123456789012345678901234567890')),
  bad('"NaN"', 'NaN'), bad('"Infinity"', 'Infinity'), bad('"1e308"', '1e308'), bad('"12"', '12'), bad('"0x1F"', '0x1F'), bad('""', ''),
];

const STRINGS: Bad[] = [
  NUL, bad('only NUL', '\u0000'), LONG_300, bad('empty', ''), bad('blank', '   '), bad('tab and newline', '\t\n'),
  bad('emoji', '🐂💥'), bad('lone surrogate', '\ud800'), bad('right-to-left override', '\u202e'), bad('LIKE wildcards', '%_%'),
  bad('backslash', '\\'), bad('trailing backslash', 'abc\\'), bad('quotes', `'"`), bad('regex', '(['), bad('SQL', "'; drop table animal; --"),
  bad('"null"', 'null'), bad('"-1"', '-1'), bad('"1e308"', '1e308'), bad('"NaN"', 'NaN'),
  bad('19 digits', '9'.repeat(19)), bad('40 digits', '9'.repeat(40)), bad('15 zeros', '0'.repeat(15)), bad('255 digits', '9'.repeat(255)),
  bad('non-uuid', 'not-a-uuid'), bad('upper-case uuid', () => randomUUID().toUpperCase()), bad('uuid in spaces', () => ` ${randomUUID()} `),
  bad('nil uuid', '00000000-0000-0000-0000-000000000000'), bad('max uuid', 'ffffffff-ffff-ffff-ffff-ffffffffffff'), bad('uuid + NUL', () => `${randomUUID()}\u0000`),
  bad('latest date', '+275760-09-13T00:00:00.000Z'), bad('earliest date', '-271821-04-20T00:00:00.000Z'), bad('year 0', '0000-01-01T00:00:00Z'),
  bad('year 10000', '+010000-01-01T00:00:00Z'), bad('year 9999', '9999-12-31T23:59:59.999Z'), bad('30 February', '2024-02-30T00:00:00Z'),
  bad('date without zone', '2024-01-01T00:00:00'), bad('date only', '2024-01-01'), bad('epoch milliseconds', '1700000000000'),
  bad('e-mail without domain', 'a@'), bad('e-mail of 255', () => `${'a'.repeat(240)}@example.com`),
];

/** Wrong for any field (the ones of the field's own type are left out by wrongTypesFor). */
const WRONG: (Bad & { type: string })[] = [
  { ...bad('array', () => ['x']), type: 'array' }, { ...bad('empty array', () => []), type: 'array' },
  { ...bad('object', () => ({ a: 1 })), type: 'object' }, { ...bad('empty object', () => ({})), type: 'object' },
  { ...bad('true', true), type: 'boolean' }, { ...bad('false', false), type: 'boolean' },
  { ...bad('number', 1), type: 'number' }, { ...bad('1e308', 1e308), type: 'number' },
  { ...bad('string', 'x'), type: 'string' }, { ...bad('null', null), type: 'null' },
  { ...bad('array nested 30 deep', () => nestedArray(30)), type: 'array' },
  { ...bad('1,000 nulls', () => Array(1000).fill(null)), type: 'array' },
  { ...bad('prototype keys', () => ({ constructor: 'x', toString: 'x', hasOwnProperty: 'x', valueOf: 1 })), type: 'object' },
];

const typeOf = (s: Schema) => (s.type === 'integer' ? 'number' : s.type ?? 'string');
const wrongTypesFor = (s: Schema): Bad[] => WRONG.filter((w) => w.type !== typeOf(s));
/** The most wrong type for a field: an array for a string, an object for a number, and so on. */
const wrongTypeFor = (s: Schema): Bad =>
  ({ string: WRONG[0]!, number: WRONG[2]!, boolean: bad('"true"', 'true'), array: WRONG[2]!, object: WRONG[0]! })[typeOf(s)] ?? WRONG[0]!;

function badValuesFor(s: Schema, name: string): Bad[] {
  const type = typeOf(s);
  const values = [...wrongTypesFor(s)];
  if (type === 'string') values.push(...STRINGS);
  if (type === 'number') values.push(...NUMBERS);
  if (type === 'boolean') values.push(bad('"true"', 'true'), bad('1', 1), bad('0', 0), bad('"yes"', 'yes'), NUL);
  if (type === 'array') {
    values.push(bad('[null]', [null]), bad('[1]', [1]), bad('[NUL]', ['\u0000']), bad('[300 characters]', () => ['x'.repeat(300)]), bad('[{}]', () => [{}]), bad('[[]]', () => [[]]));
    values.push(bad('10,000 empty strings', () => Array(10_000).fill('')), bad('duplicate items', () => ['BOTH', 'BOTH']));
  }
  if (type === 'object') values.push(bad('{unknown: 1}', () => ({ unknown: 1 })), bad('{type, coordinates: [1e308, -1e308]}', () => ({ type: 'Point', coordinates: [1e308, -1e308] })));
  if (s.enum) values.push(bad('lower-case enum', s.enum[0]!.toLowerCase()), bad('enum + space', `${s.enum[0]} `), bad('enum + NUL', `${s.enum[0]}\u0000`));
  if (name.startsWith('int_')) values.push(bad('2**31', 2 ** 31));
  return values;
}

// ---------------------------------------------------------------------------------------------
// Probes: one request each.

type Auth = 'caller' | 'none' | 'garbage';

interface Probe {
  op: Operation;
  /** What is bad about it. */
  label: string;
  path: string;
  /** Made when sent instead of `path` (a URL of 900,000 characters). */
  url?: () => string;
  /** A JSON value (Raw inside for literal text), made when sent: a batch of 900,000-character and 40,000-key bodies is not kept in memory. */
  body?: () => unknown;
  /** Sent as is, as application/json. */
  raw?: () => string;
  auth: Auth;
  garbage?: string;
  idempotencyKey?: string;
  /** Sent twice with the same key (the replay answers too). */
  replay?: boolean;
  headers?: Record<string, string>;
}

const RAW_MARK = '__fuzz_raw_7f3a_';
function serialize(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Raw ? `${RAW_MARK}${raws.push(v.text) - 1}` : v));
  return raws.length ? text.replace(new RegExp(`"${RAW_MARK}(\\d+)"`, 'g'), (_, i: string) => raws[Number(i)]!) : text;
}

/** `body` (made fresh for each probe, so changed in place) with the value at `path` set; arrays and objects on the way made as needed. */
function setAt(body: unknown, path: (string | number)[], value: unknown): unknown {
  const root = (body && typeof body === 'object' ? body : {}) as Record<string | number, unknown>;
  let at = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const next = at[key];
    if (!next || typeof next !== 'object') at[key] = typeof path[i + 1] === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  }
  at[path[path.length - 1]!] = value;
  return root;
}

const deepArrays = () => '['.repeat(50_000) + ']'.repeat(50_000);
const deepObjects = () => '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
/** `"k0":0,"k1":1,...` once: spliced into each body that gets them. */
const FORTY_THOUSAND_KEYS = Array.from({ length: 40_000 }, (_, k) => `"k${k}":${k}`).join(',');
const withKeys = (json: string, keys: string) => (json === '{}' ? `{${keys}}` : `${json.slice(0, -1)},${keys}}`);

const truncate = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s);
const show = (s: string) => truncate(s.replace(/\u0000/g, '\\u0000'));

// ---------------------------------------------------------------------------------------------

let app: TestApp;
let doc: Doc;
let caller: Person & Session & { org: Organization };
/** Signs into fresh sessions for the operations that end theirs (logout, change-org, reset-profile, self-update). */
let sessionUser: Person & { org: Organization };
let tokens: Tokens;
let county: TestCounty;
/** Records the caller may see, by the path they are read at. */
const real: Record<string, string> = {};

beforeAll(async () => {
  app = await startApp();
  tokens = new Tokens({ secret: app.config.JWT_SECRET, issuer: app.config.JWT_ISSUER, audience: app.config.JWT_AUDIENCE });
  caller = await member(app, 'OWNER');
  const s = await member(app, 'OWNER');
  sessionUser = s;
  county = await makeCounty(app);
  const em = app.service.orm.em.fork();
  const other = await makeUser(app);
  const memberToRemove = await makeUser(app);
  em.persist(em.create(Membership, { user_id: other.user.id, organization_id: caller.org.id, str_role: 'OPERATOR' }));
  em.persist(em.create(Membership, { user_id: memberToRemove.user.id, organization_id: caller.org.id, str_role: 'VIEWER' }));
  await em.flush();
  const unit = await makeUnit(app, caller.org.id, county);
  const unit2 = await makeUnit(app, caller.org.id, county);
  const { animalIds, tagIds, codes } = await stockAnimals(app, unit.unitId, 2);
  const stock = await stockTags(app, unit.unitId, 5);
  const vehicle = await app.call('POST', '/api/vehicles', { token: caller.access, body: vehicleBody() });
  const invite = await app.call('POST', '/api/invites', { token: caller.access, body: { control_unit_id: unit.unitId, user_id: s.user.id, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' } });
  const gta = await app.call('POST', '/api/gtas', { token: caller.access, body: { gta: { str_code: String(randomInt(1e9)), int_animal_quantity: 5, str_purpose: 'FATTENING', from_control_unit_id: unit.unitId, to_control_unit_id: unit2.unitId, ts_valid_until: future() }, user_id: caller.user.id } });
  for (const [what, res] of [['vehicle', vehicle], ['invite', invite], ['gta', gta]] as const) {
    if (res.status !== 201) throw new Error(`set-up: ${what} ${res.status} ${JSON.stringify(res.body)}`);
  }
  Object.assign(real, {
    user: other.user.id, member: memberToRemove.user.id, organization: caller.org.id, county: county.id,
    establishment: unit.establishmentId, unit: unit.unitId, unit2: unit2.unitId, animal: animalIds[0]!, tag: tagIds[0]!, tagCode: codes[0]!,
    freeTag: stock.tagIds[0]!, freeTagCode: stock.codes[0]!, box: stock.boxId, vehicle: vehicle.body.data.id, invite: invite.body.data.id, gta: gta.body.data.id,
  });
  const res = await app.call('GET', '/api/openapi.json');
  if (res.status !== 200) throw new Error(`GET /api/openapi.json: ${res.status}`);
  doc = res.body;
}, 120_000);
afterAll(() => app?.close());

const future = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const plate = () => `${LETTERS[randomInt(26)]}${LETTERS[randomInt(26)]}${LETTERS[randomInt(26)]}${randomInt(10)}${LETTERS[randomInt(10)]}${randomInt(10)}${randomInt(10)}`;
function renavam(): string {
  const prefix = Array.from({ length: 10 }, () => String(randomInt(10))).join('');
  return prefix + renavamCheckDigit(prefix);
}
function vehicleBody() {
  return { str_brand: 'Volvo', str_color: 'Branco', str_fuel: 'DIESEL', str_last_registration: '2024', str_license_plate: plate(), str_model: 'FH 540', str_renavam_number: renavam(), str_type: 'TRUCK', str_year_of_manufacture: '2019' };
}

/** The record a path's `{id}` names: one the caller sees where the set-up made one, else a uuid nobody has. */
function realIdFor(template: string, param: string): string {
  if (param === 'user_id') return real.member!;
  const table: [RegExp, string][] = [
    [/\/users\/\{id\}/, 'user'], [/\/organizations\/\{id\}/, 'organization'], [/\/establishments\/\{id\}/, 'establishment'],
    [/\/control-units\/\{id\}/, 'unit'], [/\/vehicles\/\{id\}/, 'vehicle'], [/\/gtas\/\{id\}/, 'gta'], [/\/invites\/\{id\}/, 'invite'],
    [/\/animals\/\{id\}/, 'animal'], [/\/tags\/\{id\}/, 'tag'], [/\/tags-boxes\/\{id\}/, 'box'], [/\/counties\/\{id\}/, 'county'],
  ];
  const hit = table.find(([re]) => re.test(template));
  return hit ? real[hit[1]]! : randomUUID();
}

/** A value the field could plausibly take, so that one bad field at a time gets as far as it can. */
function plausible(name: string, s: Schema, resolve: (s: Schema | undefined) => Schema, parent: string, block: { begin: string }): unknown {
  if (s.enum) return s.enum.includes('BOTH') ? 'BOTH' : s.enum[0];
  switch (typeOf(s)) {
    case 'boolean':
      return false;
    case 'number':
      return name.startsWith('dec_') ? 12.5 : name === 'int_box_size' ? 5 : 1;
    case 'array': {
      const items = resolve(s.items);
      if (items.type === 'object') return [plausibleObject(items, resolve, name, block)];
      if (name === 'coordinates') return [-47.9, -15.8];
      return name === 'lst_invite_movimentation_types' ? ['BOTH'] : [];
    }
    case 'object':
      return plausibleObject(s, resolve, name, block);
  }
  const refs: Record<string, string | undefined> = {
    county_id: real.county, establishment_id: real.establishment, control_unit_id: real.unit, from_control_unit_id: real.unit,
    to_control_unit_id: real.unit2, user_id: real.user, responsible_user_id: real.user, operator_user_id: caller.user.id,
    owner_user_id: caller.user.id, owner_id: caller.user.id, organization_id: real.organization, org_id: real.organization,
    tag_id: real.tag, new_tag_id: real.freeTag, gta_id: real.gta,
  };
  if (Object.hasOwn(refs, name)) return refs[name];
  if (name === 'id' || name.endsWith('_id')) return randomUUID();
  if (name === 'type' && parent.startsWith('geo')) return 'Point';
  if (name.startsWith('ts_')) return /until|expires/.test(name) ? future() : new Date(Date.now() - 86_400_000).toISOString();
  const strings: Record<string, () => string> = {
    str_email: () => email('fuzz'), str_document: () => (/organization/i.test(parent) ? cnpj() : cpf()),
    str_password: () => PASSWORD, str_current_password: () => PASSWORD, str_new_password: () => 'another correct horse battery',
    str_license_plate: plate, str_trailer_plate: plate, str_renavam_number: renavam, str_ibge_code: () => county.str_ibge_code,
    str_federative_unit: () => county.str_federative_unit, ds_uf: () => county.str_federative_unit, str_car: () => carOf(county),
    str_begin: () => block.begin, str_finish: () => codeAt(block.begin, 4), str_tag_code: () => real.tagCode!, str_new_tag_code: () => real.freeTagCode!,
    str_zip_code: () => '70000000', str_phone: () => '+5561999999999', str_year_of_manufacture: () => '2019', str_last_registration: () => '2024',
    str_code: () => (/tags/i.test(parent) ? real.freeTagCode! : unitCode()), str_from_control_unit_code: () => 'CU-FROM', str_to_control_unit_code: () => 'CU-TO',
    nr_gta: () => String(randomInt(1e9)), ds_serie_gta: () => 'A', id_gta: () => String(randomInt(1e9)), str_status: () => 'ACCEPTED', str_reason: () => 'DEATH',
  };
  return Object.hasOwn(strings, name) ? strings[name]!() : `Fuzz ${randomUUID().slice(0, 6)}`;
}

function plausibleObject(s: Schema, resolve: (s: Schema | undefined) => Schema, parent: string, block = { begin: freshCodeBlock() }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(s.properties ?? {})) out[name] = plausible(name, resolve(raw), resolve, parent, block);
  return out;
}

/** Every probe of one operation: the fixed classes, then fc.sample's with a fixed seed. */
function probesOf(op: Operation, index: number, resolve: (s: Schema | undefined) => Schema): Probe[] {
  const probes: Probe[] = [];
  const isPost = op.method === 'POST';
  /** The k-th of a list, turning with the operation: each operation gets some, all operations all. */
  const turn = <T>(list: readonly T[], k = 0): T => list[(index + k) % list.length]!;
  const params = Object.fromEntries(op.pathParams.map((p) => [p, realIdFor(op.template, p)]));
  const pathWith = (over: Record<string, string> = {}, query = '') =>
    op.template.replace(/\{(\w+)\}/g, (_, p: string) => (Object.hasOwn(over, p) ? over[p]! : encodeURIComponent(params[p]!))) + (query ? `?${query}` : '');
  /** A plausible body (fresh unique values each time), or none for searches and operations without one. */
  const base = (): Record<string, unknown> => (op.body && !op.body.search ? plausibleObject(op.body.schema, resolve, op.template) : {});
  const withBase = (change: (b: Record<string, unknown>) => unknown) => () => change(base());
  const add = (p: Omit<Probe, 'op' | 'path' | 'auth'> & { path?: string; auth?: Auth }) => probes.push({ op, path: pathWith(), auth: 'caller', ...p });
  const key = () => randomUUID();
  const garbage = turn([`Bearer ${'x'.repeat(300)}`, 'Basic Zm9vOmJhcg==', 'Bearer', `Bearer ${caller.access}x`]);

  // Bodies: every operation that has one, and (as input to ignore) every other POST, PUT and PATCH.
  if (op.body || ['POST', 'PUT', 'PATCH'].includes(op.method)) {
    const fields = op.body?.fields ?? [];
    const top = fields.filter((f) => f.path.length === 1);
    const strings = top.filter((f) => typeOf(f.schema) === 'string');
    const numbers = fields.filter((f) => typeOf(f.schema) === 'number');
    // A search takes its records' dates as ranges only (`ts_x_from`, `ts_x_to`; `ts_x` itself is an unknown filter).
    const dates = fields.filter((f) => (f.schema.format === 'date-time' || String(f.path[f.path.length - 1]).startsWith('ts_')) && (!op.body?.search || /_(from|to)$/.test(String(f.path[0]))));
    const nested = fields.filter((f) => f.path.length > 1);
    let n = 0;
    /** Every other POST carries an Idempotency-Key. */
    const keyed = () => (isPost && n++ % 2 === 0 ? { idempotencyKey: key() } : {});
    add({ label: 'no body', ...keyed() });
    // Not an object; on POSTs with a bad Idempotency-Key besides.
    const text = turn(['[]', '"x"', '1', 'null', 'true', '[{}]', '', '{']);
    const badKey = turn([['an Idempotency-Key of 300 characters', 'k'.repeat(300)], ['an Idempotency-Key with a non-ASCII character', 'clé'], ['an empty Idempotency-Key', '']] as const);
    add({ label: `body ${text || '(empty)'}${isPost ? `, ${badKey[0]}` : ''}`, raw: () => text, ...(isPost ? { idempotencyKey: badKey[1] } : {}) });
    if (index % 2) add({ label: '{"a": × 50,000', raw: deepObjects, ...keyed() });
    else add({ label: '[ × 50,000', raw: deepArrays, ...keyed() });
    // Keyed on one POST in four only: hashing 40,000 keys for the Idempotency-Key is the costliest thing here.
    add({ label: '40,000 keys', raw: () => withKeys(serialize(base()), FORTY_THOUSAND_KEYS), ...(isPost && index % 4 === 0 ? { idempotencyKey: key() } : {}) });
    const parents = [[], ...new Set(nested.map((f) => JSON.stringify(f.path.slice(0, -1))))].map((p) => (typeof p === 'string' ? (JSON.parse(p) as (string | number)[]) : p));
    add({
      label: '"__proto__" keys (raw JSON)',
      raw: () => serialize(parents.reduce<unknown>((b, p) => setAt(b, [...p, 'x__proto__x'], { polluted: true }), base())).replaceAll('"x__proto__x"', '"__proto__"'),
      ...keyed(),
    });
    const protoValue = turn<() => unknown>([() => 'x', () => ({ prototype: { polluted: true } }), () => [], () => null]);
    add({
      label: 'keys constructor, toString, hasOwnProperty, valueOf',
      body: withBase((b) => parents.reduce<unknown>((acc, p) => ['constructor', 'toString', 'hasOwnProperty', 'valueOf'].reduce((x, k) => setAt(x, [...p, k], protoValue()), acc), b)),
      ...keyed(),
    });
    if (top.length) {
      const every = (label: string, value: (f: Field) => unknown, which: Field[]) => {
        if (which.length) add({ label: `every ${label}`, body: withBase((b) => which.reduce<unknown>((acc, f) => setAt(acc, f.path, value(f)), b)), ...keyed() });
      };
      every('field null', () => null, top);
      every('field of a wrong type', (f) => wrongTypeFor(f.schema).make(), top);
      every('string field NUL or of 300 characters', (f) => (strings.indexOf(f) % 2 ? LONG_300 : NUL).make(), strings);
      // The longest the boundary lets through: a narrower column or key behind it would be a 500.
      every('string field of 255 characters', () => '9'.repeat(255), strings);
      // In every free-text field at once (not ids, dates, enums, tag codes or a GeoJSON type, which refuse it first), nested ones too.
      const texts = fields.filter((f) => typeOf(f.schema) === 'string' && !f.schema.enum && !f.schema.format && !/(^|_)id$|^ts_|^type$|tag_code$|^str_(begin|finish)$/.test(String(f.path[f.path.length - 1])));
      every('free-text field with a lone surrogate', () => 'a\ud800b', texts);
      const huge = turn([1e308, -1e308, 9007199254740992]);
      every(`number field past its column (int_ 2**31, others ${huge})`, (f) => (String(f.path[f.path.length - 1]).startsWith('int_') ? 2 ** 31 : huge), numbers);
      const nanish = turn(['NaN', 'Infinity', '1e308']);
      every(`number field "${nanish}"`, () => nanish, numbers);
      // Year 0 is RFC 3339 (the DateTimeISO scalar takes it) but not PostgreSQL; the others JavaScript reads and PostgreSQL does not.
      every('date field 0000-01-01T00:00:00Z', () => '0000-01-01T00:00:00Z', dates);
      const date = turn(['+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '+010000-01-01T00:00:00Z']);
      every(`date field ${date}`, () => date, dates);
      // 900,000 characters in one string field, under the 1 MiB body limit.
      const long = strings.length ? turn(strings) : turn(top);
      add({ label: `${long.path.join('.')} of 900,000 characters`, body: withBase((b) => setAt(b, long.path, LONG_900K.make())), ...keyed() });
    }
    const nulBody = withBase((b) => (top.length ? setAt(b, turn(top).path, NUL.make()) : { ...b, str_query: NUL.make() }));
    if (isPost && index % 2 === 0) {
      // The same bad body twice with one key (every other POST): the first answer is stored, the second replays it.
      add({ label: 'a NUL body sent twice with one Idempotency-Key', body: nulBody, idempotencyKey: key(), replay: true });
    }
    // Without a session.
    add({ label: 'NUL body without a session', body: nulBody, auth: 'none', ...(isPost ? { idempotencyKey: key() } : {}) });
    // Operations open to anyone, from a client address of 300 characters (X-Forwarded-For: the service trusts its proxy here).
    if (!op.auth) add({ label: 'X-Forwarded-For of 300 characters', body: base, auth: 'none', headers: { 'x-forwarded-for': `2001:db8::${'0'.repeat(290)}` } });

    if (fields.length && EXHAUSTIVE) {
      for (const f of fields) {
        for (const b of badValuesFor(f.schema, String(f.path[f.path.length - 1]))) add({ label: `${f.path.join('.')} ${b.label}`, body: withBase((x) => setAt(x, f.path, b.make())) });
      }
    } else if (fields.length) {
      // One or two real fields at a time, each given a bad value of its type (fast-check, fixed seed).
      const mutation = fc.constantFrom(...fields).chain((f) => fc.constantFrom(...badValuesFor(f.schema, String(f.path[f.path.length - 1]))).map((b) => ({ f, b })));
      const arb = fc.record({
        mutations: fc.array(mutation, { minLength: 1, maxLength: 2 }),
        auth: fc.constantFrom<Auth>('caller', 'caller', 'caller', 'caller', 'none', 'garbage'),
        keyed: fc.boolean(),
      });
      for (const s of fc.sample(arb, { seed: SEED + index, numRuns: RANDOM_BODY_PROBES })) {
        add({
          label: s.mutations.map((m) => `${m.f.path.join('.')} ${m.b.label}`).join(' & '),
          body: withBase((b) => s.mutations.reduce<unknown>((acc, m) => setAt(acc, m.f.path, m.b.make()), b)),
          auth: s.auth,
          garbage,
          ...(isPost && s.keyed ? { idempotencyKey: key() } : {}),
        });
      }
    }
  } else {
    add({ label: 'without a session', auth: 'none' });
    // A query parameter nobody reads, with a NUL.
    add({ label: 'an unknown query parameter with a NUL', path: pathWith({}, 'x=a%00b') });
  }
  const body = op.body && !op.body.search ? { body: base } : {};
  add({ label: `Authorization: ${truncate(garbage, 20)}`, auth: 'garbage', garbage, ...body });
  // 900,000 characters in the URL: a path parameter where there is one, else a query parameter.
  const huge = () => 'z'.repeat(900_000);
  add({
    label: `${op.pathParams.length ? `path ${turn(op.pathParams)}` : 'query str_name'} of 900,000 characters`,
    url: () => (op.pathParams.length ? pathWith({ [turn(op.pathParams)]: huge() }) : pathWith({}, `str_name=${huge()}`)),
    ...body,
  });

  // Path parameters.
  if (op.pathParams.length) {
    const fixed: [string, (p: string) => string][] = [
      ['non-uuid with a NUL', () => 'a%00b'],
      ['300 characters', () => 'x'.repeat(300)],
      ['upper-case uuid of nothing', () => randomUUID().toUpperCase()],
      ['uuid in spaces', (p) => `%20${params[p]}%20`],
    ];
    const more: [string, (p: string) => string][] = [
      ['non-uuid', () => 'not-a-uuid'], ['upper-case uuid of a record', (p) => params[p]!.toUpperCase()], ['uuid and a tab', (p) => `${params[p]}%09`],
      ['12,000 characters', () => 'x'.repeat(12_000)], ['uuid + NUL', (p) => `${params[p]}%00`], ['only NUL', () => '%00'],
      ['bad percent-encoding', () => '%E0%A4%A'], ['a lone %', () => '%'], ['encoded slash', () => '..%2F..%2Fetc'], ['1e308', () => '1e308'], ['-1', () => '-1'],
      ['two uuids', (p) => `${params[p]},${randomUUID()}`], ['uuid without dashes', () => randomUUID().replace(/-/g, '')], ['nil uuid', () => '00000000-0000-0000-0000-000000000000'],
      ['uuid in braces', () => `%7B${randomUUID()}%7D`], ['emoji', () => encodeURIComponent('🐂')],
    ];
    for (const p of op.pathParams) {
      for (const [label, make] of EXHAUSTIVE ? [...fixed, ...more] : fixed) {
        add({ label: `path ${p}: ${label}`, path: pathWith({ [p]: make(p) }), ...body, ...(isPost ? { idempotencyKey: key() } : {}) });
      }
    }
    for (const [p, [label, make]] of fc.sample(fc.tuple(fc.constantFrom(...op.pathParams), fc.constantFrom(...more)), { seed: SEED + 1000 + index, numRuns: RANDOM_PATH_PROBES })) {
      add({ label: `path ${p}: ${label}`, path: pathWith({ [p]: make(p) }), ...body, auth: turn<Auth>(['caller', 'none']) });
    }
  }

  // Query parameters: the page, and the filters of index GETs.
  if (op.paged) {
    const pages = [
      ['page NaN, 1e308 results', 'int_current_page=NaN&int_max_results=1e308'],
      ['page 2**53, 2**31 results', 'int_current_page=9007199254740992&int_max_results=2147483648'],
      ['page NUL, -1 results', 'int_current_page=%00&int_max_results=-1'],
      ['page twice, 0 results', 'int_current_page=1&int_current_page=2&int_max_results=0'],
    ] as const;
    for (const [label, query] of EXHAUSTIVE ? pages : [turn(pages)]) add({ label: `query ${label}`, path: pathWith({}, query), ...body });
    if (op.method === 'GET') {
      const names = op.recordFields.length ? op.recordFields : ['str_name'];
      const field = turn(names);
      const fixed: [string, string][] = [
        [`${field} NUL`, `${field}=a%00b`],
        [`${field} of 300 characters`, `${field}=${'x'.repeat(300)}`],
      ];
      const more: [string, string][] = [
        [`${field} 1e308`, `${field}=1e308`],
        [`${field} twice`, `${field}=a&${field}=b`],
        ['prototype keys', 'constructor=x&__proto__=x&toString=x&hasOwnProperty=x'],
        ['a NUL key', 'a%00b=1'],
        ['str_query with a trailing backslash', 'str_query=abc%5C'],
      ];
      for (const [label, query] of EXHAUSTIVE ? [...fixed, ...more] : [...fixed, turn(more)]) add({ label: `query ${label}`, path: pathWith({}, query) });
      const values: [string, string][] = [
        ['NUL', '%00'], ['300 characters', 'x'.repeat(300)], ['12,000 characters', 'x'.repeat(12_000)], ['NaN', 'NaN'], ['1e308', '1e308'], ['-1e308', '-1e308'],
        ['2**53', '9007199254740992'], ['2**31', '2147483648'], ['upper-case uuid', randomUUID().toUpperCase()], ['uuid in spaces', `%20${randomUUID()}%20`],
        ['empty', ''], ['bad percent-encoding', '%E0%A4%A'], ['latest date', '%2B275760-09-13T00%3A00%3A00.000Z'], ['earliest date', '-271821-04-20T00%3A00%3A00.000Z'],
        ['year 0', '0000-01-01'], ['true', 'true'], ['LIKE wildcards', '%25_%25'], ['backslash', '%5C'],
      ];
      const filterNames = [...names, 'str_query', 'str_order_by', 'str_order', ...names.filter((x) => x.startsWith('ts_')).flatMap((x) => [`${x}_from`, `${x}_to`])];
      const pairs = EXHAUSTIVE
        ? filterNames.flatMap((name) => values.map((v) => [name, v] as const))
        : fc.sample(fc.tuple(fc.constantFrom(...filterNames), fc.constantFrom(...values)), { seed: SEED + 2000 + index, numRuns: RANDOM_QUERY_PROBES });
      for (const [name, [label, value]] of pairs) add({ label: `query ${name} ${label}`, path: pathWith({}, `${name}=${value}`) });
    }
  }
  return probes;
}

// ---------------------------------------------------------------------------------------------

/** A session of its own for the operations that end the caller's: written straight to the database (set-up). */
async function freshSession(): Promise<string> {
  const sid = randomUUID();
  await app.service.orm.em.fork().execute('insert into auth_session (id, user_id) values (?, ?)', [sid, sessionUser.user.id]);
  return tokens.signAccess({ sub: sessionUser.user.id, org: sessionUser.org.id, sid }).token;
}
const endsSessions = (op: Operation) => ['/api/logout', '/api/change-org', '/api/reset-profile', '/api/self-update', '/api/whoami'].includes(op.template);

function problemsOf(res: Reply): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`status ${res.status}`);
  if (res.status >= 400) {
    const b = res.body as Record<string, unknown> | undefined;
    const shaped = !!b && typeof b === 'object' && !Array.isArray(b) && typeof b.error === 'string' && 'detail' in b && Object.keys(b).length === 2;
    if (!shaped) problems.push('the error is not {"error": <string>, "detail": ...}');
    if (!/^application\/json/.test(res.headers.get('content-type') ?? '')) problems.push(`content-type ${res.headers.get('content-type')}`);
  }
  return problems;
}

async function send(p: Probe): Promise<string[]> {
  const headers: Record<string, string> = { ...p.headers };
  let token: string | undefined;
  if (p.auth === 'caller') token = p.op.auth && endsSessions(p.op) ? await freshSession() : caller.access;
  if (p.auth === 'garbage') headers.authorization = p.garbage!;
  const path = p.url ? p.url() : p.path;
  const raw = p.raw ? p.raw() : p.body ? serialize(p.body()) : undefined;
  if (raw !== undefined) headers['content-type'] = 'application/json';
  if (p.idempotencyKey !== undefined) headers['idempotency-key'] = p.idempotencyKey;
  const failures: string[] = [];
  for (let attempt = 0; attempt < (p.replay ? 2 : 1); attempt++) {
    const request = `${p.op.method} ${truncate(path, 200)}${p.idempotencyKey !== undefined ? ` (Idempotency-Key ${truncate(p.idempotencyKey, 40)})` : ''} auth=${p.auth}${raw !== undefined ? ` body: ${show(raw)}` : ''}`;
    let res: Reply;
    try {
      res = await app.call(p.op.method, path, { raw, token, headers });
    } catch (err) {
      failures.push(`${p.op.method} ${p.op.template} [${p.label}]\n  request: ${request}\n  no answer: ${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`);
      break;
    }
    const problems = problemsOf(res);
    if (problems.length) {
      const answer = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      failures.push(`${p.op.method} ${p.op.template} [${p.label}${attempt ? ', replayed' : ''}]: ${problems.join('; ')}\n  request: ${request}\n  answer: ${res.status} ${show(answer ?? '')}`);
    }
  }
  return failures;
}

async function pool<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]!);
    }
  }));
  return results;
}

test('every OpenAPI operation answers generated bad requests with a 4xx in the contract shape, never a 5xx', async () => {
  const { operations, resolve } = reader(doc);
  expect(operations.length).toBeGreaterThan(100);
  const probes = operations.flatMap((op, i) => probesOf(op, i, resolve));
  const perOperation = new Map<string, number>();
  for (const p of probes) perOperation.set(p.op.id, (perOperation.get(p.op.id) ?? 0) + 1);
  expect(operations.filter((op) => (perOperation.get(op.id) ?? 0) < 4).map((op) => `${op.method} ${op.template}`)).toEqual([]);
  // Fixed order, interleaved across operations (a stable shuffle), so the few in flight are of different routes.
  const order = fc.sample(fc.shuffledSubarray(probes.map((_, i) => i), { minLength: probes.length, maxLength: probes.length }), { seed: SEED, numRuns: 1 })[0]!;
  const failures = (await pool(order.map((i) => probes[i]!), CONCURRENCY, send)).flat();
  if (failures.length) {
    throw new Error(`${failures.length} of ${probes.length} requests over ${operations.length} operations answered wrongly:\n\n${failures.slice(0, 40).join('\n\n')}${failures.length > 40 ? `\n\n… and ${failures.length - 40} more` : ''}`);
  }
}, EXHAUSTIVE ? 3_600_000 : 420_000);
