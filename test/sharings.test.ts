import { randomUUID } from 'node:crypto';
import { expectStatus, useApp } from './helpers/app.js';
import { TestClock } from './helpers/clock.js';
import { count, rows } from './helpers/db.js';
import { login, makeUser, member } from './helpers/factories.js';
import { ISO_Z, UUID_RE } from './helpers/places.js';
import { SHARING_KEYS, share } from './helpers/sharing.js';
import { makeUnit } from './helpers/tags.js';

const clock = new TestClock();
const app = useApp({}, clock);
afterEach(() => clock.release());

/** An owner of a fresh organization with one establishment and unit, and a user and an organization to share with. */
async function scene() {
  const owner = await member(app);
  const unit = await makeUnit(app, owner.org.id);
  const grantee = await member(app);
  const orgMember = await member(app, 'VIEWER');
  return { owner, unit, grantee, orgMember };
}

const SHARING_FIELDS = `id organization_id bl_deactivated_manually str_status str_name str_description users { id str_name } organizations { id str_name }
  accesses { establishment_id str_establishment_name control_unit_id str_control_unit_code str_scope } ts_scheduled_to ts_expires_at ts_created_at ts_updated_at`;

describe('sharing operations over REST', () => {
  test('create answers 201 with the Sharing record: grantees by name, accesses in the order given with their places, status derived', async () => {
    const { owner, unit, grantee, orgMember } = await scene();
    const res = await app.call('POST', '/api/sharings', {
      token: owner.access,
      body: {
        str_name: ' Frigorífico parceiro ',
        str_description: 'Rastreio do lote',
        lst_user_ids: [grantee.user.id.toUpperCase(), grantee.user.id],
        lst_org_ids: [orgMember.org.id],
        accesses: [
          { control_unit_id: unit.unitId, str_scope: 'ANIMALS' },
          { establishment_id: unit.establishmentId, str_scope: 'MOVEMENTS' },
          { establishment_id: unit.establishmentId, control_unit_id: unit.unitId, str_scope: 'ANIMALS' },
        ],
      },
    });
    expectStatus(res, 201);
    const s = res.body.data;
    expect(Object.keys(s)).toEqual(SHARING_KEYS);
    expect(s).toMatchObject({
      bl_deactivated_manually: false,
      str_status: 'ACTIVE',
      str_name: 'Frigorífico parceiro',
      str_description: 'Rastreio do lote',
      users: [{ id: grantee.user.id, str_name: grantee.user.str_name }],
      organizations: [{ id: orgMember.org.id, str_name: orgMember.org.str_name }],
      accesses: [
        { establishment_id: unit.establishmentId, str_establishment_name: expect.any(String), control_unit_id: unit.unitId, str_control_unit_code: unit.code, str_scope: 'ANIMALS' },
        { establishment_id: unit.establishmentId, str_establishment_name: expect.any(String), control_unit_id: null, str_control_unit_code: null, str_scope: 'MOVEMENTS' },
      ],
      ts_scheduled_to: null,
      ts_expires_at: null,
    });
    expect(s.id).toMatch(UUID_RE);
    expect(s.ts_created_at).toMatch(ISO_Z);
    // A grantee's private data is not the sharer's to read.
    expect(Object.keys(s.users[0])).toEqual(['id', 'str_name']);
    const events = await rows<{ str_type: string }>(app, 'select str_type from event where str_record_type = ? and record_id = ?', ['Sharing', s.id]);
    expect(events.map((e) => e.str_type)).toEqual(['SHARING_CREATED']);
  });

  test('read, index, search (str_status, establishment_id, grantee, str_query), PUT and PATCH change the fields given, DELETE removes it and its grants', async () => {
    const { owner, unit, grantee } = await scene();
    const a = await share(app, owner.access, { str_name: 'Banco', lst_user_ids: [grantee.user.id], accesses: [{ establishment_id: unit.establishmentId, str_scope: 'ALL' }] });
    const b = await share(app, owner.access, { str_name: 'Certificadora', bl_deactivated_manually: true });
    const read = await app.call('GET', `/api/sharings/${a.id.toUpperCase()}`, { token: owner.access });
    expectStatus(read, 200);
    expect(read.body.data).toEqual(a);

    const index = await app.call('GET', '/api/sharings', { token: owner.access });
    expect(index.body.data.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
    expect(index.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 2, int_total_pages: 1 });
    const ids = async (filter: Record<string, unknown>) => (await app.call('POST', '/api/sharings/search', { token: owner.access, body: filter })).body.data.map((s: { id: string }) => s.id);
    expect(await ids({ str_status: 'DEACTIVATED' })).toEqual([b.id]);
    expect(await ids({ str_status: 'ACTIVE' })).toEqual([a.id]);
    expect(await ids({ establishment_id: unit.establishmentId })).toEqual([a.id]);
    expect(await ids({ user_id: grantee.user.id })).toEqual([a.id]);
    expect(await ids({ str_query: 'certif' })).toEqual([b.id]);
    const bad = await app.call('POST', '/api/sharings/search', { token: owner.access, body: { str_status: 'GONE' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.fields.str_status).toEqual(['must be one of DEACTIVATED, SCHEDULED, EXPIRED, ACTIVE']);

    const put = await app.call('PUT', `/api/sharings/${a.id}`, { token: owner.access, body: { str_description: 'novo', lst_user_ids: [] } });
    expectStatus(put, 200);
    expect(put.body.data).toMatchObject({ str_name: 'Banco', str_description: 'novo', users: [], accesses: a.accesses });
    const patch = await app.call('PATCH', `/api/sharings/${a.id}`, { token: owner.access, body: { str_description: null, accesses: [{ control_unit_id: unit.unitId, str_scope: 'TAGS' }] } });
    expectStatus(patch, 200);
    expect(patch.body.data).toMatchObject({ str_description: null, accesses: [{ control_unit_id: unit.unitId, str_scope: 'TAGS' }] });

    const del = await app.call('DELETE', `/api/sharings/${a.id}`, { token: owner.access });
    expect(del.status).toBe(204);
    expect((await app.call('GET', `/api/sharings/${a.id}`, { token: owner.access })).status).toBe(404);
    expect(await count(app, 'sharing_access where sharing_id = ?', [a.id])).toBe(0);
    const events = await rows<{ str_type: string }>(app, 'select str_type from event where str_record_type = ? and record_id = ? order by seq', ['Sharing', a.id]);
    expect(events.map((e) => e.str_type)).toEqual(['SHARING_CREATED', 'SHARING_UPDATED', 'SHARING_UPDATED', 'SHARING_DELETED']);
  });

  test('a create retried with its client id and body answers the first answer; another body under that id is a CONFLICT', async () => {
    const { owner } = await scene();
    const id = randomUUID();
    const first = await share(app, owner.access, { id, str_name: 'Offline' });
    const again = await app.call('POST', '/api/sharings', { token: owner.access, body: { id, str_name: 'Offline' } });
    expectStatus(again, 201);
    expect(again.body.data).toEqual(first);
    const other = await app.call('POST', '/api/sharings', { token: owner.access, body: { id, str_name: 'Outro' } });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('CONFLICT');
    expect(await count(app, 'sharing where id = ?', [id])).toBe(1);
  });

  test('bad bodies are 422 naming the field: name, ids, scope, places of another organization, unknown grantees, an end before the start', async () => {
    const { owner, unit } = await scene();
    const foreign = await makeUnit(app, (await member(app)).org.id);
    const fields = async (body: Record<string, unknown>) => {
      const res = await app.call('POST', '/api/sharings', { token: owner.access, body });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('VALIDATION_FAILED');
      return res.body.detail.fields;
    };
    expect(await fields({})).toEqual({ str_name: ['is required'] });
    expect(await fields({ str_name: 'x', lst_user_ids: ['nope'], accesses: [{ str_scope: 'EVERYTHING' }] })).toEqual({
      'lst_user_ids[0]': ['must be a uuid'],
      'accesses[0].establishment_id': ['establishment_id or control_unit_id is required'],
      'accesses[0].str_scope': ['must be one of ANIMALS, MOVEMENTS, TAGS, ALL'],
    });
    expect(await fields({ str_name: 'x', accesses: [{ establishment_id: foreign.establishmentId, str_scope: 'ALL' }, { control_unit_id: foreign.unitId, str_scope: 'ALL' }, { control_unit_id: randomUUID(), str_scope: 'ALL' }] })).toEqual({
      'accesses[0].establishment_id': ['no such establishment of your organization'],
      'accesses[1].control_unit_id': ['no such control unit of your organization'],
      'accesses[2].control_unit_id': ['no such control unit of your organization'],
    });
    expect(await fields({ str_name: 'x', accesses: [{ establishment_id: foreign.establishmentId, control_unit_id: unit.unitId, str_scope: 'ALL' }] })).toEqual({
      'accesses[0].establishment_id': ['is not the establishment of control_unit_id'],
    });
    expect(await fields({ str_name: 'x', lst_user_ids: [randomUUID()], lst_org_ids: [owner.org.id, randomUUID()] })).toEqual({ 'lst_user_ids[0]': ['no such user'], 'lst_org_ids[1]': ['no such organization'] });
    const t = Date.now() + 3_600_000;
    expect(await fields({ str_name: 'x', ts_scheduled_to: new Date(t).toISOString(), ts_expires_at: new Date(t).toISOString() })).toEqual({ ts_expires_at: ['must be after ts_scheduled_to'] });
    const bad = await app.call('POST', '/api/sharings', { token: owner.access, body: { str_name: 'x', ts_expires_at: 'tomorrow' } });
    expect(bad.status).toBe(422);
    expect(await count(app, 'sharing where organization_id = ?', [owner.org.id])).toBe(0);
  });

  test('owners and managers share; operators and viewers are 403; other organizations and the grantees see no sharing (404)', async () => {
    const { owner, unit, grantee } = await scene();
    const manager = await member(app, 'MANAGER', owner.org);
    const operator = await member(app, 'OPERATOR', owner.org);
    const s = await share(app, manager.access, { lst_user_ids: [grantee.user.id], accesses: [{ control_unit_id: unit.unitId, str_scope: 'ALL' }] });
    expect((await app.call('POST', '/api/sharings', { token: operator.access, body: { str_name: 'x' } })).status).toBe(403);
    expect((await app.call('PATCH', `/api/sharings/${s.id}`, { token: operator.access, body: { bl_deactivated_manually: true } })).status).toBe(403);
    expect((await app.call('DELETE', `/api/sharings/${s.id}`, { token: operator.access })).status).toBe(403);
    expectStatus(await app.call('GET', `/api/sharings/${s.id}`, { token: operator.access }), 200);
    for (const token of [grantee.access, (await member(app)).access]) {
      expect((await app.call('GET', `/api/sharings/${s.id}`, { token })).status).toBe(404);
      expect((await app.call('PATCH', `/api/sharings/${s.id}`, { token, body: { bl_deactivated_manually: true } })).status).toBe(404);
      expect((await app.call('DELETE', `/api/sharings/${s.id}`, { token })).status).toBe(404);
      expect((await app.call('GET', '/api/sharings', { token })).body.meta.int_total_results).toBe(0);
    }
    const noOrg = await login(app, await makeUser(app));
    expect((await app.call('POST', '/api/sharings', { token: noOrg.access, body: { str_name: 'x' } })).status).toBe(403);
    expect((await app.call('GET', `/api/sharings/${randomUUID()}`, { token: owner.access })).status).toBe(404);
    expect((await app.call('GET', '/api/sharings/not-a-uuid', { token: owner.access })).status).toBe(400);
  });
});

describe('sharing operations over GraphQL', () => {
  test('createSharing, sharing, sharings, updateSharing, deleteSharing: the same record and rules as REST', async () => {
    const { owner, unit, grantee } = await scene();
    const created = await app.graphql(
      `mutation($input: SharingCreateInput!) { createSharing(input: $input) { ${SHARING_FIELDS} } }`,
      { input: { str_name: 'Via GraphQL', lst_user_ids: [grantee.user.id], accesses: [{ establishment_id: unit.establishmentId, str_scope: 'TAGS' }] } },
      owner.access,
    );
    expect(created.body.errors).toBeUndefined();
    const s = created.body.data.createSharing;
    expect(s).toMatchObject({ organization_id: owner.org.id, str_status: 'ACTIVE', users: [{ id: grantee.user.id }], accesses: [{ establishment_id: unit.establishmentId, control_unit_id: null, str_scope: 'TAGS' }] });
    const read = await app.graphql(`query($id: UUID!) { sharing(id: $id) { ${SHARING_FIELDS} } }`, { id: s.id }, owner.access);
    expect(read.body.data.sharing).toEqual(s);
    const list = await app.graphql(`{ sharings(where: { str_status: "ACTIVE" }, orderBy: { field: str_name }) { data { id users { id } accesses { str_scope } } meta { int_total_results } } }`, {}, owner.access);
    expect(list.body.data.sharings).toEqual({ data: [{ id: s.id, users: [{ id: grantee.user.id }], accesses: [{ str_scope: 'TAGS' }] }], meta: { int_total_results: 1 } });
    const updated = await app.graphql(`mutation($id: UUID!) { updateSharing(id: $id, input: { bl_deactivated_manually: true }) { str_status bl_deactivated_manually } }`, { id: s.id }, owner.access);
    expect(updated.body.data.updateSharing).toEqual({ str_status: 'DEACTIVATED', bl_deactivated_manually: true });
    const refused = await app.graphql(`mutation { createSharing(input: { str_name: "x", accesses: [{ control_unit_id: "${randomUUID()}", str_scope: "ALL" }] }) { id } }`, {}, owner.access);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { 'accesses[0].control_unit_id': ['no such control unit of your organization'] } } });
    const hidden = await app.graphql(`query($id: UUID!) { sharing(id: $id) { id } }`, { id: s.id }, grantee.access);
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const deleted = await app.graphql(`mutation($id: UUID!) { deleteSharing(id: $id) }`, { id: s.id }, owner.access);
    expect(deleted.body.data.deleteSharing).toBe(true);
  });
});

describe('str_status on a clock the test holds', () => {
  test('SCHEDULED before ts_scheduled_to, ACTIVE from it, EXPIRED from ts_expires_at to the millisecond, DEACTIVATED whatever the dates', async () => {
    const { owner } = await scene();
    const start = new Date(Date.UTC(2031, 0, 1, 12));
    const end = new Date(start.getTime() + 86_400_000);
    const s = await share(app, owner.access, { ts_scheduled_to: start.toISOString(), ts_expires_at: end.toISOString() });
    const status = async () => (await app.call('GET', `/api/sharings/${s.id}`, { token: owner.access })).body.data.str_status;
    const searched = async (str_status: string) => (await app.call('POST', '/api/sharings/search', { token: owner.access, body: { str_status } })).body.data.map((x: { id: string }) => x.id);
    const at = async (t: number, expected: string) => {
      clock.set(new Date(t));
      expect(await status()).toBe(expected);
      expect(await searched(expected)).toEqual([s.id]);
    };
    await at(start.getTime() - 1, 'SCHEDULED');
    await at(start.getTime(), 'ACTIVE');
    await at(end.getTime() - 1, 'ACTIVE');
    await at(end.getTime(), 'EXPIRED');
    expectStatus(await app.call('PATCH', `/api/sharings/${s.id}`, { token: owner.access, body: { bl_deactivated_manually: true } }), 200);
    for (const t of [start.getTime() - 1, start.getTime(), end.getTime()]) await at(t, 'DEACTIVATED');
    expectStatus(await app.call('PATCH', `/api/sharings/${s.id}`, { token: owner.access, body: { bl_deactivated_manually: false, ts_expires_at: null } }), 200);
    await at(end.getTime() + 365 * 86_400_000, 'ACTIVE');
  });
});
