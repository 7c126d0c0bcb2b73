import { randomUUID } from 'node:crypto';
import { mustPost, useApp, type Reply } from './helpers/app.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { unitCode, useCounty } from './helpers/places.js';
import { makeUnit, stockAnimals, stockTags, type TestUnit } from './helpers/tags.js';
import { at, transporterWithTruck } from './helpers/travels.js';
import { upload, PNG } from './helpers/attachments.js';

/**
 * CONTRACT.md's body-id rule: an id inside a body that names a record the caller may not see is
 * answered exactly as an id that names nothing. Every create and action whose body carries an id
 * is sent twice by organization B's owner, once naming organization A's record and once a random
 * uuid, and the two answers (status and body) must be equal.
 */
const app = useApp();
const county = useCounty(app);

interface Tenant {
  farm: Holding;
  /** A second unit of the same organization. */
  pen: TestUnit;
  animalIds: string[];
  tagCodes: string[];
  /** AVAILABLE tags in a box at the farm. */
  freeTagIds: string[];
  boxId: string;
  gta: { id: string };
  egressId: string;
  ingressId: string;
  tagsEgressId: string;
  tagsIngressId: string;
  occurrenceId: string;
}

async function tenant(): Promise<Tenant> {
  const farm = await holding(app, county, 'FARM');
  const pen = await makeUnit(app, farm.owner.org.id, county);
  const { animalIds, codes } = await stockAnimals(app, farm.unit.unitId, 3);
  const free = await stockTags(app, farm.unit.unitId, 4);
  const box = await stockTags(app, farm.unit.unitId, 2);
  const token = farm.owner.access;
  const gta = await issueGta(app, token, farm.unit, pen, 3);
  const egress = (await mustPost(app, '/api/animals-egress', token, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: pen.unitId, gta_id: gta.id, tags: [egressRead(codes[0]!)] })).body.data;
  const ingress = (await mustPost(app, '/api/animals-ingress', token, { to_control_unit_id: pen.unitId, gtas: [{ gta_id: gta.id }], tags: [ingressRead(codes[0]!)] })).body.data;
  const tagsEgress = (await mustPost(app, '/api/tags-egress', token, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: pen.unitId, tags_boxes: [{ id: box.boxId }] })).body.data;
  const tagsIngress = (await mustPost(app, '/api/tags-ingress', token, { to_control_unit_id: pen.unitId, tags_egress_id: tagsEgress.id })).body.data;
  const occurrence = (await mustPost(app, '/api/occurrences', token, { str_type: 'OTHER', control_unit_id: farm.unit.unitId, str_description: 'Cerca' })).body.data;
  return {
    farm, pen, animalIds, tagCodes: codes, freeTagIds: free.tagIds, boxId: free.boxId, gta, egressId: egress.id, ingressId: ingress.id,
    tagsEgressId: tagsEgress.id, tagsIngressId: tagsIngress.id, occurrenceId: occurrence.id,
  };
}

type Send = (token: string) => Promise<Reply>;
interface Case {
  /** METHOD path field, as the OpenAPI document names the route and the body field. */
  name: string;
  /** Organization A's id of the kind the field names. */
  foreign: string;
  send: (ref: string) => Send;
}

const call = (method: string, path: string, body: unknown): Send => (token) => app.call(method, path, { token, body });
const answer = (r: Reply) => ({ status: r.status, body: r.body });
/** What a failure shows: a record's answer is long, its id is enough to tell. */
const brief = (a: ReturnType<typeof answer>) => (a.body?.data ? { status: a.status, data: a.body.data.id ?? '…' } : a);

/** The cases, each sent by B's owner. */
function cases(a: Tenant, b: Tenant, driver: { vehicleId: string; userId: string }, travelId: string, inviteId: string): Case[] {
  const B = b.farm.unit.unitId;
  const egressBody = (over: Record<string, unknown>) => ({ from_control_unit_id: B, to_control_unit_id: b.pen.unitId, ...over });
  const ingressBody = (over: Record<string, unknown>) => ({ to_control_unit_id: b.pen.unitId, gtas: [{ gta_id: b.gta.id }], ...over });
  const soon = new Date(Date.now() + 86_400_000).toISOString();
  return [
    { name: 'POST /api/animals-egress gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/animals-egress', egressBody({ gta_id: id })) },
    { name: 'POST /api/animals-egress tags[].tag_id', foreign: a.freeTagIds[0]!, send: (id) => call('POST', '/api/animals-egress', egressBody({ tags: [egressRead(b.tagCodes[1]!, { str_tag_code: undefined, tag_id: id })] })) },
    { name: 'POST /api/animals-egress operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/animals-egress', egressBody({ operator_user_id: id })) },
    { name: 'PATCH /api/animals-egress/{id} gta_id', foreign: a.gta.id, send: (id) => call('PATCH', `/api/animals-egress/${b.egressId}`, { gta_id: id }) },
    { name: 'POST /api/animals-egress/{id}/tags tags[].tag_id', foreign: a.freeTagIds[1]!, send: (id) => call('POST', `/api/animals-egress/${b.egressId}/tags`, { tags: [egressRead(b.tagCodes[1]!, { str_tag_code: undefined, tag_id: id })] }) },
    { name: 'POST /api/animals-ingress gtas[].gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/animals-ingress', ingressBody({ gtas: [{ gta_id: id }] })) },
    { name: 'POST /api/animals-ingress tags[].tag_id', foreign: a.freeTagIds[2]!, send: (id) => call('POST', '/api/animals-ingress', ingressBody({ tags: [ingressRead(b.tagCodes[2]!, { str_tag_code: undefined, tag_id: id })] })) },
    { name: 'POST /api/animals-ingress/{id}/tags tags[].tag_id', foreign: a.freeTagIds[2]!, send: (id) => call('POST', `/api/animals-ingress/${b.ingressId}/tags`, { tags: [ingressRead(b.tagCodes[2]!, { str_tag_code: undefined, tag_id: id })] }) },
    { name: 'POST /api/animals-ingress operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/animals-ingress', ingressBody({ operator_user_id: id })) },
    { name: 'POST /api/tags-egress tags_boxes[].id', foreign: a.boxId, send: (id) => call('POST', '/api/tags-egress', { from_control_unit_id: B, to_control_unit_id: b.pen.unitId, tags_boxes: [{ id }] }) },
    { name: 'POST /api/tags-egress operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/tags-egress', { from_control_unit_id: B, to_control_unit_id: b.pen.unitId, operator_user_id: id, tags_boxes: [{ id: b.boxId }] }) },
    { name: 'POST /api/tags-ingress tags_egress_id', foreign: a.tagsEgressId, send: (id) => call('POST', '/api/tags-ingress', { to_control_unit_id: b.pen.unitId, tags_egress_id: id }) },
    { name: 'POST /api/tags-ingress/{id}/evaluate tags_boxes[].id', foreign: a.boxId, send: (id) => call('POST', `/api/tags-ingress/${b.tagsIngressId}/evaluate`, { tags_boxes: [{ id, str_status: 'ACCEPTED' }] }) },
    { name: 'POST /api/tags-ingress operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/tags-ingress', { to_control_unit_id: B, operator_user_id: id, tags_boxes: [{ str_begin: '076000000000000', str_finish: '076000000000009' }] }) },
    { name: 'POST /api/tags-replacements operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/tags-replacements', { control_unit_id: B, operator_user_id: id, tags: [{ str_tag_code: b.tagCodes[2], new_tag_id: b.freeTagIds[1], str_reason: 'LOST' }] }) },
    { name: 'POST /api/tags-writeoffs operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/tags-writeoffs', { control_unit_id: B, operator_user_id: id, str_reason: 'DAMAGED', tags: [{ id: b.freeTagIds[2] }] }) },
    { name: 'POST /api/tags-reservations reservations[].operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/tags-reservations', { reservations: [{ control_unit_id: B, operator_user_id: id, str_name: 'Lote', str_begin: b.tagCodes[0], str_finish: b.tagCodes[0] }] }) },
    { name: 'POST /api/tags-identifications animals[].tag_id', foreign: a.freeTagIds[3]!, send: (id) => call('POST', '/api/tags-identifications', { to_control_unit_id: B, animals: [{ tag_id: id, str_species: 'BOVINE', str_gender: 'FEMALE' }] }) },
    { name: 'POST /api/tags-identifications operator_user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/tags-identifications', { to_control_unit_id: B, operator_user_id: id, animals: [{ tag_id: b.freeTagIds[0], str_species: 'BOVINE', str_gender: 'FEMALE' }] }) },
    { name: 'POST /api/tags-replacements tags[].tag_id', foreign: a.freeTagIds[0]!, send: (id) => call('POST', '/api/tags-replacements', { control_unit_id: B, tags: [{ tag_id: id, new_tag_id: b.freeTagIds[1], str_reason: 'LOST' }] }) },
    { name: 'POST /api/tags-replacements tags[].new_tag_id', foreign: a.freeTagIds[0]!, send: (id) => call('POST', '/api/tags-replacements', { control_unit_id: B, tags: [{ str_tag_code: b.tagCodes[2], new_tag_id: id, str_reason: 'LOST' }] }) },
    { name: 'POST /api/tags-writeoffs tags[].id', foreign: a.freeTagIds[0]!, send: (id) => call('POST', '/api/tags-writeoffs', { control_unit_id: B, str_reason: 'DAMAGED', tags: [{ id }] }) },
    { name: 'POST /api/occurrences animal_id', foreign: a.animalIds[1]!, send: (id) => call('POST', '/api/occurrences', { str_type: 'OTHER', str_description: 'x', control_unit_id: B, animal_id: id }) },
    { name: 'POST /api/occurrences tag_id', foreign: a.freeTagIds[0]!, send: (id) => call('POST', '/api/occurrences', { str_type: 'OTHER', str_description: 'x', control_unit_id: B, tag_id: id }) },
    { name: 'POST /api/occurrences animals_egress_id', foreign: a.egressId, send: (id) => call('POST', '/api/occurrences', { str_type: 'OTHER', str_description: 'x', control_unit_id: B, animals_egress_id: id }) },
    { name: 'POST /api/occurrences animals_ingress_id', foreign: a.ingressId, send: (id) => call('POST', '/api/occurrences', { str_type: 'OTHER', str_description: 'x', control_unit_id: B, animals_ingress_id: id }) },
    { name: 'POST /api/occurrences gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/occurrences', { str_type: 'OTHER', str_description: 'x', control_unit_id: B, gta_id: id }) },
    { name: 'POST /api/occurrences control_unit_id', foreign: a.farm.unit.unitId, send: (id) => call('POST', '/api/occurrences', { str_type: 'OTHER', str_description: 'x', control_unit_id: id }) },
    { name: 'POST /api/trace animal_id', foreign: a.animalIds[1]!, send: (id) => call('POST', '/api/trace', { animal_id: id, ts_from: new Date(Date.now() - 86_400_000).toISOString(), ts_to: soon }) },
    { name: 'POST /api/trace control_unit_id', foreign: a.farm.unit.unitId, send: (id) => call('POST', '/api/trace', { control_unit_id: id, ts_from: new Date(Date.now() - 86_400_000).toISOString(), ts_to: soon }) },
    { name: 'POST /api/eudr/geolocation gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/eudr/geolocation', { gta_id: id }) },
    { name: 'POST /api/eudr/geolocation animals_ingress_id', foreign: a.ingressId, send: (id) => call('POST', '/api/eudr/geolocation', { animals_ingress_id: id }) },
    { name: 'POST /api/eudr/geolocation lst_animal_ids', foreign: a.animalIds[1]!, send: (id) => call('POST', '/api/eudr/geolocation', { lst_animal_ids: [b.animalIds[1], id] }) },
    { name: 'POST /api/eudr/verdict gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/eudr/verdict', { gta_id: id }) },
    { name: 'POST /api/eudr/verdict animals_ingress_id', foreign: a.ingressId, send: (id) => call('POST', '/api/eudr/verdict', { animals_ingress_id: id }) },
    { name: 'POST /api/eudr/verdict lst_animal_ids', foreign: a.animalIds[1]!, send: (id) => call('POST', '/api/eudr/verdict', { lst_animal_ids: [b.animalIds[1], id] }) },
    { name: 'POST /api/eudr/statements gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/eudr/statements', { gta_id: id }) },
    { name: 'POST /api/eudr/statements animals_ingress_id', foreign: a.ingressId, send: (id) => call('POST', '/api/eudr/statements', { animals_ingress_id: id }) },
    { name: 'POST /api/eudr/statements lst_animal_ids', foreign: a.animalIds[1]!, send: (id) => call('POST', '/api/eudr/statements', { lst_animal_ids: [b.animalIds[1], id] }) },
    { name: 'POST /api/travels/{id}/embarks animals_egress_id', foreign: a.egressId, send: (id) => call('POST', `/api/travels/${travelId}/embarks`, { animals_egress_id: id, ts_embarked_at: new Date().toISOString(), geo_location: at() }) },
    { name: 'POST /api/invites gta_id', foreign: a.gta.id, send: (id) => call('POST', '/api/invites', { control_unit_id: B, user_id: driver.userId, gta_id: id, bl_restricted: true, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' }) },
    { name: 'PATCH /api/invites/{id} gta_id', foreign: a.gta.id, send: (id) => call('PATCH', `/api/invites/${inviteId}`, { gta_id: id }) },
    { name: 'POST /api/invites control_unit_id', foreign: a.farm.unit.unitId, send: (id) => call('POST', '/api/invites', { control_unit_id: id, user_id: driver.userId, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' }) },
    { name: 'POST /api/gtas gta.from_control_unit_id', foreign: a.farm.unit.unitId, send: (id) => call('POST', '/api/gtas', { gta: { str_code: String(Math.floor(Math.random() * 1e9)), int_animal_quantity: 1, str_purpose: 'FATTENING', from_control_unit_id: id, to_control_unit_id: b.pen.unitId, ts_valid_until: soon } }) },
    { name: 'POST /api/sharings accesses[].control_unit_id', foreign: a.farm.unit.unitId, send: (id) => call('POST', '/api/sharings', { str_name: 'S', lst_user_ids: [driver.userId], accesses: [{ control_unit_id: id, str_scope: 'ANIMALS' }] }) },
    { name: 'POST /api/sharings accesses[].establishment_id', foreign: a.farm.unit.establishmentId, send: (id) => call('POST', '/api/sharings', { str_name: 'S', lst_user_ids: [driver.userId], accesses: [{ establishment_id: id, str_scope: 'ANIMALS' }] }) },
    { name: 'POST /api/control-units establishment_id', foreign: a.farm.unit.establishmentId, send: (id) => call('POST', '/api/control-units', { establishment_id: id, str_code: unitCode(), str_name: 'Retiro', str_type: 'PRODUCTION' }) },
    { name: 'POST /api/change-org organization_id', foreign: a.farm.owner.org.id, send: (id) => call('POST', '/api/change-org', { organization_id: id }) },
    { name: 'POST /api/attachments record_id', foreign: a.egressId, send: (id) => (token) => upload(app, { token, fields: { str_record_type: 'ANIMALS_EGRESS', record_id: id }, file: { bytes: PNG, name: 'x.png', type: 'image/png' } }) },
    { name: 'POST /api/attachments record_id (OCCURRENCE)', foreign: a.occurrenceId, send: (id) => (token) => upload(app, { token, fields: { str_record_type: 'OCCURRENCE', record_id: id }, file: { bytes: PNG, name: 'x.png', type: 'image/png' } }) },
    { name: 'POST /api/invite-requests control_unit_id', foreign: a.farm.unit.unitId, send: (id) => call('POST', '/api/invite-requests', { control_unit_id: id, str_movimentation_type: 'BOTH' }) },
    { name: 'POST /api/user-verification/verify user_id', foreign: a.farm.owner.user.id, send: (id) => call('POST', '/api/user-verification/verify', { user_id: id, str_code: '123456' }) },
  ];
}

/**
 * Body fields whose name ends in `_id`/`_ids` that are not references to a record the caller may
 * not see, and why. Everything else the OpenAPI document lists must be a case above.
 */
function notARecordReference(method: string, path: string, field: string): string | null {
  const leaf = field.split(/\[\]\.|\./).pop()!;
  if (leaf === 'id' && !/^(POST \/api\/(tags-writeoffs tags\[\]|tags-egress tags_boxes\[\]|tags-ingress\/\{id\}\/evaluate tags_boxes\[\]))/.test(`${method} ${path} ${field}`)) {
    return 'the client-generated id of the record (or item) being created: a new id, not a reference';
  }
  if (`${method} ${path} ${field}` === 'POST /api/tags-ingress tags_boxes[].id') return "a supplier's boxes arrive with the client's ids for them";
  if (leaf === 'str_external_id') return "the state's own id of a GTA, not one of ours";
  if (leaf === 'county_id') return 'counties are public: every signed-in caller lists them';
  if (leaf === 'record_ids') return "a webhook's filter, not a reference: any uuid is taken (another organization's as a random one), and each delivery is still scoped to what the endpoint's owner may read";
  if (/(^|_)(control_unit_id|establishment_id)$/.test(leaf)) return "places are public (Establishment Partial Unrestricted Data, every signed-in caller): naming another organization's unit or establishment is how movements, invite requests and GTAs reach it";
  if (/^(user_id|owner_user_id|responsible_user_id|transporter_user_id|owner_id|lst_user_ids|lst_org_ids|org_id|organization_id|vehicle_id)$/.test(leaf)) {
    return "an account (user, organization, a transporter's truck) addressed by the id its owner hands out: invites, sharings, members, responsible users and travels name accounts of other organizations by design";
  }
  return null;
}

/** Every (method, path, field) of a JSON request body whose name says it holds ids, from the published document. */
interface JsonSchema {
  $ref?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}
interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema> };
}

function bodyIdFields(doc: OpenApi): string[] {
  const deref = (schema: JsonSchema | undefined, seen: Set<string>): JsonSchema | undefined => {
    if (!schema?.$ref) return schema;
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return {};
    seen.add(name);
    return deref(doc.components.schemas[name], seen);
  };
  const walk = (schema: JsonSchema | undefined, prefix: string, seen: Set<string>, out: string[]): string[] => {
    const s = deref(schema, seen);
    if (!s) return out;
    for (const k of ['allOf', 'oneOf', 'anyOf'] as const) for (const x of s[k] ?? []) walk(x, prefix, new Set(seen), out);
    if (s.items) walk(s.items, `${prefix.replace(/\.$/, '')}[].`, new Set(seen), out);
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      if (/(_id|_ids|^id)$/.test(k)) out.push(prefix + k);
      walk(v, `${prefix}${k}.`, new Set(seen), out);
    }
    return out;
  };
  const found: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = op?.requestBody?.content?.['application/json']?.schema;
      if (schema) for (const f of walk(schema, '', new Set(), [])) found.push(`${method.toUpperCase()} ${path} ${f}`);
    }
  }
  return found;
}

test('every body id field of the published document is a case here, or is said not to reference a record', async () => {
  const doc = (await app.call('GET', '/api/openapi.json')).body;
  const covered = new Set(cases.toString().match(/name: '([^']+)'/g)!.map((m) => m.slice(7, -1).replace(/ \(.*\)$/, '')));
  const missing = bodyIdFields(doc).filter((name) => {
    const [method, path, field] = name.split(' ') as [string, string, string];
    // The public API's paths and PUT run the same operations as the private path and PATCH.
    const same = `${method === 'PUT' ? 'PATCH' : method} ${path.replace(/^\/api\/v1\//, '/api/')} ${field}`;
    return !covered.has(name) && !covered.has(same) && !notARecordReference(method, path, field);
  });
  expect(missing).toEqual([]);
});

test('every body id naming another organization\'s record answers exactly as a random uuid', async () => {
  const a = await tenant();
  const b = await tenant();
  const { driver, vehicle } = await transporterWithTruck(app);
  const travel = (await mustPost(app, '/api/travels', b.farm.owner.access, { vehicle_id: vehicle.id, transporter_user_id: driver.user.id, str_consignee_name: 'X', from_control_unit_id: b.farm.unit.unitId, to_control_unit_id: b.pen.unitId })).body.data;
  const invite = (await mustPost(app, '/api/invites', b.farm.owner.access, { control_unit_id: b.farm.unit.unitId, user_id: driver.user.id, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' })).body.data;
  const differ: Record<string, unknown> = {};
  const all = cases(a, b, { vehicleId: vehicle.id, userId: driver.user.id }, travel.id, invite.id);
  for (const c of all) {
    const foreign = answer(await c.send(c.foreign)(b.farm.owner.access));
    const random = answer(await c.send(randomUUID())(b.farm.owner.access));
    if (JSON.stringify(foreign) !== JSON.stringify(random)) differ[c.name] = { foreign: brief(foreign), random: brief(random) };
    if (process.env.SHOW) console.log(c.name, JSON.stringify(brief(random)));
    // A random id must be refused: otherwise the case proves nothing.
    if (random.status < 400) differ[`${c.name} (random accepted)`] = random;
  }
  expect(differ).toEqual({});
});
