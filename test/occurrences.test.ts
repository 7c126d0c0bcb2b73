import { randomUUID } from 'node:crypto';
import { expectStatus, mustPost, useApp, type Reply } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { member, official } from './helpers/factories.js';
import { ISO_Z, UUID_RE, useCounty } from './helpers/places.js';
import { animalsStaying, moveAnimals, staysOf } from './helpers/stays.js';
import { makeUnit, ownerWithUnit, stockTags } from './helpers/tags.js';
import { eventsOf } from './helpers/tags-out.js';

const app = useApp();
const county = useCounty(app);

const OCCURRENCE_KEYS = [
  'id', 'str_type', 'str_status', 'control_unit_id', 'str_control_unit_code', 'str_establishment_name', 'animal_id', 'tag_id', 'animals_egress_id', 'animals_ingress_id', 'gta_id', 'travel_id',
  'reporter_user_id', 'resolver_user_id', 'str_description', 'str_resolution', 'ts_occurred_at', 'ts_resolved_at', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at',
].sort();

const setup = () => ownerWithUnit(app, county);
const post = (token: string, body: unknown) => app.call('POST', '/api/occurrences', { token, body });
const report = (token: string, body: unknown) => mustPost(app, '/api/occurrences', token, body);
const resolve = (token: string, id: string, str_resolution: unknown = 'Resolvido', action = 'resolve') => app.call('POST', `/api/occurrences/${id}/${action}`, { token, body: { str_resolution } });
const animal = async (id: string) => (await rows<{ str_status: string; ts_ended_at: Date | null }>(app, 'select str_status, ts_ended_at from animal where id = ?', [id]))[0]!;

function expectRefused(res: Reply, error: string, detail: Record<string, unknown>): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 422, error });
  expect(res.body.detail).toMatchObject(detail);
}

describe('POST /api/occurrences and the reads', () => {
  test('TAG_LOST on an applied tag: the documented record (its animal named from the tag), one OCCURRENCE_REPORTED event; index, search, read and GraphQL', async () => {
    const { owner, unit } = await setup();
    const { animalIds, tagIds } = await animalsStaying(app, unit.unitId, 2);
    const at = '2026-01-10T08:00:00.000Z';
    const res = await report(owner.access, { str_type: 'TAG_LOST', control_unit_id: unit.unitId, tag_id: tagIds[0], str_description: 'Brinco caiu no curral', ts_occurred_at: at, ts_unsafe_client_created_at: at });
    const o = res.body.data;
    expect(Object.keys(o).sort()).toEqual(OCCURRENCE_KEYS);
    expect(o).toMatchObject({
      str_type: 'TAG_LOST', str_status: 'OPEN', control_unit_id: unit.unitId, str_control_unit_code: unit.code, str_establishment_name: `Fazenda ${unit.code}`,
      animal_id: animalIds[0], tag_id: tagIds[0], animals_egress_id: null, animals_ingress_id: null, gta_id: null,
      reporter_user_id: owner.user.id, resolver_user_id: null, str_description: 'Brinco caiu no curral', str_resolution: null, ts_occurred_at: at, ts_resolved_at: null, ts_unsafe_client_created_at: at,
    });
    expect(o.id).toMatch(UUID_RE);
    expect(o.ts_created_at).toMatch(ISO_Z);
    // A lost tag changes no animal.
    expect((await animal(animalIds[0]!)).str_status).toBe('ACTIVE');
    const events = await eventsOf(app, 'Occurrence', o.id);
    expect(events.map((e) => e.str_type)).toEqual(['OCCURRENCE_REPORTED']);
    expect(events[0]!.payload).toMatchObject({ changes: { str_type: 'TAG_LOST', str_status: 'OPEN', animal_id: animalIds[0], tag_id: tagIds[0] }, refs: { control_unit_id: unit.unitId, by: 'PERSON' } });

    const other = await report(owner.access, { str_type: 'OTHER', control_unit_id: unit.unitId, str_description: 'Cerca quebrada' });
    const index = await app.call('GET', '/api/occurrences?str_type=TAG_LOST', { token: owner.access });
    expectStatus(index, 200);
    expect(index.body.data.map((x: { id: string }) => x.id)).toEqual([o.id]);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 1, int_total_pages: 1 });
    const search = await app.call('POST', '/api/occurrences/search', { token: owner.access, body: { control_unit_id: unit.unitId, str_status: 'OPEN', ts_occurred_at_to: '2026-02-01T00:00:00Z' } });
    expect(search.body.data.map((x: { id: string }) => x.id)).toEqual([o.id]);
    const all = await app.call('POST', '/api/occurrences/search', { token: owner.access, body: { establishment_id: unit.establishmentId } });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([other.body.data.id, o.id]);
    const byAnimal = await app.call('POST', '/api/occurrences/search', { token: owner.access, body: { animal_id: animalIds[0] } });
    expect(byAnimal.body.meta.int_total_results).toBe(1);
    const unknown = await app.call('POST', '/api/occurrences/search', { token: owner.access, body: { str_colour: 'red' } });
    expectRefused(unknown, 'VALIDATION_FAILED', { fields: { str_colour: ['is not a known filter'] } });
    const read = await app.call('GET', `/api/occurrences/${o.id}`, { token: owner.access });
    expectStatus(read, 200);
    expect(read.body.data).toEqual(o);
    const gql = await app.graphql(`query($id: UUID!) { occurrence(id: $id) { id str_type control_unit { id str_code } } }`, { id: o.id }, owner.access);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.occurrence).toEqual({ id: o.id, str_type: 'TAG_LOST', control_unit: { id: unit.unitId, str_code: unit.code } });
  });

  test('ANIMAL_DEATH: the ACTIVE animal becomes DEAD when it died (ts_ended_at, its stay closed then), ANIMAL_DIED on it; a second death or a theft of it is INVALID_STATE naming it', async () => {
    const { owner, unit } = await setup();
    const { animalIds } = await animalsStaying(app, unit.unitId, 2);
    const died = new Date(Date.now() - 3_600_000).toISOString();
    const res = await report(owner.access, { str_type: 'ANIMAL_DEATH', control_unit_id: unit.unitId, animal_id: animalIds[0], ts_occurred_at: died });
    const a = await animal(animalIds[0]!);
    expect(a.str_status).toBe('DEAD');
    expect(new Date(a.ts_ended_at!).toISOString()).toBe(died);
    const stays = await staysOf(app, animalIds[0]!);
    expect(stays).toHaveLength(1);
    expect(new Date(stays[0]!.ts_to!).toISOString()).toBe(died);
    expect((await staysOf(app, animalIds[1]!))[0]!.ts_to).toBeNull();
    const events = await eventsOf(app, 'Animal', animalIds[0]!);
    expect(events.map((e) => e.str_type)).toEqual(['ANIMAL_DIED']);
    expect(events[0]!.payload).toMatchObject({ changes: { str_status: { from: 'ACTIVE', to: 'DEAD' }, ts_ended_at: died }, refs: { occurrence_id: res.body.data.id, control_unit_id: unit.unitId } });

    for (const str_type of ['ANIMAL_DEATH', 'THEFT']) {
      const again = await post(owner.access, { str_type, control_unit_id: unit.unitId, animal_id: animalIds[0] });
      expectRefused(again, 'INVALID_STATE', { allowed: ['ACTIVE'], animals: [{ id: animalIds[0], str_status: 'DEAD' }] });
    }
    expect(await count(app, 'occurrence where animal_id = ?', [animalIds[0]])).toBe(1);
  });

  test('THEFT: ACTIVE → MISSING (its stay stays open); resolved → ACTIVE again (ANIMAL_FOUND); closing twice is INVALID_STATE', async () => {
    const { owner, unit } = await setup();
    const { animalIds } = await animalsStaying(app, unit.unitId, 1);
    const theft = (await report(owner.access, { str_type: 'THEFT', control_unit_id: unit.unitId, animal_id: animalIds[0], str_description: 'Cerca cortada' })).body.data;
    expect((await animal(animalIds[0]!)).str_status).toBe('MISSING');
    expect((await staysOf(app, animalIds[0]!))[0]!.ts_to).toBeNull();
    // Missing, it cannot be reported dead or stolen again: found first.
    expectRefused(await post(owner.access, { str_type: 'ANIMAL_DEATH', control_unit_id: unit.unitId, animal_id: animalIds[0] }), 'INVALID_STATE', { animals: [{ id: animalIds[0], str_status: 'MISSING' }] });

    const res = await resolve(owner.access, theft.id, '  Encontrada no vizinho  ');
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ id: theft.id, str_status: 'RESOLVED', str_resolution: 'Encontrada no vizinho', resolver_user_id: owner.user.id });
    expect(res.body.data.ts_resolved_at).toMatch(ISO_Z);
    expect((await animal(animalIds[0]!)).str_status).toBe('ACTIVE');
    expect((await eventsOf(app, 'Animal', animalIds[0]!)).map((e) => e.str_type)).toEqual(['ANIMAL_MISSING', 'ANIMAL_FOUND']);
    expect((await eventsOf(app, 'Occurrence', theft.id)).map((e) => e.str_type)).toEqual(['OCCURRENCE_REPORTED', 'OCCURRENCE_RESOLVED']);

    for (const action of ['resolve', 'dismiss']) {
      expectRefused(await resolve(owner.access, theft.id, 'de novo', action), 'INVALID_STATE', { str_status: 'RESOLVED', allowed: ['OPEN'] });
    }
    expect((await eventsOf(app, 'Occurrence', theft.id))).toHaveLength(2);
  });

  test('THEFT dismissed brings the animal back too; other types close without touching any animal', async () => {
    const { owner, unit } = await setup();
    const { animalIds } = await animalsStaying(app, unit.unitId, 1);
    const theft = (await report(owner.access, { str_type: 'THEFT', control_unit_id: unit.unitId, animal_id: animalIds[0] })).body.data;
    const dismissed = await resolve(owner.access, theft.id, 'Alarme falso: estava no pasto de trás', 'dismiss');
    expectStatus(dismissed, 200);
    expect(dismissed.body.data.str_status).toBe('DISMISSED');
    expect((await animal(animalIds[0]!)).str_status).toBe('ACTIVE');

    const lost = (await report(owner.access, { str_type: 'TAG_LOST', control_unit_id: unit.unitId, animal_id: animalIds[0] })).body.data;
    expectStatus(await resolve(owner.access, lost.id, 'Brinco novo aplicado'), 200);
    expect((await eventsOf(app, 'Animal', animalIds[0]!)).map((e) => e.str_type)).toEqual(['ANIMAL_MISSING', 'ANIMAL_FOUND']);
  });

  test('GraphQL: createOccurrence, resolveOccurrence and dismissOccurrence run the same core', async () => {
    const { owner, unit } = await setup();
    const { animalIds } = await animalsStaying(app, unit.unitId, 1);
    const created = await app.graphql(`mutation($input: OccurrenceCreateInput!) { createOccurrence(input: $input) { id str_status animal_id } }`, { input: { str_type: 'THEFT', control_unit_id: unit.unitId, animal_id: animalIds[0] } }, owner.access);
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createOccurrence.id;
    const resolved = await app.graphql(`mutation($id: UUID!) { resolveOccurrence(id: $id, input: {str_resolution: "Achada"}) { str_status str_resolution } }`, { id }, owner.access);
    expect(resolved.body.data.resolveOccurrence).toEqual({ str_status: 'RESOLVED', str_resolution: 'Achada' });
    const dismissed = await app.graphql(`mutation($id: UUID!) { dismissOccurrence(id: $id, input: {str_resolution: "x"}) { id } }`, { id }, owner.access);
    expect(dismissed.body.errors[0].extensions).toMatchObject({ code: 'INVALID_STATE', detail: { str_status: 'RESOLVED' } });
  });
});

describe('refusals', () => {
  test('bad bodies: 422 naming each field; types raised by rules are not reportable; nothing written', async () => {
    const { owner, unit } = await setup();
    const empty = await post(owner.access, {});
    expectRefused(empty, 'VALIDATION_FAILED', {});
    expect(Object.keys(empty.body.detail.fields).sort()).toEqual(['control_unit_id', 'str_type']);
    const cases: [Record<string, unknown>, string][] = [
      [{ str_type: 'SOCIOENVIRONMENTAL_ALERT' }, 'str_type'],
      [{ str_type: 'MISSING_ON_ARRIVAL' }, 'str_type'],
      [{ str_type: 'ANIMAL_DEATH' }, 'animal_id'],
      [{ str_type: 'THEFT' }, 'animal_id'],
      [{ str_type: 'OTHER' }, 'str_description'],
      [{ str_type: 'TAG_LOST', tag_id: 'nope' }, 'tag_id'],
      [{ str_type: 'TAG_LOST', id: 'nope' }, 'id'],
      [{ str_type: 'TAG_LOST', ts_occurred_at: new Date(Date.now() + 86_400_000).toISOString() }, 'ts_occurred_at'],
    ];
    for (const [body, field] of cases) {
      const res = await post(owner.access, { control_unit_id: unit.unitId, ...body });
      expect({ body, status: res.status, fields: Object.keys(res.body.detail?.fields ?? {}) }).toEqual({ body, status: 422, fields: [field] });
    }
    expect(await count(app, 'occurrence where control_unit_id = ?', [unit.unitId])).toBe(0);
  });

  test('what the report names must be at its unit: animals, tags, movements and GTAs elsewhere are named exactly as ones that do not exist', async () => {
    const { owner, unit } = await setup();
    const elsewhere = await makeUnit(app, owner.org.id, county);
    const { animalIds, tagIds } = await animalsStaying(app, elsewhere.unitId, 1);
    const stranger = await setup();
    const theirs = await animalsStaying(app, stranger.unit.unitId, 1);
    const mine = await animalsStaying(app, unit.unitId, 1);
    const fields = async (body: Record<string, unknown>) => {
      const res = await post(owner.access, { str_type: 'TAG_LOST', control_unit_id: unit.unitId, ...body });
      expect(res.status).toBe(422);
      return res.body.detail.fields;
    };
    const missing = randomUUID();
    for (const id of [animalIds[0], theirs.animalIds[0], missing]) expect(await fields({ animal_id: id })).toEqual({ animal_id: ['no such animal at control_unit_id'] });
    for (const id of [tagIds[0], theirs.tagIds[0], missing]) expect(await fields({ tag_id: id })).toEqual({ tag_id: ['no such tag at control_unit_id'] });
    expect(await fields({ animal_id: mine.animalIds[0], tag_id: (await animalsStaying(app, unit.unitId, 1)).tagIds[0] })).toEqual({ tag_id: ['is not a tag of animal_id'] });
    expect(await fields({ animals_egress_id: missing, animals_ingress_id: missing, gta_id: missing })).toEqual({
      animals_egress_id: ['no such animals egress from or to control_unit_id'],
      animals_ingress_id: ['no such animals ingress at control_unit_id'],
      gta_id: ['no such GTA from or to control_unit_id'],
    });
    // A tag in stock at the unit is a tag there.
    const stock = await stockTags(app, unit.unitId, 1);
    expect((await report(owner.access, { str_type: 'TAG_LOST', control_unit_id: unit.unitId, tag_id: stock.tagIds[0] })).body.data.animal_id).toBeNull();
    // Another organization's unit is no unit to the caller.
    expectRefused(await post(owner.access, { str_type: 'TAG_LOST', control_unit_id: stranger.unit.unitId }), 'VALIDATION_FAILED', { fields: { control_unit_id: ['no such control unit'] } });
    expect((await animal(theirs.animalIds[0]!)).str_status).toBe('ACTIVE');
  });

  test('viewers and authorities may read but not report, resolve or dismiss (403); a resolution text is required', async () => {
    const { owner, unit } = await setup();
    const { animalIds } = await animalsStaying(app, unit.unitId, 1);
    const o = (await report(owner.access, { str_type: 'THEFT', control_unit_id: unit.unitId, animal_id: animalIds[0] })).body.data;
    const viewer = await member(app, 'VIEWER', owner.org);
    const authority = await official(app, county.id);
    for (const who of [viewer, authority]) {
      expectStatus(await app.call('GET', `/api/occurrences/${o.id}`, { token: who.access }), 200);
      expect((await post(who.access, { str_type: 'TAG_LOST', control_unit_id: unit.unitId })).status).toBe(403);
      for (const action of ['resolve', 'dismiss']) expect((await resolve(who.access, o.id, 'x', action)).status).toBe(403);
    }
    for (const text of [null, '', '   ']) expectRefused(await resolve(owner.access, o.id, text), 'VALIDATION_FAILED', { fields: { str_resolution: ['is required'] } });
    expectRefused(await app.call('POST', `/api/occurrences/${o.id}/dismiss`, { token: owner.access }), 'VALIDATION_FAILED', { fields: { str_resolution: ['is required'] } });
    const operator = await member(app, 'OPERATOR', owner.org);
    expectStatus(await resolve(operator.access, o.id, 'Achada pelo peão'), 200);
    expect((await animal(animalIds[0]!)).str_status).toBe('ACTIVE');
  });

  test('cross-tenant: another organization gets 404 on read, resolve and dismiss, and none in its lists', async () => {
    const { owner, unit } = await setup();
    const o = (await report(owner.access, { str_type: 'OTHER', control_unit_id: unit.unitId, str_description: 'Segredo' })).body.data;
    const stranger = await member(app);
    expect((await app.call('GET', `/api/occurrences/${o.id}`, { token: stranger.access })).status).toBe(404);
    for (const action of ['resolve', 'dismiss']) expect((await resolve(stranger.access, o.id, 'x', action)).status).toBe(404);
    const list = await app.call('POST', '/api/occurrences/search', { token: stranger.access, body: { control_unit_id: unit.unitId } });
    expect(list.body.meta.int_total_results).toBe(0);
    expect((await app.call('GET', `/api/occurrences/${randomUUID()}`, { token: owner.access })).status).toBe(404);
    expect((await app.call('GET', '/api/occurrences/not-a-uuid', { token: owner.access })).status).toBe(400);
    expect((await app.call('GET', '/api/occurrences', {})).status).toBe(401);
    const read = await app.call('GET', `/api/occurrences/${o.id}`, { token: owner.access });
    expect(read.body.data.str_status).toBe('OPEN');
  });
});

describe('replays (client id)', () => {
  test('the same id and body is the same answer, the death applied once; another body is CONFLICT; another case of the id is the same record', async () => {
    const { owner, unit } = await setup();
    const { animalIds } = await animalsStaying(app, unit.unitId, 2);
    const id = randomUUID();
    const body = { id, str_type: 'ANIMAL_DEATH', control_unit_id: unit.unitId, animal_id: animalIds[0], str_description: 'Picada de cobra' };
    const first = await report(owner.access, body);
    const again = await report(owner.access, body);
    expect(again.body).toEqual(first.body);
    const upper = await report(owner.access, { ...body, id: id.toUpperCase() });
    expect(upper.body.data.id).toBe(id);
    // Through GraphQL (no stored REST answer): the core's replay.
    const gql = await app.graphql(`mutation($input: OccurrenceCreateInput!) { createOccurrence(input: $input) { id str_status } }`, { input: body }, owner.access);
    expect(gql.body.data.createOccurrence).toEqual({ id, str_status: 'OPEN' });
    expect(await count(app, 'occurrence where id = ?', [id])).toBe(1);
    expect((await eventsOf(app, 'Animal', animalIds[0]!)).map((e) => e.str_type)).toEqual(['ANIMAL_DIED']);

    const conflict = await post(owner.access, { ...body, animal_id: animalIds[1] });
    expectRefused(conflict, 'CONFLICT', { fields: { id: expect.any(Array) } });
    expect((await animal(animalIds[1]!)).str_status).toBe('ACTIVE');
    // Another organization's reuse of the id is no replay of it.
    const stranger = await setup();
    const theirs = await post(stranger.owner.access, { id, str_type: 'TAG_LOST', control_unit_id: stranger.unit.unitId });
    expect(theirs.body.error).toBe('CONFLICT');
  });
});

describe('socio-environmental status of establishments, propagated to every animal that ever stood there', () => {
  /** A farm in the test county of a fresh organization, with `n` animals staying at it. */
  async function farm(n: number) {
    const { owner, unit } = await setup();
    const stock = await animalsStaying(app, unit.unitId, n, new Date(Date.now() - 10 * 86_400_000));
    return { owner, unit, animalIds: stock.animalIds };
  }
  const socio = async (ids: string[]) =>
    Object.fromEntries((await rows<{ id: string; s: string }>(app, 'select id, str_socioenvironmental_status as s from animal where id = any(array[?]::uuid[])', [ids])).map((r) => [r.id, r.s]));
  const setSocio = async (token: string, establishmentId: string, status: string) => {
    const res = await app.call('PATCH', `/api/establishments/${establishmentId}`, { token, body: { str_socioenvironmental_status: status } });
    expectStatus(res, 200);
    return res;
  };
  const alertsAt = (unitId: string) => rows<{ id: string; str_description: string; str_status: string }>(app, "select id, str_description, str_status from occurrence where control_unit_id = ? and str_type = 'SOCIOENVIRONMENTAL_ALERT'", [unitId]);

  test('animals that once stood in an establishment turn NON_COMPLIANT when it does; each current holding gets one alert; one event on the establishment with the counts', async () => {
    const authority = await official(app, county.id);
    const origin = await farm(4);
    const other = await farm(2);
    const dead = await animalsStaying(app, origin.unit.unitId, 1, new Date(Date.now() - 10 * 86_400_000));
    // Two animals of the origin went to the other farm (another organization); one died at the origin.
    await moveAnimals(app, origin.animalIds.slice(0, 2), other.unit.unitId);
    await rows(app, "update animal set str_status = 'DEAD' where id = ?", [dead.animalIds[0]]);

    await setSocio(authority.access, origin.unit.establishmentId, 'NON_COMPLIANT');
    const everyone = [...origin.animalIds, ...other.animalIds, dead.animalIds[0]!];
    const after = await socio(everyone);
    for (const id of [...origin.animalIds, dead.animalIds[0]!]) expect(after[id]).toBe('NON_COMPLIANT');
    for (const id of other.animalIds) expect(after[id]).toBe('NOT_EVALUATED');

    // The other farm hears of its two indirect-supplier animals; the origin of its two still there (the dead one is no holding's).
    const there = await alertsAt(other.unit.unitId);
    expect(there).toHaveLength(1);
    expect(there[0]!.str_description).toMatch(/^2 animal\(s\) here .* changed from NOT_EVALUATED to NON_COMPLIANT$/);
    expect(await alertsAt(origin.unit.unitId)).toHaveLength(1);
    const seen = await app.call('GET', '/api/occurrences?str_type=SOCIOENVIRONMENTAL_ALERT', { token: other.owner.access });
    expect(seen.body.data.map((o: { id: string }) => o.id)).toEqual([there[0]!.id]);
    expect(seen.body.data[0]).toMatchObject({ str_status: 'OPEN', reporter_user_id: null });
    expectStatus(await resolve(other.owner.access, there[0]!.id, 'Lote separado para auditoria'), 200);

    const events = await eventsOf(app, 'Establishment', origin.unit.establishmentId);
    expect(events.map((e) => e.str_type)).toEqual(['ESTABLISHMENT_SOCIOENVIRONMENTAL_STATUS_CHANGED', 'ESTABLISHMENT_ANIMALS_SOCIOENVIRONMENTAL_RECOMPUTED']);
    expect(events[1]!.payload).toMatchObject({
      changes: { int_animals_changed: 5, int_animals_worse: 5, int_animals_better: 0, int_alerts: 2 },
      refs: { str_socioenvironmental_status: { from: 'NOT_EVALUATED', to: 'NON_COMPLIANT' } },
    });
    expect(await count(app, 'event where str_record_type = ? and record_id = any(array[?]::uuid[])', ['Animal', everyone])).toBe(0);

    // The other farm turns COMPLIANT: its animals take the worst of where they stood (the moved ones stay NON_COMPLIANT), no alert for better news.
    await setSocio(authority.access, other.unit.establishmentId, 'COMPLIANT');
    const later = await socio(everyone);
    for (const id of other.animalIds) expect(later[id]).toBe('COMPLIANT');
    for (const id of origin.animalIds) expect(later[id]).toBe('NON_COMPLIANT');
    expect(await alertsAt(other.unit.unitId)).toHaveLength(1);
    // The origin is cleared: every animal takes the worst of its stays again.
    await setSocio(authority.access, origin.unit.establishmentId, 'UNDER_REVIEW');
    await setSocio(authority.access, origin.unit.establishmentId, 'COMPLIANT');
    const cleared = await socio(everyone);
    for (const id of [...other.animalIds, ...origin.animalIds, dead.animalIds[0]!]) expect(cleared[id]).toBe('COMPLIANT');
    const last = await eventsOf(app, 'Establishment', origin.unit.establishmentId);
    expect(last.at(-1)!.payload.changes).toMatchObject({ int_animals_worse: 0, int_animals_better: 5, int_alerts: 0 });
  });

  test('the propagation runs a number of statements that does not grow with the animals', async () => {
    const authority = await official(app, county.id);
    const statements = async (n: number) => {
      const origin = await farm(n);
      const other = await farm(1);
      await moveAnimals(app, origin.animalIds.slice(0, Math.ceil(n / 2)), other.unit.unitId);
      const worse = await setSocio(authority.access, origin.unit.establishmentId, 'NON_COMPLIANT');
      expect(await count(app, "animal where id = any(array[?]::uuid[]) and str_socioenvironmental_status = 'NON_COMPLIANT'", [origin.animalIds])).toBe(n);
      // Better news takes every stay of every animal into account: the same statements too.
      const better = await setSocio(authority.access, origin.unit.establishmentId, 'COMPLIANT');
      expect(await count(app, "animal where id = any(array[?]::uuid[]) and str_socioenvironmental_status = 'NOT_EVALUATED'", [origin.animalIds])).toBe(Math.ceil(n / 2));
      return [worse.sql, better.sql];
    };
    const small = await statements(2);
    const large = await statements(60);
    expect(small.every(Number.isFinite)).toBe(true);
    expect(large).toEqual(small);
  });
});
