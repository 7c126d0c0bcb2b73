/**
 * The service held against docs/interface.md as a whole: its endpoint tables are read at
 * test time, and every documented operation must have a case below (and every case a documented
 * operation). Each case makes what it needs, calls the operation over real HTTP with a real token,
 * and the answer is checked for the documented success status, the envelope of CONTRACT.md and the
 * documented record (required fields, types, formats, nullability). Each operation also gets one
 * documented failure. Record shapes are written down from interface.md's "Resources and their
 * fields", and from CONTRACT.md's "Records that interface.md leaves open" where interface.md does
 * not show them.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useApp, type Reply } from './helpers/app.js';
import { cpf, lastMail, login, makeOrganization, makeUser, member, official, tokenIn, type Person, type Session } from './helpers/factories.js';
import { unitCode, useCounty } from './helpers/places.js';
import { vehicleBody } from './helpers/travels.js';

// ---------------------------------------------------------------------------------------------
// interface.md's endpoint tables
// ---------------------------------------------------------------------------------------------

/** The published interface, kept in the repository (docs/interface.md) so a plain clone runs this file. */
const SPEC_PATH = fileURLToPath(new URL('../docs/interface.md', import.meta.url));

/** The sections of "Endpoints" this file holds the service to (heading text without its parenthesis). */
const SECTIONS = ['Auth', 'Integration', 'Establishments, public API', 'Establishments, private API', 'Invites, private API', 'Vehicles, private API'] as const;
type Section = (typeof SECTIONS)[number];
/** interface.md: "Every operation in the auth and integration groups lists response codes 400, 401, 403, 404, 422, 500". */
const SECTIONS_WITH_ERROR_CODES: Section[] = ['Auth', 'Integration'];
const LISTED_ERROR_CODES = [400, 401, 403, 404, 422, 500];

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Envelope = 'record' | 'page' | 'empty';

interface Row {
  section: Section;
  method: Method;
  /** As documented, `{id}` for path parameters. */
  path: string;
  bearer: boolean;
  status: number;
  /** The success column as written. */
  success: string;
  /** What the success column says of the body: a page, one record, no content, or nothing (not shown). */
  envelope: Envelope | null;
  /** The record the success column names, if any. */
  record: string | null;
}

const keyOf = (r: { method: string; path: string }): string => `${r.method} ${r.path}`;
const cellsOf = (line: string): string[] => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());

/** "200", "204, no content", "201, Vehicle (required)", "200, object with required data: User", "list of X plus PaginationMeta", "Establishment (required)". */
function readSuccess(method: Method, path: string, text: string): Pick<Row, 'status' | 'envelope' | 'record'> {
  const code = /^(\d{3})\b\s*,?\s*(.*)$/.exec(text);
  const rest = (code ? code[2]! : text).trim();
  // No code given: 200, except a create (a POST that is not a search), which is 201 "as every
  // create in the service, the establishment creates of interface.md included" (CONTRACT.md).
  const status = code ? Number(code[1]) : method === 'POST' && !path.endsWith('/search') ? 201 : 200;
  if (/no content/i.test(rest) || status === 204) return { status, envelope: 'empty', record: null };
  const page = /^list of (.+?) plus PaginationMeta\b/i.exec(rest);
  if (page) return { status, envelope: 'page', record: page[1]!.trim() };
  const data = /\bdata:\s*(.+?)\s*$/i.exec(rest);
  if (data) return { status, envelope: 'record', record: data[1]!.trim() };
  const named = /^([A-Z][A-Za-z ]*?)(?:\s*\(required\))?$/.exec(rest);
  if (named) return { status, envelope: 'record', record: named[1]!.trim() };
  if (rest === '') return { status, envelope: null, record: null };
  throw new Error(`interface.md: cannot read the success column "${text}" of ${method} ${path}`);
}

function parseEndpoints(markdown: string): Row[] {
  const rows: Row[] = [];
  let section: Section | null = null;
  let headingBearer = false;
  let header: string[] | null = null;
  for (const line of markdown.split(/\r?\n/)) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const title = heading[2]!.trim();
      const name = title.replace(/\s*\(.*\)\s*$/, '');
      section = heading[1] === '###' && (SECTIONS as readonly string[]).includes(name) ? (name as Section) : null;
      headingBearer = /\bBearer\b/.test(title);
      header = null;
      continue;
    }
    if (!section) continue;
    if (!line.trim().startsWith('|')) {
      if (header && line.trim() !== '') header = null; // the table ended
      continue;
    }
    const cells = cellsOf(line);
    if (!header) {
      header = cells;
      continue;
    }
    if (cells.every((c) => /^:?-{3,}:?$/.test(c))) continue;
    const col = (name: RegExp): number => header!.findIndex((h) => name.test(h));
    const [m, p, s, b] = [col(/^Method$/i), col(/^Path$/i), col(/^Success/i), col(/^Bearer$/i)];
    if (m < 0 || p < 0 || s < 0) throw new Error(`interface.md, section "${section}": a table without Method, Path and Success columns (${header.join(' | ')})`);
    const method = cells[m]!.toUpperCase() as Method;
    const path = cells[p]!.replace(/`/g, '');
    let bearer: boolean;
    if (b >= 0) bearer = /^yes$/i.test(cells[b]!);
    else if (headingBearer) bearer = true;
    else throw new Error(`interface.md, section "${section}": cannot tell whether ${method} ${path} needs a bearer token`);
    rows.push({ section, method, path, bearer, success: cells[s]!, ...readSuccess(method, path, cells[s]!) });
  }
  return rows;
}

const ROWS = parseEndpoints(readFileSync(SPEC_PATH, 'utf8'));

// ---------------------------------------------------------------------------------------------
// Record shapes: field → kind + required + nullable
// ---------------------------------------------------------------------------------------------

type Scalar = 'uuid' | 'date-time' | 'string' | 'boolean' | 'integer' | 'number' | 'point' | 'object';
interface ListKind {
  list: Kind;
}
type Kind = Scalar | Shape | ListKind;
interface FieldSpec {
  kind: Kind;
  required: boolean;
  nullable: boolean;
}
interface Shape {
  name: string;
  fields: Record<string, FieldSpec>;
  /** Keys that must not be there (e.g. "Control Unit minus establishment"). */
  absent?: string[];
  /** Key names that must never appear anywhere in the record (secrets). */
  secret?: RegExp;
}

const req = (kind: Kind): FieldSpec => ({ kind, required: true, nullable: false });
/** Optional: may be absent; when present, of its kind and not null. */
const opt = (kind: Kind): FieldSpec => ({ kind, required: false, nullable: false });
/** Optional and nullable. */
const nul = (kind: Kind): FieldSpec => ({ kind, required: false, nullable: true });
const listOf = (kind: Kind): ListKind => ({ list: kind });
/** Several fields of one spec, written as interface.md groups them ("str_a, str_b (string, nullable)"). */
const many = (names: string, spec: FieldSpec): Record<string, FieldSpec> => Object.fromEntries(names.split(/[,\s]+/).filter(Boolean).map((n) => [n, spec]));
const stamps = { id: req('uuid'), ts_created_at: req('date-time'), ts_updated_at: req('date-time') };
const optionalized = (fields: Record<string, FieldSpec>): Record<string, FieldSpec> => Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, { ...f, required: false }]));

/** interface.md: "County. All required: id, str_ibge_code, str_name, str_federative_unit (strings), ts_created_at, ts_updated_at." */
const COUNTY: Shape = { name: 'County', fields: { ...stamps, ...many('str_ibge_code str_name str_federative_unit', req('string')) } };

/** CONTRACT.md: `{id, str_name, str_role}` of User's `organizations`. */
const USER_ORGANIZATION: Shape = { name: 'User Organization', fields: { id: req('uuid'), str_name: req('string'), str_role: req('string') } };

/** CONTRACT.md (interface.md does not show User): required first (the rest null for a stranger, CONTRACT.md's Accounts), then the nullable ones; never a password hash or token. */
const USER: Shape = {
  name: 'User',
  fields: {
    ...stamps,
    // CONTRACT.md, Accounts: outside the person's organizations only id, str_name and str_type.
    ...many('str_name str_type', req('string')),
    ...many('str_email str_document', nul('string')),
    ...many('bl_admin bl_verified', nul('boolean')),
    str_phone: nul('string'),
    ...many('county_id organization_id', nul('uuid')),
    ts_terms_accepted_at: nul('date-time'),
    organizations: opt(listOf(USER_ORGANIZATION)),
  },
  secret: /password|hash|token|secret/i,
};

/** CONTRACT.md's login/refresh/change-org/reset-profile answer (interface.md: response bodies "not shown"). */
const TOKEN_PAIR: Shape = {
  name: 'Token Pair',
  fields: { ...many('str_access_token str_refresh_token str_token_type', req('string')), int_expires_in: req('integer'), user: req(USER) },
};

/** interface.md "Control Unit" without its `establishment` (so the two can nest). */
const CONTROL_UNIT_FIELDS: Record<string, FieldSpec> = {
  ...stamps,
  ...many('str_code str_name str_type', req('string')),
  responsible_user: opt(USER),
  ...many('str_predominant_phase str_predominant_system', nul('string')),
};

/** CONTRACT.md: "Control Unit minus `establishment`, plus `establishment_id`". */
const CONTROL_UNIT_WITHOUT_ESTABLISHMENT: Shape = {
  name: 'Control Unit Data Without Establishment',
  fields: { ...CONTROL_UNIT_FIELDS, establishment_id: req('uuid') },
  absent: ['establishment'],
};

/**
 * interface.md "Establishment Partial Unrestricted Data". The types it calls `object` have contents
 * "not shown"; CONTRACT.md's vocabulary makes `dec_` a JSON number and `lst_` an array, so those are
 * checked as such.
 */
const UNRESTRICTED_FIELDS: Record<string, FieldSpec> = {
  ...stamps,
  bl_move_with_tag_reading: req('boolean'),
  ...many('str_name str_type str_status', req('string')),
  control_units: req('object'),
  ...many('county_id responsible_user_id', nul('uuid')),
  ...many('dec_area dec_exploration_area', nul('number')),
  geo_location: nul('point'),
  lst_invite_movimentation_types: nul(listOf('string')),
  ...many(
    'str_address str_car str_code str_company_code str_county_federative_unit str_county_ibge_uf_code str_county_name str_document str_neighborhood str_responsible_document str_responsible_user_name str_socioenvironmental_status',
    nul('string'),
  ),
};
const ESTABLISHMENT_PARTIAL_UNRESTRICTED: Shape = { name: 'Establishment Partial Unrestricted Data', fields: UNRESTRICTED_FIELDS };

/**
 * CONTRACT.md "Establishment": every field of Establishment Partial Unrestricted Data, plus
 * organization_id, str_email, str_zip_code, county (County), responsible_user (User or null),
 * control_units (list of Control Unit Data Without Establishment).
 */
const ESTABLISHMENT: Shape = {
  name: 'Establishment',
  fields: {
    ...UNRESTRICTED_FIELDS,
    organization_id: req('uuid'),
    ...many('str_email str_zip_code', nul('string')),
    county: opt(COUNTY),
    responsible_user: nul(USER),
    control_units: req(listOf(CONTROL_UNIT_WITHOUT_ESTABLISHMENT)),
  },
};

/**
 * interface.md "Establishment Partial Data": the fields it shows are present with its types; "the
 * remaining fields of this record are not shown", so the rest are Establishment's fields, checked
 * when present (every record carries id and its timestamps: CONTRACT.md).
 */
const ESTABLISHMENT_PARTIAL: Shape = {
  name: 'Establishment Partial Data',
  fields: {
    ...optionalized(ESTABLISHMENT.fields),
    ...stamps,
    bl_move_with_tag_reading: req('boolean'),
    control_units: { kind: listOf(CONTROL_UNIT_WITHOUT_ESTABLISHMENT), required: true, nullable: true },
    county_id: { kind: 'uuid', required: true, nullable: true },
    dec_area: { kind: 'number', required: true, nullable: true },
    dec_exploration_area: { kind: 'number', required: true, nullable: true },
    geo_location: { kind: 'point', required: true, nullable: true },
  },
};

/** interface.md "Control Unit". */
const CONTROL_UNIT: Shape = { name: 'Control Unit', fields: { ...CONTROL_UNIT_FIELDS, establishment: opt(ESTABLISHMENT) } };

/** interface.md "Gta Responsible User": all optional. */
const GTA_RESPONSIBLE_USER: Shape = { name: 'Gta Responsible User', fields: { id: opt('uuid'), ...many('str_document str_name', opt('string')) } };

/** CONTRACT.md "Gta": Gta Partial Data plus the fields it names. */
const GTA: Shape = {
  name: 'Gta',
  fields: {
    ...stamps,
    str_code: req('string'),
    int_animal_quantity: req('integer'),
    ...many('str_federative_unit str_series', nul('string')),
    ...many('str_status str_purpose str_species', req('string')),
    str_external_id: nul('string'),
    ...many('from_control_unit_id to_control_unit_id from_establishment_id to_establishment_id', req('uuid')),
    ...many('ts_issued_at ts_valid_until', req('date-time')),
    responsible_user: opt(GTA_RESPONSIBLE_USER),
  },
};

/** interface.md "Vehicle". */
const VEHICLE: Shape = {
  name: 'Vehicle',
  fields: {
    ...stamps,
    owner: opt(USER),
    ...many('str_brand str_color str_fuel str_last_registration str_license_plate str_model str_renavam_number str_trailer_plate str_type str_year_of_manufacture', nul('string')),
  },
};

/** interface.md "Invite". */
const INVITE: Shape = {
  name: 'Invite',
  fields: {
    ...stamps,
    ...many('bl_accepted bl_restricted', req('boolean')),
    control_unit: opt(CONTROL_UNIT_WITHOUT_ESTABLISHMENT),
    gta: opt(GTA),
    user: opt(USER),
    ...many('str_movimentation_type str_type', nul('string')),
    ts_expires_at: nul('date-time'),
  },
};

/** interface.md "Animals Ingress" (CONTRACT.md: the answer of entrada_animais/{id}). */
const ANIMALS_INGRESS: Shape = {
  name: 'Animals Ingress',
  fields: {
    ...stamps,
    str_status: req('string'),
    bl_move_with_tag_reading: req('boolean'),
    ...many('gtas tags', req('object')),
    operator_user: opt(USER),
    to_control_unit: opt(CONTROL_UNIT),
    ...many('str_description str_label str_socioenvironmental_status', nul('string')),
    ...many('ts_first_read ts_started_at ts_unsafe_client_created_at', nul('date-time')),
  },
};

/** interface.md "Animals Egress" (CONTRACT.md: the answer of saida_animais/{id}). */
const ANIMALS_EGRESS: Shape = {
  name: 'Animals Egress',
  fields: {
    ...stamps,
    tags: req('object'),
    str_status: req('string'),
    bl_move_with_tag_reading: req('boolean'),
    int_tag_count: req('integer'),
    ...many('from_control_unit to_control_unit', opt(CONTROL_UNIT)),
    to_control_unit_id: nul('uuid'),
    gta: opt(GTA),
    operator_user: opt(USER),
    ...many('str_description str_label str_license_plate str_socioenvironmental_status', nul('string')),
    ...many('ts_last_read ts_unsafe_client_created_at', nul('date-time')),
  },
};

const PAGINATION_META = ['int_current_page', 'int_max_results', 'int_total_results', 'int_total_pages'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ISO 8601 in UTC with Z (CONTRACT.md: `ts_` ISO 8601 date-time in UTC with `Z`). */
const DATE_TIME_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describeValue = (v: unknown): string => (v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 80) ?? String(v));
const kindName = (k: Kind): string => (typeof k === 'string' ? k : 'list' in k ? `list of ${kindName(k.list)}` : k.name);

/** What is wrong with a value of a kind, as "path: problem" lines (empty when it conforms). */
function conform(value: unknown, kind: Kind, path: string): string[] {
  if (typeof kind !== 'string') {
    if ('list' in kind) {
      if (!Array.isArray(value)) return [`${path}: ${describeValue(value)} is not a ${kindName(kind)}`];
      return value.flatMap((item, i) => conform(item, kind.list, `${path}[${i}]`));
    }
    return conformShape(value, kind, path);
  }
  const bad = (what: string) => [`${path}: ${describeValue(value)} is not ${what}`];
  switch (kind) {
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? [] : bad('a uuid');
    case 'date-time':
      return typeof value === 'string' && DATE_TIME_Z.test(value) && !Number.isNaN(Date.parse(value)) ? [] : bad('a date-time (ISO 8601, Z)');
    case 'string':
      return typeof value === 'string' ? [] : bad('a string');
    case 'boolean':
      return typeof value === 'boolean' ? [] : bad('a boolean');
    case 'integer':
      return Number.isInteger(value) ? [] : bad('an integer');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : bad('a number');
    case 'object':
      return typeof value === 'object' && value !== null ? [] : bad('an object');
    case 'point': {
      const ok =
        isObject(value) &&
        Object.keys(value).sort().join() === 'coordinates,type' &&
        value.type === 'Point' &&
        Array.isArray(value.coordinates) &&
        value.coordinates.length === 2 &&
        value.coordinates.every((n) => typeof n === 'number' && Number.isFinite(n));
      return ok ? [] : bad('a GeoJSON Point (type "Point", exactly two numbers)');
    }
  }
}

function conformShape(value: unknown, shape: Shape, path: string): string[] {
  if (!isObject(value)) return [`${path}: ${describeValue(value)} is not a ${shape.name} (an object)`];
  const problems: string[] = [];
  for (const [field, spec] of Object.entries(shape.fields)) {
    const at = `${path}.${field}`;
    if (!(field in value) || value[field] === undefined) {
      if (spec.required) problems.push(`${at}: missing, required in ${shape.name}`);
      continue;
    }
    if (value[field] === null) {
      if (!spec.nullable) problems.push(`${at}: null, but ${shape.name}.${field} is not nullable`);
      continue;
    }
    problems.push(...conform(value[field], spec.kind, at));
  }
  for (const key of shape.absent ?? []) if (key in value) problems.push(`${path}.${key}: present, but ${shape.name} has no ${key}`);
  for (const key of Object.keys(value)) if (shape.secret?.test(key)) problems.push(`${path}.${key}: a secret in ${shape.name}`);
  return problems;
}

/** Problems of a list's items are reported once per field, not once per item. */
const distinct = (problems: string[]): string[] => [...new Set(problems.map((p) => p.replace(/\[\d+\]/g, '[]')))];

/** ErrorResponse (interface.md): `error` a string, `detail` present (any type). */
function errorProblems(res: Reply, status: number, error: string): string[] {
  const problems: string[] = [];
  if (res.status !== status) problems.push(`status ${res.status}, expected ${status}`);
  if (!isObject(res.body)) return [...problems, `body ${describeValue(res.body)} is not an ErrorResponse`];
  if (typeof res.body.error !== 'string') problems.push(`error ${describeValue(res.body.error)} is not a string`);
  else if (res.body.error !== error) problems.push(`error ${res.body.error}, expected ${error}`);
  if (!('detail' in res.body)) problems.push('detail missing');
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The cases: one per documented operation
// ---------------------------------------------------------------------------------------------

type Data = Record<string, unknown>;
interface Call {
  /** The concrete path; must match the documented one. */
  path: string;
  token?: string;
  body?: unknown;
}
interface Prepared extends Call {
  /** What the answer must say besides its shape (the effect of this very call). */
  check?: (data: Data | Data[] | undefined) => void | Promise<void>;
}
interface Failure extends Call {
  status: number;
  error: string;
  /** For VALIDATION_FAILED: the field detail.fields must name. */
  field?: string;
}
interface Case {
  envelope: Envelope;
  /** The documented record of `data` (of each item for a page); none for 204. */
  shape?: Shape;
  /** Makes what the call needs and says how to call it. */
  prepare(): Promise<Prepared>;
  /** Operations without a bearer token: a documented failure (bearer operations are called without their token instead). */
  failure?: () => Promise<Failure>;
}


const app = useApp();
const county = useCounty(app);

const NEW_PASSWORD = 'a contract passphrase';
const DAY = 86_400_000;
const unique = (label: string) => `${label} ${randomUUID().slice(0, 12)}`;
const point = { type: 'Point', coordinates: [-56.097412, -15.601038] };
const future = () => new Date(Date.now() + 7 * DAY).toISOString();
const get = (data: unknown, key: string): unknown => (isObject(data) ? data[key] : undefined);
const idsOf = (data: unknown): unknown[] => (Array.isArray(data) ? data.map((d) => get(d, 'id')) : []);

function ok(res: Reply, status: number, what: string): Data {
  if (res.status !== status) throw new Error(`set-up: ${what} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body?.data as Data;
}

/** An establishment (with a location) and one control unit in it, made by `owner` through the private API. */
async function place(owner: Session): Promise<{ establishmentId: string; unitId: string; unitCode: string; name: string }> {
  const name = unique('Fazenda');
  const e = ok(await app.call('POST', '/api/establishments', { token: owner.access, body: { str_name: name, str_type: 'FARM', county_id: county.id, geo_location: point } }), 201, 'POST /api/establishments');
  const code = unitCode();
  const u = ok(await app.call('POST', '/api/control-units', { token: owner.access, body: { establishment_id: e.id, str_code: code, str_name: 'Retiro', str_type: 'PRODUCTION' } }), 201, 'POST /api/control-units');
  return { establishmentId: e.id as string, unitId: u.id as string, unitCode: code, name };
}

/** A pending invite from `owner`'s organization to `invitee`, on a unit of its own. */
async function pendingInvite(): Promise<{ owner: Session & Person; invitee: Session & Person; id: string; unitId: string }> {
  const owner = await member(app, 'OWNER');
  const invitee = await member(app, 'OWNER');
  const { unitId } = await place(owner);
  const inv = ok(
    await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' } }),
    201,
    'POST /api/invites',
  );
  return { owner, invitee, id: inv.id as string, unitId };
}

/** A GTA `owner` issues from its unit to a unit of another organization. */
async function gtaFrom(owner: Session & Person, unitId: string): Promise<Data> {
  const to = await place(await member(app));
  const gta = { str_code: String(randomInt(1e9)), int_animal_quantity: 8, str_purpose: 'SLAUGHTER', from_control_unit_id: unitId, to_control_unit_id: to.unitId, ts_valid_until: future() };
  return ok(await app.call('POST', '/api/gtas', { token: owner.access, body: { gta, user_id: owner.user.id } }), 201, 'POST /api/gtas');
}

/** The state's notice of a GTA between two units (Integration Notificar plus what the service needs to register it). */
async function notice(): Promise<Record<string, unknown>> {
  const from = await place(await member(app));
  const to = await place(await member(app));
  return {
    ds_uf: county.str_federative_unit,
    ds_serie_gta: 'E',
    nr_gta: String(randomInt(1e9)),
    id_gta: `SEFAZ-${randomUUID().slice(0, 8)}`,
    int_animal_quantity: 12,
    str_from_control_unit_code: from.unitCode,
    str_to_control_unit_code: to.unitCode,
    str_purpose: 'SLAUGHTER',
    ts_valid_until: new Date(Date.now() + 5 * DAY).toISOString(),
  };
}

const integrationUser = () => official(app, county.id, 'INTEGRATION');

/** A user someone else created (POST /api/users), and the confirm-registration token mailed to it. */
async function registrationToken(): Promise<string> {
  const owner = await member(app, 'OWNER');
  const address = `invited.${randomUUID().slice(0, 12)}@example.com`;
  ok(await app.call('POST', '/api/users', { token: owner.access, body: { str_name: 'Invited', str_email: address, str_document: cpf() } }), 202, 'POST /api/users');
  const token = tokenIn(await lastMail(app, address));
  if (!token) throw new Error('set-up: no confirm-registration token mailed');
  return token;
}

async function recoveryToken(person: Person): Promise<string> {
  ok(await app.call('POST', '/api/request-recovery-password', { body: { str_email: person.email } }), 204, 'POST /api/request-recovery-password');
  const token = tokenIn(await lastMail(app, person.email));
  if (!token) throw new Error('set-up: no recovery token mailed');
  return token;
}

const loginAs = (person: { email: string }, password: string) => app.call('POST', '/api/login', { body: { str_email: person.email, str_password: password } });

/** The establishment operations are the same under /api and /api/v1 (the public create also requires str_ibge_code). */
function establishmentCases(base: '/api' | '/api/v1'): Record<string, Case> {
  const update = (method: 'PUT' | 'PATCH'): Case => ({
    envelope: 'record',
    shape: ESTABLISHMENT,
    async prepare() {
      const owner = await member(app);
      const p = await place(owner);
      const name = unique(`${method} Fazenda`);
      return {
        path: `${base}/establishments/${p.establishmentId}`,
        token: owner.access,
        body: { str_name: name, str_address: 'Estrada do Boi, km 4', dec_area: 250.5, dec_exploration_area: 120 },
        check: (d) => expect(d).toMatchObject({ id: p.establishmentId, str_name: name, dec_area: 250.5, dec_exploration_area: 120, geo_location: point }),
      };
    },
  });
  const search = (path: string, who: 'owner' | 'outsider'): Case => ({
    envelope: 'page',
    shape: ESTABLISHMENT_PARTIAL,
    async prepare() {
      const owner = await member(app);
      const p = await place(owner);
      const caller = who === 'owner' ? owner : await member(app);
      return { path: `${path}?int_current_page=1&int_max_results=50`, token: caller.access, body: { str_name: p.name }, check: (d) => expect(idsOf(d)).toEqual([p.establishmentId]) };
    },
  });
  return {
    [`GET ${base}/establishments`]: {
      envelope: 'page',
      shape: ESTABLISHMENT_PARTIAL,
      async prepare() {
        const owner = await member(app);
        const p = await place(owner);
        return { path: `${base}/establishments`, token: owner.access, check: (d) => expect(idsOf(d)).toEqual([p.establishmentId]) };
      },
    },
    [`POST ${base}/establishments`]: {
      envelope: 'record',
      shape: ESTABLISHMENT,
      async prepare() {
        const owner = await member(app);
        const name = unique('Fazenda Nova');
        // The private create marks nothing required: a name and a type; the public one also requires str_ibge_code.
        const body = base === '/api/v1' ? { str_ibge_code: county.str_ibge_code, str_name: name, str_type: 'FARM', dec_area: 100 } : { str_name: name, str_type: 'FEEDLOT' };
        return {
          path: `${base}/establishments`,
          token: owner.access,
          body,
          check: (d) => {
            expect(d).toMatchObject({ str_name: name, organization_id: owner.org.id, control_units: [] });
            if (base === '/api/v1') expect(d).toMatchObject({ county_id: county.id, county: { id: county.id, str_ibge_code: county.str_ibge_code } });
          },
        };
      },
    },
    [`PUT ${base}/establishments/{id}`]: update('PUT'),
    [`PATCH ${base}/establishments/{id}`]: update('PATCH'),
    [`POST ${base}/establishments/search`]: search(`${base}/establishments/search`, 'owner'),
    [`POST ${base}/establishments/unrestricted/search`]: search(`${base}/establishments/unrestricted/search`, 'outsider'),
  };
}

const CASES: Record<string, Case> = {
  // --- Auth -----------------------------------------------------------------------------------
  'POST /api/change-org': {
    envelope: 'record',
    shape: TOKEN_PAIR,
    async prepare() {
      const person = await makeUser(app);
      const org = await makeOrganization(app, [{ person, role: 'MANAGER' }]);
      const s = await login(app, person);
      return { path: '/api/change-org', token: s.access, body: { organization_id: org.id }, check: (d) => expect(d).toMatchObject({ str_token_type: 'Bearer', int_expires_in: 900, user: { id: person.user.id, organization_id: org.id } }) };
    },
  },
  'POST /api/request-recovery-password': {
    envelope: 'empty',
    async prepare() {
      const person = await makeUser(app);
      return { path: '/api/request-recovery-password', body: { str_email: person.email }, check: async () => expect(tokenIn(await lastMail(app, person.email))).not.toBe('') };
    },
    failure: async () => ({ path: '/api/request-recovery-password', body: {}, status: 422, error: 'VALIDATION_FAILED', field: 'str_email' }),
  },
  'POST /api/confirm-registration': {
    envelope: 'empty',
    async prepare() {
      const token = await registrationToken();
      return { path: '/api/confirm-registration', body: { str_token: token, str_password: NEW_PASSWORD } };
    },
    failure: async () => ({ path: '/api/confirm-registration', body: { str_token: await registrationToken(), str_password: 'short' }, status: 422, error: 'VALIDATION_FAILED', field: 'str_password' }),
  },
  'POST /api/refresh': {
    envelope: 'record',
    shape: TOKEN_PAIR,
    async prepare() {
      const person = await makeUser(app);
      const s = await login(app, person);
      return { path: '/api/refresh', body: { refresh_token: s.refresh }, check: (d) => expect(d).toMatchObject({ str_token_type: 'Bearer', int_expires_in: 900, user: { id: person.user.id } }) };
    },
    failure: async () => ({ path: '/api/refresh', body: {}, status: 422, error: 'VALIDATION_FAILED', field: 'refresh_token' }),
  },
  'POST /api/reset-profile': {
    envelope: 'record',
    shape: TOKEN_PAIR,
    async prepare() {
      const owner = await member(app);
      return { path: '/api/reset-profile', token: owner.access, check: (d) => expect(d).toMatchObject({ user: { id: owner.user.id, organization_id: null } }) };
    },
  },
  'PUT /api/self-update': {
    envelope: 'record',
    shape: USER,
    async prepare() {
      const owner = await member(app);
      const name = unique('Maria');
      return { path: '/api/self-update', token: owner.access, body: { str_name: name, str_phone: '+55 65 99999-0000' }, check: (d) => expect(d).toMatchObject({ id: owner.user.id, str_name: name }) };
    },
  },
  'POST /api/recover-password': {
    envelope: 'empty',
    async prepare() {
      const person = await makeUser(app);
      const token = await recoveryToken(person);
      return { path: '/api/recover-password', body: { str_token: token, str_password: NEW_PASSWORD }, check: async () => expect((await loginAs(person, NEW_PASSWORD)).status).toBe(200) };
    },
    failure: async () => ({ path: '/api/recover-password', body: { str_password: NEW_PASSWORD }, status: 422, error: 'VALIDATION_FAILED', field: 'str_token' }),
  },
  'POST /api/logout': {
    envelope: 'empty',
    async prepare() {
      const owner = await member(app);
      return { path: '/api/logout', token: owner.access, check: async () => expect((await app.call('GET', '/api/whoami', { token: owner.access })).status).toBe(401) };
    },
  },
  'GET /api/whoami': {
    envelope: 'record',
    shape: USER,
    async prepare() {
      const owner = await member(app);
      return { path: '/api/whoami', token: owner.access, check: (d) => expect(d).toMatchObject({ id: owner.user.id, organization_id: owner.org.id, organizations: [{ id: owner.org.id, str_role: 'OWNER' }] }) };
    },
  },
  'POST /api/login': {
    envelope: 'record',
    shape: TOKEN_PAIR,
    async prepare() {
      const person = await makeUser(app);
      return { path: '/api/login', body: { str_email: person.email, str_password: person.password }, check: (d) => expect(d).toMatchObject({ str_token_type: 'Bearer', int_expires_in: 900, user: { id: person.user.id } }) };
    },
    failure: async () => {
      const person = await makeUser(app);
      return { path: '/api/login', body: { str_email: person.email, str_password: 'not the password' }, status: 401, error: 'INVALID_CREDENTIALS' };
    },
  },

  // --- Integration ----------------------------------------------------------------------------
  'GET /api/v1/propriedades': {
    envelope: 'page',
    shape: ESTABLISHMENT_PARTIAL_UNRESTRICTED,
    async prepare() {
      const p = await place(await member(app));
      const caller = await integrationUser();
      return { path: '/api/v1/propriedades', token: caller.access, check: (d) => expect(idsOf(d)).toContain(p.establishmentId) };
    },
  },
  'POST /api/v1/gta/notificar': {
    envelope: 'record',
    shape: GTA,
    async prepare() {
      const body = await notice();
      const caller = await integrationUser();
      return { path: '/api/v1/gta/notificar', token: caller.access, body, check: (d) => expect(d).toMatchObject({ str_code: body.nr_gta, str_series: 'E', str_external_id: body.id_gta, str_status: 'ISSUED', int_animal_quantity: 12 }) };
    },
  },
  'GET /api/v1/entrada_animais/{id}': {
    envelope: 'record',
    shape: ANIMALS_INGRESS,
    async prepare() {
      // No animals ingress can be made yet (animal movements are not recorded): the call is
      // the documented one, by record uuid.
      const caller = await integrationUser();
      return { path: `/api/v1/entrada_animais/${randomUUID()}`, token: caller.access };
    },
  },
  'GET /api/v1/saida_animais/{id}': {
    envelope: 'record',
    shape: ANIMALS_EGRESS,
    async prepare() {
      const caller = await integrationUser();
      return { path: `/api/v1/saida_animais/${randomUUID()}`, token: caller.access };
    },
  },
  'POST /api/v1/gta/cancelar': {
    envelope: 'record',
    shape: GTA,
    async prepare() {
      const body = await notice();
      const caller = await integrationUser();
      const gta = ok(await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body }), 201, 'POST /api/v1/gta/notificar');
      return { path: '/api/v1/gta/cancelar', token: caller.access, body: { ds_uf: body.ds_uf, ds_serie_gta: body.ds_serie_gta, nr_gta: body.nr_gta, id_gta: body.id_gta }, check: (d) => expect(d).toMatchObject({ id: gta.id, str_status: 'CANCELLED' }) };
    },
  },

  // --- Establishments -------------------------------------------------------------------------
  ...establishmentCases('/api/v1'),
  ...establishmentCases('/api'),

  // --- Invites --------------------------------------------------------------------------------
  'PUT /api/invites/{id}': {
    envelope: 'record',
    shape: INVITE,
    async prepare() {
      const { invitee, id } = await pendingInvite();
      return { path: `/api/invites/${id}`, token: invitee.access, body: { bl_accepted: true }, check: (d) => expect(d).toMatchObject({ id, bl_accepted: true, user: { id: invitee.user.id } }) };
    },
  },
  'PATCH /api/invites/{id}': {
    envelope: 'record',
    shape: INVITE,
    async prepare() {
      const { owner, id, unitId } = await pendingInvite();
      const gta = await gtaFrom(owner, unitId);
      const expires = future();
      const body = { str_type: 'VIEWER', str_movimentation_type: 'INGRESS', ts_expires_at: expires, gta_id: gta.id };
      return { path: `/api/invites/${id}`, token: owner.access, body, check: (d) => expect(d).toMatchObject({ id, bl_accepted: false, str_type: 'VIEWER', str_movimentation_type: 'INGRESS', ts_expires_at: expires, gta: { id: gta.id, str_code: gta.str_code } }) };
    },
  },

  // --- Vehicles -------------------------------------------------------------------------------
  'POST /api/vehicles': {
    envelope: 'record',
    shape: VEHICLE,
    async prepare() {
      const owner = await member(app);
      const body = vehicleBody();
      return { path: '/api/vehicles', token: owner.access, body, check: (d) => expect(d).toMatchObject({ str_license_plate: body.str_license_plate, str_renavam_number: body.str_renavam_number }) };
    },
  },
  'POST /api/vehicles/search': {
    envelope: 'page',
    shape: VEHICLE,
    async prepare() {
      const owner = await member(app);
      const v = ok(await app.call('POST', '/api/vehicles', { token: owner.access, body: vehicleBody() }), 201, 'POST /api/vehicles');
      return { path: '/api/vehicles/search', token: owner.access, body: {}, check: (d) => expect(idsOf(d)).toEqual([v.id]) };
    },
  },
};

/**
 * Where the service does not (yet) answer as interface.md documents: the exact problems each case
 * still shows. A case must show exactly these, so a new deviation fails the suite, and so does a
 * fixed one (delete its entry here). The contract is not relaxed by them: the record shapes above
 * stay as documented.
 *
 * - entrada_animais/{id} and saida_animais/{id} cannot answer 200: animal movements are not
 *   recorded yet, so every id is a 404.
 */
const NO_MOVEMENTS_YET = 'status 404 (NOT_FOUND), documented 200';
const DEVIATIONS: Record<string, string[]> = {
  'GET /api/v1/entrada_animais/{id}': [NO_MOVEMENTS_YET],
  'GET /api/v1/saida_animais/{id}': [NO_MOVEMENTS_YET],
};

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

/** A documented path as a pattern for concrete paths (`{id}` is one segment). */
const pathPattern = (documented: string): RegExp => new RegExp(`^${documented.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^/}]+\\?\}/g, '[^/?]+')}(\\?.*)?$`);

async function successProblems(row: Row, c: Case): Promise<string[]> {
  const prepared = await c.prepare();
  if (!pathPattern(row.path).test(prepared.path)) throw new Error(`the case calls ${prepared.path}, not the documented ${row.path}`);
  const res = await app.call(row.method, prepared.path, { token: prepared.token, body: prepared.body });
  if (res.status !== row.status) {
    const error = isObject(res.body) ? ` (${String(res.body.error)})` : '';
    return [`status ${res.status}${error}, documented ${row.status}`];
  }
  const problems: string[] = [];
  if (c.envelope === 'empty') {
    if (res.body !== undefined) problems.push(`body ${describeValue(res.body)}, expected none (204)`);
  } else if (!isObject(res.body)) {
    problems.push(`body ${describeValue(res.body)} is not an envelope`);
  } else if (c.envelope === 'record') {
    const keys = Object.keys(res.body).sort();
    if (keys.join() !== 'data') problems.push(`envelope keys ${keys.join(', ')}, expected data`);
    problems.push(...conform(res.body.data, c.shape!, 'data'));
  } else {
    const keys = Object.keys(res.body).sort();
    if (keys.join() !== 'data,meta') problems.push(`envelope keys ${keys.join(', ')}, expected data, meta`);
    const meta = res.body.meta;
    if (!isObject(meta)) problems.push(`meta ${describeValue(meta)} is not a PaginationMeta`);
    else {
      for (const f of PAGINATION_META) problems.push(...conform(meta[f], 'integer', `meta.${f}`));
      // interface.md: int_current_page defaults to 1, int_max_results to 50.
      const query = new URLSearchParams(prepared.path.split('?')[1] ?? '');
      if (meta.int_current_page !== Number(query.get('int_current_page') ?? 1)) problems.push(`meta.int_current_page ${describeValue(meta.int_current_page)}, expected ${query.get('int_current_page') ?? '1 (default)'}`);
      if (meta.int_max_results !== Number(query.get('int_max_results') ?? 50)) problems.push(`meta.int_max_results ${describeValue(meta.int_max_results)}, expected ${query.get('int_max_results') ?? '50 (default)'}`);
    }
    if (!Array.isArray(res.body.data)) problems.push(`data ${describeValue(res.body.data)} is not a list`);
    else {
      if (res.body.data.length === 0) problems.push('data is empty: the case made a record the page should list');
      problems.push(...conform(res.body.data, listOf(c.shape!), 'data'));
    }
  }
  if (prepared.check) await prepared.check(isObject(res.body) ? (res.body.data as Data | Data[]) : undefined);
  return distinct(problems);
}

async function failureProblems(row: Row, c: Case): Promise<string[]> {
  if (row.bearer) {
    // Without the bearer token (everything else as in the valid call): 401 UNAUTHENTICATED.
    const prepared = await c.prepare();
    const res = await app.call(row.method, prepared.path, { body: prepared.body });
    return errorProblems(res, 401, 'UNAUTHENTICATED');
  }
  if (!c.failure) throw new Error(`${keyOf(row)} is called without a bearer token: its case needs a documented failure`);
  const f = await c.failure();
  if (!pathPattern(row.path).test(f.path)) throw new Error(`the failure calls ${f.path}, not the documented ${row.path}`);
  if (f.token) throw new Error(`${keyOf(row)}: interface.md says it is called without a bearer token`);
  const res = await app.call(row.method, f.path, { body: f.body });
  const problems = errorProblems(res, f.status, f.error);
  if (f.field && problems.length === 0) {
    const fields = get(get(res.body, 'detail'), 'fields');
    if (!isObject(fields) || !(f.field in fields)) problems.push(`detail.fields ${describeValue(fields)} does not name ${f.field}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

describe('interface.md endpoint tables', () => {
  test('every section this file covers has rows, and no operation is listed twice', () => {
    expect(SECTIONS.filter((section) => !ROWS.some((r) => r.section === section))).toEqual([]);
    const keys = ROWS.map(keyOf);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  test('the cases are exactly the documented operations', () => {
    expect(Object.keys(CASES).sort()).toEqual(ROWS.map(keyOf).sort());
    expect(Object.keys(DEVIATIONS).filter((k) => !(k in CASES))).toEqual([]);
  });

  test('each case expects the envelope and record its success column names', () => {
    const mismatches: string[] = [];
    for (const row of ROWS) {
      const c = CASES[keyOf(row)];
      if (!c) continue;
      if (row.envelope && row.envelope !== c.envelope) mismatches.push(`${keyOf(row)}: documented ${row.envelope}, the case expects ${c.envelope}`);
      if (row.record && row.record !== c.shape?.name) mismatches.push(`${keyOf(row)}: documented ${row.record}, the case checks ${c.shape?.name ?? 'nothing'}`);
      if (c.envelope !== 'empty' && !c.shape) mismatches.push(`${keyOf(row)}: the case checks no record`);
    }
    expect(mismatches).toEqual([]);
  });
});

describe.each(ROWS.filter((r) => CASES[keyOf(r)]).map((r) => [keyOf(r), r] as const))('%s', (key, row) => {
  test(`a valid call: ${row.status}${row.envelope === 'empty' ? ', no body' : ''}, the documented envelope and record`, async () => {
    expect(await successProblems(row, CASES[key]!)).toEqual(DEVIATIONS[key] ?? []);
  });

  test(row.bearer ? 'without a bearer token: 401 UNAUTHENTICATED (ErrorResponse)' : 'a documented failure (ErrorResponse)', async () => {
    expect(await failureProblems(row, CASES[key]!)).toEqual([]);
  });
});

test('GET /api/openapi.json lists every documented operation with its success code (and 400, 401, 403, 404, 422, 500 for auth and integration)', async () => {
  const res = await app.call('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  const paths = get(res.body, 'paths');
  const missing: string[] = [];
  for (const row of ROWS) {
    const responses = get(get(get(paths, row.path), row.method.toLowerCase()), 'responses');
    if (!isObject(responses)) {
      missing.push(`${keyOf(row)}: not listed`);
      continue;
    }
    const wanted = [row.status, ...(SECTIONS_WITH_ERROR_CODES.includes(row.section) ? LISTED_ERROR_CODES : [])];
    for (const code of wanted) if (!(String(code) in responses)) missing.push(`${keyOf(row)}: no ${code} response`);
  }
  expect(missing).toEqual([]);
});
