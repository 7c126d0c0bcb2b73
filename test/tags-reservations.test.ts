import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { count, rows } from './helpers/db.js';
import { fieldWork, identify, animalBody } from './helpers/identify.js';
import { ISO_Z, UUID_RE } from './helpers/places.js';
import { makeUnit, stockTags } from './helpers/tags.js';

const app = useApp();

const KEYS = ['id', 'str_name', 'int_quantity', 'str_status', 'ts_created_at', 'ts_updated_at', 'control_unit', 'control_unit_id', 'operator_user_id', 'str_begin', 'str_description', 'str_finish', 'str_label'].sort();

const reserve = (token: string, reservations: Record<string, unknown>[]) => app.call('POST', '/api/tags-reservations', { token, body: { reservations } });

const tagsOf = (reservationId: string) => rows<{ str_code: string; str_status: string }>(app, 'select str_code, str_status from tag where tags_reservation_id = ? order by str_code', [reservationId]);
const statusOf = async (codes: string[]) => (await rows<{ str_code: string; str_status: string; tags_reservation_id: string | null }>(app, 'select str_code, str_status, tags_reservation_id from tag where str_code in (?) order by str_code', [codes]));

describe('POST /api/tags-reservations', () => {
  test('by range: 201 {data: [Tags Reservation]}, every code RESERVED to it, one event naming the codes', async () => {
    const { owner, unit, stock } = await fieldWork(app);
    const res = await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'Lote 1', str_begin: stock.codes[2], str_finish: stock.codes[5], str_label: 'L1' }]);
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(1);
    const r = res.body.data[0];
    expect(Object.keys(r).sort()).toEqual(KEYS);
    expect(r).toMatchObject({
      str_name: 'Lote 1',
      int_quantity: 4,
      str_status: 'ACTIVE',
      control_unit_id: unit.unitId,
      operator_user_id: owner.user.id,
      str_begin: stock.codes[2],
      str_finish: stock.codes[5],
      str_label: 'L1',
      str_description: null,
    });
    expect(r.id).toMatch(UUID_RE);
    expect(r.control_unit).toMatchObject({ id: unit.unitId, str_code: unit.code, establishment: { id: unit.establishmentId } });
    for (const f of ['ts_created_at', 'ts_updated_at']) expect(r[f]).toMatch(ISO_Z);
    expect(await tagsOf(r.id)).toEqual(stock.codes.slice(2, 6).map((c) => ({ str_code: c, str_status: 'RESERVED' })));
    expect(await count(app, "tag where tags_box_id = ? and str_status = 'AVAILABLE'", [stock.boxId])).toBe(6);
    const events = await rows<{ str_type: string; str_payload: string }>(app, `select str_type, str_payload from event where str_record_type = 'TagsReservation' and record_id = ?`, [r.id]);
    expect(events.map((e) => e.str_type)).toEqual(['TAGS_RESERVATION_CREATED']);
    expect(JSON.parse(events[0]!.str_payload).changes.lst_tag_code_ranges).toEqual([[stock.codes[2], stock.codes[5]]]);
  });

  test('by quantity: the lowest AVAILABLE codes of the unit, each item of one body after the ones before it', async () => {
    const { owner, unit, stock } = await fieldWork(app);
    const first = await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'Meio', str_begin: stock.codes[1], str_finish: stock.codes[2] }]);
    expect(first.status).toBe(201);
    const res = await reserve(owner.access, [
      { control_unit_id: unit.unitId, str_name: 'A', int_quantity: 2 },
      { control_unit_id: unit.unitId, str_name: 'B', int_quantity: 3 },
    ]);
    expect(res.status).toBe(201);
    const [a, b] = res.body.data;
    expect([a.str_name, a.int_quantity, a.str_begin, a.str_finish]).toEqual(['A', 2, null, null]);
    expect((await tagsOf(a.id)).map((t) => t.str_code)).toEqual([stock.codes[0], stock.codes[3]]);
    expect((await tagsOf(b.id)).map((t) => t.str_code)).toEqual(stock.codes.slice(4, 7));
    const [event] = await rows<{ str_payload: string }>(app, `select str_payload from event where record_id = ?`, [a.id]);
    expect(JSON.parse(event!.str_payload).changes.lst_tag_code_ranges).toEqual([[stock.codes[0], stock.codes[0]], [stock.codes[3], stock.codes[3]]]);
  });

  test('a range with a code that is RESERVED, missing or elsewhere: 422 INVALID_STATE naming each code and path; nothing of the body is written', async () => {
    const { owner, unit, stock } = await fieldWork(app, 5);
    const other = await makeUnit(app, owner.org.id);
    const elsewhere = await stockTags(app, other.unitId, 2);
    expect((await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'Antes', str_begin: stock.codes[1], str_finish: stock.codes[1] }])).status).toBe(201);
    const before = await count(app, 'tags_reservation where control_unit_id = ?', [unit.unitId]);
    const res = await reserve(owner.access, [
      { control_unit_id: unit.unitId, str_name: 'Boa', int_quantity: 1 },
      { control_unit_id: unit.unitId, str_name: 'Ruim', str_begin: stock.codes[0], str_finish: stock.codes[2] },
      { control_unit_id: unit.unitId, str_name: 'Fora', str_begin: elsewhere.codes[0], str_finish: elsewhere.codes[0] },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('INVALID_STATE');
    expect(res.body.detail.allowed).toEqual(['AVAILABLE']);
    expect(res.body.detail.int_offending).toBe(2);
    expect(res.body.detail.tags).toEqual([
      { str_code: stock.codes[1], str_status: 'RESERVED', path: 'reservations[1]' },
      { str_code: elsewhere.codes[0], str_status: null, path: 'reservations[2]' },
    ]);
    expect(await count(app, 'tags_reservation where control_unit_id = ?', [unit.unitId])).toBe(before);
    expect((await statusOf(stock.codes)).map((t) => t.str_status)).toEqual(['AVAILABLE', 'RESERVED', 'AVAILABLE', 'AVAILABLE', 'AVAILABLE']);
  });

  test('fewer AVAILABLE tags than a quantity asks for: 422 RULE_VIOLATED naming the rule; nothing written', async () => {
    const { owner, unit, stock } = await fieldWork(app, 4);
    const res = await reserve(owner.access, [
      { control_unit_id: unit.unitId, str_name: 'Faixa', str_begin: stock.codes[0], str_finish: stock.codes[0] },
      { control_unit_id: unit.unitId, str_name: 'Muitas', int_quantity: 4 },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('RULE_VIOLATED');
    expect(res.body.detail.rule).toBe('ENOUGH_AVAILABLE_TAGS');
    expect(res.body.detail.reservations).toEqual([{ path: 'reservations[1]', control_unit_id: unit.unitId, str_control_unit_code: unit.code, int_quantity: 4, int_available: 3 }]);
    expect(await count(app, 'tags_reservation where control_unit_id = ?', [unit.unitId])).toBe(0);
    expect(await count(app, "tag where tags_box_id = ? and str_status = 'AVAILABLE' and tags_reservation_id is null", [stock.boxId])).toBe(4);
  });

  test('bad bodies: 422 VALIDATION_FAILED naming each path', async () => {
    const { owner, unit, stock } = await fieldWork(app, 4);
    const empty = await reserve(owner.access, []);
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.detail.fields)).toEqual(['reservations']);
    const res = await reserve(owner.access, [
      { str_name: 'sem unidade', int_quantity: 1 },
      { control_unit_id: unit.unitId, str_name: 'nada' },
      { control_unit_id: unit.unitId, str_name: 'invertida', str_begin: stock.codes[2], str_finish: stock.codes[1] },
      { control_unit_id: unit.unitId, str_name: 'conta errada', str_begin: stock.codes[0], str_finish: stock.codes[1], int_quantity: 5 },
      { control_unit_id: unit.unitId, str_begin: 'ABC', str_finish: stock.codes[1], operator_user_id: 'x' },
      { control_unit_id: unit.unitId, str_name: 'zero', int_quantity: 0 },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.detail.fields).sort()).toEqual(
      [
        'reservations[0].control_unit_id',
        'reservations[1]',
        'reservations[2].str_finish',
        'reservations[3].int_quantity',
        'reservations[4].str_name',
        'reservations[4].str_begin',
        'reservations[4].operator_user_id',
        'reservations[5].int_quantity',
      ].sort(),
    );
    const overlap = await reserve(owner.access, [
      { control_unit_id: unit.unitId, str_name: 'a', str_begin: stock.codes[0], str_finish: stock.codes[2] },
      { control_unit_id: unit.unitId, str_name: 'b', str_begin: stock.codes[2], str_finish: stock.codes[3] },
    ]);
    expect(overlap.status).toBe(422);
    expect(overlap.body.detail.fields).toEqual({ 'reservations[1].str_begin': ['overlaps the range of reservations[0]'] });
    const intType = await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'a', int_quantity: 1.5 }]);
    expect(intType.status).toBe(422);
    expect(Object.keys(intType.body.detail.fields)).toEqual(['reservations[0].int_quantity']);
    expect(await count(app, 'tags_reservation where control_unit_id = ?', [unit.unitId])).toBe(0);
  });

  test('client ids: the same item again is a replay (201, same record, no second reservation); another body under the id is a 422 CONFLICT naming its path', async () => {
    const { owner, unit, stock } = await fieldWork(app, 6);
    const id = randomUUID();
    const item = { id, control_unit_id: unit.unitId, str_name: 'Offline', int_quantity: 2, ts_unsafe_client_created_at: '2026-01-02T03:04:05.000Z' };
    const first = await reserve(owner.access, [item]);
    expect(first.status).toBe(201);
    expect(first.body.data[0].id).toBe(id);
    const [stored] = await rows<{ ts_unsafe_client_created_at: Date }>(app, 'select ts_unsafe_client_created_at from tags_reservation where id = ?', [id]);
    expect(new Date(stored!.ts_unsafe_client_created_at).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    const again = await reserve(owner.access, [item, { control_unit_id: unit.unitId, str_name: 'Nova', int_quantity: 1 }]);
    expect(again.status).toBe(201);
    expect(again.body.data[0]).toEqual(first.body.data[0]);
    expect(again.body.data[1].str_name).toBe('Nova');
    expect((await tagsOf(id)).map((t) => t.str_code)).toEqual(stock.codes.slice(0, 2));
    expect((await tagsOf(again.body.data[1].id)).map((t) => t.str_code)).toEqual([stock.codes[2]]);
    const other = await reserve(owner.access, [{ ...item, int_quantity: 3 }]);
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(Object.keys(other.body.detail.fields)).toEqual(['reservations[0].id']);
    expect(await count(app, 'tags_reservation where control_unit_id = ?', [unit.unitId])).toBe(2);
    const twice = await reserve(owner.access, [item, item]);
    expect(twice.status).toBe(422);
    expect(Object.keys(twice.body.detail.fields)).toEqual(['reservations[1].id']);
  });

  test('a VIEWER is refused 403; a stranger names a unit it does not see (422); an operator of the organization reserves for a member', async () => {
    const { owner, unit } = await fieldWork(app, 3);
    const viewer = await member(app, 'VIEWER', owner.org);
    const refused = await reserve(viewer.access, [{ control_unit_id: unit.unitId, str_name: 'x', int_quantity: 1 }]);
    expect(refused.status).toBe(403);
    const stranger = await member(app);
    const invisible = await reserve(stranger.access, [{ control_unit_id: unit.unitId, str_name: 'x', int_quantity: 1 }]);
    expect(invisible.status).toBe(422);
    expect(invisible.body.detail.fields).toEqual({ 'reservations[0].control_unit_id': ['no such control unit'] });
    const notMember = await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'x', int_quantity: 1, operator_user_id: stranger.user.id }]);
    expect(notMember.status).toBe(422);
    expect(Object.keys(notMember.body.detail.fields)).toEqual(['reservations[0].operator_user_id']);
    expect(await count(app, 'tags_reservation where control_unit_id = ?', [unit.unitId])).toBe(0);
    const operator = await member(app, 'OPERATOR', owner.org);
    const ok = await reserve(operator.access, [{ control_unit_id: unit.unitId, str_name: 'x', int_quantity: 1, operator_user_id: viewer.user.id }]);
    expect(ok.status).toBe(201);
    expect(ok.body.data[0].operator_user_id).toBe(viewer.user.id);
  });
});

describe('POST /api/tags-reservations/:id/release', () => {
  test('ACTIVE → RELEASED: its reserved tags AVAILABLE again, an event; releasing again is 422 INVALID_STATE naming the state', async () => {
    const { owner, unit, stock } = await fieldWork(app, 5);
    const [r] = (await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'Solta', int_quantity: 3 }])).body.data;
    const res = await app.call('POST', `/api/tags-reservations/${r.id}/release`, { token: owner.access });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(KEYS);
    expect(res.body.data).toMatchObject({ id: r.id, str_status: 'RELEASED', int_quantity: 3 });
    expect((await statusOf(stock.codes.slice(0, 3))).map((t) => [t.str_status, t.tags_reservation_id])).toEqual(Array(3).fill(['AVAILABLE', null]));
    const events = await rows<{ str_type: string; str_payload: string }>(app, `select str_type, str_payload from event where record_id = ? order by seq`, [r.id]);
    expect(events.map((e) => e.str_type)).toEqual(['TAGS_RESERVATION_CREATED', 'TAGS_RESERVATION_RELEASED']);
    expect(JSON.parse(events[1]!.str_payload).changes).toEqual({ str_status: { from: 'ACTIVE', to: 'RELEASED' }, int_released: 3, lst_tag_code_ranges: [[stock.codes[0], stock.codes[2]]] });
    const again = await app.call('POST', `/api/tags-reservations/${r.id}/release`, { token: owner.access });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('INVALID_STATE');
    expect(again.body.detail).toMatchObject({ str_status: 'RELEASED', allowed: ['ACTIVE'] });
  });

  test('a reservation whose tags were all applied is USED and cannot be released; a partly used one releases the rest', async () => {
    const { owner, unit, stock } = await fieldWork(app, 6);
    const [full, part] = (
      await reserve(owner.access, [
        { control_unit_id: unit.unitId, str_name: 'Toda', int_quantity: 2 },
        { control_unit_id: unit.unitId, str_name: 'Parte', int_quantity: 2 },
      ])
    ).body.data;
    await identify(app, owner.access, unit, [animalBody(stock.codes[0]!), animalBody(stock.codes[1]!), animalBody(stock.codes[2]!)]);
    const used = await app.call('GET', `/api/tags-reservations/${full.id}`, { token: owner.access });
    expect(used.body.data.str_status).toBe('USED');
    expect((await rows<{ str_type: string }>(app, 'select str_type from event where record_id = ? order by seq', [full.id])).map((e) => e.str_type)).toEqual(['TAGS_RESERVATION_CREATED', 'TAGS_RESERVATION_USED']);
    const refused = await app.call('POST', `/api/tags-reservations/${full.id}/release`, { token: owner.access });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatchObject({ str_status: 'USED', allowed: ['ACTIVE'] });
    expect((await app.call('GET', `/api/tags-reservations/${part.id}`, { token: owner.access })).body.data.str_status).toBe('ACTIVE');
    const released = await app.call('POST', `/api/tags-reservations/${part.id}/release`, { token: owner.access });
    expect(released.body.data.str_status).toBe('RELEASED');
    expect((await statusOf(stock.codes.slice(2, 4))).map((t) => t.str_status)).toEqual(['APPLIED', 'AVAILABLE']);
  });

  test('a stranger gets 404, a VIEWER of the organization 403; nothing changes', async () => {
    const { owner, unit } = await fieldWork(app, 2);
    const [r] = (await reserve(owner.access, [{ control_unit_id: unit.unitId, str_name: 'x', int_quantity: 1 }])).body.data;
    expect((await app.call('POST', `/api/tags-reservations/${r.id}/release`, { token: (await member(app)).access })).status).toBe(404);
    expect((await app.call('POST', `/api/tags-reservations/${r.id}/release`, { token: (await member(app, 'VIEWER', owner.org)).access })).status).toBe(403);
    expect((await rows<{ str_status: string }>(app, 'select str_status from tags_reservation where id = ?', [r.id]))[0]!.str_status).toBe('ACTIVE');
  });
});

describe('reading tags reservations', () => {
  test('index and search: Tags Reservation Partial Data, filters, paging; a stranger sees none and reads 404', async () => {
    const { owner, unit, stock } = await fieldWork(app, 8);
    const made = (
      await reserve(owner.access, [
        { control_unit_id: unit.unitId, str_name: 'Bezerros Março', int_quantity: 2, str_description: 'maternidade' },
        { control_unit_id: unit.unitId, str_name: 'Garrotes', str_begin: stock.codes[5], str_finish: stock.codes[6] },
      ])
    ).body.data;
    const index = await app.call('GET', '/api/tags-reservations', { token: owner.access });
    expect(index.status).toBe(200);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
    const partial = index.body.data.find((r: { id: string }) => r.id === made[0].id);
    expect(Object.keys(partial).sort()).toEqual(KEYS);
    expect(Object.keys(partial.control_unit).sort()).toEqual(['id', 'str_code', 'str_responsible_user_name', 'ts_created_at', 'ts_updated_at']);
    const search = async (body: unknown) => (await app.call('POST', '/api/tags-reservations/search', { token: owner.access, body })).body.data.map((r: { id: string }) => r.id);
    expect(await search({ str_query: 'marco' })).toEqual([made[0].id]);
    expect(await search({ str_tag_code: stock.codes[6] })).toEqual([made[1].id]);
    expect(await search({ establishment_id: unit.establishmentId, str_status: 'ACTIVE', int_quantity: 2 })).toHaveLength(2);
    expect(await search({ str_begin: stock.codes[5] })).toEqual([made[1].id]);
    const stranger = await member(app);
    expect((await app.call('GET', '/api/tags-reservations', { token: stranger.access })).body.meta.int_total_results).toBe(0);
    expect((await app.call('GET', `/api/tags-reservations/${made[0].id}`, { token: stranger.access })).status).toBe(404);
    const bad = await app.call('POST', '/api/tags-reservations/search', { token: owner.access, body: { str_colour: 'x' } });
    expect(bad.status).toBe(422);
  });

  test('creating 2 or 20 reservations, and listing them, run the same number of statements', async () => {
    const statements = async (n: number) => {
      const { owner, unit } = await fieldWork(app, 40);
      const created = await reserve(owner.access, Array.from({ length: n }, (_, i) => ({ control_unit_id: unit.unitId, str_name: `R${i}`, int_quantity: 1, id: randomUUID() })));
      expect(created.status).toBe(201);
      const index = await app.call('GET', '/api/tags-reservations', { token: owner.access });
      const read = await app.call('GET', `/api/tags-reservations/${created.body.data[0].id}`, { token: owner.access });
      expect(index.body.data).toHaveLength(n);
      return [created.sql, index.sql, read.sql];
    };
    expect(await statements(20)).toEqual(await statements(2));
  });
});

describe('GraphQL', () => {
  test('createTagsReservations, releaseTagsReservation, tagsReservations with relations', async () => {
    const { owner, unit } = await fieldWork(app, 3);
    const created = await app.graphql(
      'mutation($input: TagsReservationCreateInput!) { createTagsReservations(input: $input) { id str_status operator_user { id } control_unit { str_code } } }',
      { input: { reservations: [{ control_unit_id: unit.unitId, str_name: 'gql', int_quantity: 1 }] } },
      owner.access,
    );
    expect(created.body.errors).toBeUndefined();
    const [r] = created.body.data.createTagsReservations;
    expect(r).toMatchObject({ str_status: 'ACTIVE', operator_user: { id: owner.user.id }, control_unit: { str_code: unit.code } });
    const released = await app.graphql('mutation($id: UUID!) { releaseTagsReservation(id: $id) { str_status } }', { id: r.id }, owner.access);
    expect(released.body.data.releaseTagsReservation.str_status).toBe('RELEASED');
    const list = await app.graphql('{ tagsReservations { data { id } meta { int_total_results } } }', {}, owner.access);
    expect(list.body.data.tagsReservations.data.map((x: { id: string }) => x.id)).toEqual([r.id]);
  });
});
