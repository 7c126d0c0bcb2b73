import { verifyChain } from '../src/shared/events.js';
import { expectStatus, mustPost, useApp } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { official } from './helpers/factories.js';
import { animalBody, identify } from './helpers/identify.js';
import { egressRead, holding, ingressRead, issueGta } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockTags } from './helpers/tags.js';
import { eventsOf } from './helpers/tags-out.js';

/**
 * Issue 20: a bulk operation appends one event on its own record that lists the records it
 * touched (event_subject); each animal's history shows that event as it showed its own event
 * before (the same name, time, actor, changes and refs), and verifyChain recomputes the list.
 */

const app = useApp();
const county = useCounty(app);

const em = () => app.service.orm.em.fork();
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

/** Three animals identified at a farm, dispatched to a feedlot and received there, each read at its own time. */
async function journey() {
  const farm = await holding(app, county, 'FARM');
  const feedlot = await holding(app, county, 'FEEDLOT');
  const { codes } = await stockTags(app, farm.unit.unitId, 3);
  const identifiedAt = codes.map((_, i) => at(300 - i));
  const identification = await identify(app, farm.owner.access, farm.unit, codes.map((c, i) => animalBody(c, { ts_identified_at: identifiedAt[i] })));
  const animals = await rows<{ id: string; str_code: string; tag_id: string }>(app, 'select a.id, t.str_code, t.id as tag_id from animal a join tag t on t.id = a.current_tag_id where a.tags_identification_id = ? order by t.str_code', [identification.id]);
  const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 3);
  const egressAt = codes.map((_, i) => at(200 - i));
  const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, gta_id: gta.id, tags: codes.map((c, i) => egressRead(c, { ts_egress_at: egressAt[i] })) })).body.data;
  expect((await app.call('POST', `/api/animals-egress/${egress.id}/finish`, { token: farm.owner.access })).body.data.str_status).toBe('FINISHED');
  const ingressAt = codes.map((_, i) => at(100 - i));
  const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: [{ gta_id: gta.id }], tags: codes.map((c, i) => ingressRead(c, { ts_ingress_at: ingressAt[i] })) })).body.data;
  expect((await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: feedlot.owner.access })).body.data.str_status).toBe('RECEIVED');
  return { farm, feedlot, animals, identification, identifiedAt, gta, egress, egressAt, ingress, ingressAt };
}

/** The listing event of a record, with the number of records it lists by type. */
async function listing(recordId: string, type: string) {
  const [event] = await rows<{ seq: string; str_payload: string }>(app, 'select seq, str_payload from event where record_id = ? and str_type = ?', [recordId, type]);
  const listed = await rows<{ str_record_type: string; n: number }>(app, 'select str_record_type, count(*)::int as n from event_subject where event_seq = ? group by 1 order by 1', [event!.seq]);
  return { seq: Number(event!.seq), payload: JSON.parse(event!.str_payload), listed: Object.fromEntries(listed.map((l) => [l.str_record_type, l.n])) };
}

test('identification, egress finish and ingress finish: one event each listing the animals (the ingress also its GTA and egress); none per animal', async () => {
  const j = await journey();
  const ids = j.animals.map((a) => a.id);
  expect(await count(app, 'event where record_id = any(array[?]::uuid[])', [ids])).toBe(0);
  expect((await listing(j.identification.id, 'TAGS_IDENTIFICATION_CREATED')).listed).toEqual({ Animal: 3 });
  const dispatched = await listing(j.egress.id, 'ANIMALS_EGRESS_FINISHED');
  expect(dispatched.listed).toEqual({ Animal: 3 });
  expect(dispatched.payload.epcis).toEqual({
    str_biz_step: 'shipping',
    str_disposition: 'in_transit',
    gta_ids: [j.gta.id],
    source: { control_unit_id: j.farm.unit.unitId, establishment_id: j.farm.unit.establishmentId },
    destination: { control_unit_id: j.feedlot.unit.unitId, establishment_id: j.feedlot.unit.establishmentId },
  });
  const received = await listing(j.ingress.id, 'ANIMALS_INGRESS_FINISHED');
  expect(received.listed).toEqual({ Animal: 3, AnimalsEgress: 1, Gta: 1 });
  expect(received.payload.epcis).toMatchObject({ str_biz_step: 'receiving', gta_ids: [j.gta.id], destination: { control_unit_id: j.feedlot.unit.unitId } });
  // The GTA and the egress became RECEIVED in the ingress's event, not in events of their own.
  expect(await count(app, "event where record_id = any(array[?]::uuid[]) and str_type in ('GTA_RECEIVED', 'ANIMALS_EGRESS_RECEIVED')", [[j.gta.id, j.egress.id]])).toBe(0);
});

test("an animal's history shows each listing event as its own event showed it: name, its own time, actor, changes and refs, in order", async () => {
  const j = await journey();
  const a = j.animals[1]!;
  const res = await app.call('GET', `/api/animals/${a.id}/history`, { token: j.feedlot.owner.access });
  expect(res.status).toBe(200);
  expect(res.body.meta).toMatchObject({ int_total_results: 3 });
  const [identified, dispatched, arrived] = res.body.data;
  expect(identified.criteria).toMatchObject({
    str_event: 'ANIMAL_IDENTIFIED',
    ts_occurred_at: j.identifiedAt[1],
    actor: { id: j.farm.owner.user.id },
    changes: { str_status: 'ACTIVE', str_species: 'BOVINE', str_gender: 'FEMALE', ts_identified_at: j.identifiedAt[1], current_tag_id: a.tag_id },
    refs: { control_unit_id: j.farm.unit.unitId, establishment_id: j.farm.unit.establishmentId, organization_id: j.farm.owner.org.id, tags_identification_id: j.identification.id, tag_id: a.tag_id, str_tag_code: a.str_code, tags_reservation_id: null },
  });
  expect(dispatched).toEqual({
    id: expect.any(String),
    ts_created_at: j.egressAt[1],
    criteria: {
      str_event: 'ANIMAL_DISPATCHED',
      ts_occurred_at: j.egressAt[1],
      actor: { id: j.farm.owner.user.id, str_name: expect.any(String) },
      changes: { str_status: 'IN_TRANSIT' },
      refs: { organization_id: j.farm.owner.org.id, from_control_unit_id: j.farm.unit.unitId, to_control_unit_id: j.feedlot.unit.unitId, gta_id: j.gta.id, animals_egress_id: j.egress.id, str_tag_code: a.str_code },
    },
  });
  expect(arrived.criteria).toEqual({
    str_event: 'ANIMAL_RECEIVED',
    ts_occurred_at: j.ingressAt[1],
    actor: { id: j.feedlot.owner.user.id, str_name: expect.any(String) },
    changes: { str_status: 'ACTIVE', last_control_unit_id: j.feedlot.unit.unitId, str_socioenvironmental_status: expect.any(String) },
    refs: { organization_id: j.feedlot.owner.org.id, to_control_unit_id: j.feedlot.unit.unitId, animals_ingress_id: j.ingress.id, gta_id: j.gta.id, animals_egress_id: j.egress.id },
  });
  // One entry a page: the same entries in the same order; a page past the last keeps the count.
  for (const [k, entry] of res.body.data.entries()) {
    const one = await app.call('GET', `/api/animals/${a.id}/history?int_current_page=${k + 1}&int_max_results=1`, { token: j.feedlot.owner.access });
    expect(one.body.data).toEqual([entry]);
  }
  const past = await app.call('GET', `/api/animals/${a.id}/history?int_current_page=9&int_max_results=1`, { token: j.feedlot.owner.access });
  expect({ data: past.body.data, total: past.body.meta.int_total_results }).toEqual({ data: [], total: 3 });
});

test('events:verify recomputes a listing event over its list: one animal removed, or its own part changed, is caught', async () => {
  const j = await journey();
  expect(await verifyChain(em())).toEqual({ ok: true, checked: expect.any(Number) });
  const { seq } = await listing(j.egress.id, 'ANIMALS_EGRESS_FINISHED');
  const victim = j.animals[2]!.id;
  const [row] = await rows<{ ts_occurred_at: Date | null; str_detail: string | null }>(app, 'select ts_occurred_at, str_detail from event_subject where event_seq = ? and record_id = ?', [seq, victim]);
  const forced = (sql: string, params: unknown[]) =>
    em().transactional(async (tx) => {
      await tx.execute('set local session_replication_role = replica');
      await tx.execute(sql, params);
    });
  try {
    await forced('delete from event_subject where event_seq = ? and record_id = ?', [seq, victim]);
    expect(await verifyChain(em())).toMatchObject({ ok: false, broken: { seq, reason: 'content does not match its hash' } });
  } finally {
    await forced("insert into event_subject (event_seq, str_record_type, record_id, ts_occurred_at, str_detail) values (?, 'Animal', ?, ?, ?)", [seq, victim, row!.ts_occurred_at, row!.str_detail]);
  }
  expect(await verifyChain(em())).toEqual({ ok: true, checked: expect.any(Number) });
  try {
    await forced('update event_subject set str_detail = ? where event_seq = ? and record_id = ?', [JSON.stringify({ refs: { str_tag_code: 'FORGED' } }), seq, victim]);
    expect(await verifyChain(em())).toMatchObject({ ok: false, broken: { seq } });
  } finally {
    await forced('update event_subject set str_detail = ? where event_seq = ? and record_id = ?', [row!.str_detail, seq, victim]);
  }
  expect(await verifyChain(em())).toEqual({ ok: true, checked: expect.any(Number) });
  // The log's rows are append-only, the lists' too.
  await expect(em().execute('delete from event_subject where event_seq = ?', [seq])).rejects.toThrow(/append-only/);
});

test("the socio-environmental propagation's one event on the establishment lists the animals that changed, each with its from and to", async () => {
  const j = await journey();
  const authority = await official(app, county.id);
  expectStatus(await app.call('PATCH', `/api/establishments/${j.farm.unit.establishmentId}`, { token: authority.access, body: { str_socioenvironmental_status: 'NON_COMPLIANT' } }), 200);
  const [event] = await rows<{ seq: string }>(app, "select seq from event where record_id = ? and str_type = 'ESTABLISHMENT_ANIMALS_SOCIOENVIRONMENTAL_RECOMPUTED'", [j.farm.unit.establishmentId]);
  expect(await count(app, 'event_subject where event_seq = ?', [event!.seq])).toBe(3);
  const events = await eventsOf(app, 'Animal', j.animals[0]!.id);
  expect(events.map((e) => e.str_type)).toEqual(['ANIMAL_IDENTIFIED', 'ANIMAL_DISPATCHED', 'ANIMAL_RECEIVED', 'ANIMAL_SOCIOENVIRONMENTAL_STATUS_CHANGED']);
  expect(events[3]!.payload).toMatchObject({
    changes: { str_socioenvironmental_status: { from: expect.any(String), to: 'NON_COMPLIANT' } },
    refs: { establishment_id: j.farm.unit.establishmentId, str_establishment_status: { to: 'NON_COMPLIANT' } },
  });
  expect(await verifyChain(em())).toEqual({ ok: true, checked: expect.any(Number) });
});
