import { randomUUID } from 'node:crypto';
import { expectStatus, useApp } from './helpers/app.js';
import { count } from './helpers/db.js';
import { member, official } from './helpers/factories.js';
import { ISO_Z, useCounty } from './helpers/places.js';
import { makeUnit } from './helpers/tags.js';

const app = useApp();
const county = useCounty(app);

const DAY = 86_400_000;

const place = async (orgId: string): Promise<string> => (await makeUnit(app, orgId, county)).code;

async function setup() {
  const caller = await official(app, county.id, 'INTEGRATION');
  const from = await place((await member(app)).org.id);
  const to = await place((await member(app)).org.id);
  const body = {
    ds_uf: county.str_federative_unit, ds_serie_gta: 'E', nr_gta: `${Math.floor(Math.random() * 1e9)}`, id_gta: `SEFAZ-${randomUUID().slice(0, 8)}`,
    int_animal_quantity: 30, str_from_control_unit_code: from, str_to_control_unit_code: to, str_purpose: 'SLAUGHTER', ts_valid_until: new Date(Date.now() + 5 * DAY).toISOString(),
  };
  return { caller, body };
}

/** Everything an integration call could write, for this caller and this GTA number: GTAs, their events, the caller's events. */
const written = async (callerId: string, code: string) => ({
  gtas: await count(app, 'gta where str_code = ? or issuer_user_id = ?', [code, callerId]),
  gtaEvents: await count(app, "event where str_record_type = 'Gta' and record_id in (select id from gta where str_code = ?)", [code]),
  callerEvents: await count(app, 'event where actor_id = ?', [callerId]),
  updatedGtas: await count(app, 'gta where str_code = ? and ts_updated_at <> ts_created_at', [code]),
});

/** A GTA's answer without what differs between two calls of the same body: its new id and the times. */
const sameGta = (g: Record<string, unknown>) => Object.fromEntries(Object.entries(g).filter(([k]) => !['id', 'ts_created_at', 'ts_updated_at', 'ts_issued_at'].includes(k)));

describe('Integration QA', () => {
  test('GET /api/v1/qa/ping: who the caller is, its UF, whether the integration answers it, the server time', async () => {
    const caller = await official(app, county.id, 'INTEGRATION');
    const before = Date.now();
    const res = await app.call('GET', '/api/v1/qa/ping', { token: caller.access });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ user_id: caller.user.id, organization_id: null, str_user_type: 'INTEGRATION', str_federative_unit: county.str_federative_unit, bl_integration_allowed: true, str_integration_refusal: null });
    expect(res.body.data.ts_server_time).toMatch(ISO_Z);
    expect(Math.abs(Date.parse(res.body.data.ts_server_time) - before)).toBeLessThan(60_000);
    const producer = await member(app);
    const refused = await app.call('GET', '/api/v1/qa/ping', { token: producer.access });
    expect(refused.body.data).toMatchObject({ user_id: producer.user.id, organization_id: producer.org.id, str_user_type: 'PRODUCER', str_federative_unit: null, bl_integration_allowed: false, str_integration_refusal: 'only INTEGRATION and AUTHORITY users call the state integration' });
    expect((await app.call('GET', '/api/v1/qa/ping')).status).toBe(401);
  });

  test('POST /api/v1/qa/gta/notificar answers the GTA the real call would store (200) and writes nothing; the real call then stores exactly that', async () => {
    const { caller, body } = await setup();
    const before = await written(caller.user.id, body.nr_gta);
    const qa = await app.call('POST', '/api/v1/qa/gta/notificar', { token: caller.access, body });
    expectStatus(qa, 200);
    expect(qa.body.data).toMatchObject({ str_code: body.nr_gta, str_series: 'E', str_federative_unit: county.str_federative_unit, str_status: 'ISSUED', int_animal_quantity: 30, str_external_id: body.id_gta });
    expect(await written(caller.user.id, body.nr_gta)).toEqual(before);
    expect(before.gtas).toBe(0);
    // Twice: nothing was stored the first time, so the second answers a new GTA too.
    expectStatus(await app.call('POST', '/api/v1/qa/gta/notificar', { token: caller.access, body }), 200);
    expect(await written(caller.user.id, body.nr_gta)).toEqual(before);

    const real = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body });
    expectStatus(real, 201);
    expect(sameGta(real.body.data)).toEqual(sameGta(qa.body.data));
    const after = await written(caller.user.id, body.nr_gta);
    expect(after.gtas).toBe(1);
    // A notification completing the stored GTA: the QA answer has what would be filled in, the row keeps what it had.
    const incomplete = { ...body, nr_gta: `${body.nr_gta}9`, int_animal_quantity: undefined, str_purpose: undefined };
    expectStatus(await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: incomplete }), 201);
    const stored = await written(caller.user.id, incomplete.nr_gta);
    const completion = await app.call('POST', '/api/v1/qa/gta/notificar', { token: caller.access, body: { ...incomplete, int_animal_quantity: 12, str_purpose: 'FATTENING' } });
    expectStatus(completion, 200);
    expect(completion.body.data).toMatchObject({ int_animal_quantity: 12, str_purpose: 'FATTENING' });
    expect(await written(caller.user.id, incomplete.nr_gta)).toEqual(stored);
    expect(await count(app, 'gta where str_code = ? and int_animal_quantity is null', [incomplete.nr_gta])).toBe(1);
  });

  test('bad notificar and cancelar bodies: the same status and error body as the real calls, nothing written', async () => {
    const { caller, body } = await setup();
    const before = await written(caller.user.id, body.nr_gta);
    const bads = [
      { ...body, str_purpose: 'PICNIC', str_from_control_unit_code: 'NOPE-1', int_animal_quantity: -1 },
      { ...body, nr_gta: undefined, ds_uf: undefined },
      { ...body, ds_uf: county.str_federative_unit === 'SP' ? 'MG' : 'SP' },
    ];
    for (const bad of bads) {
      const real = await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body: bad });
      const qa = await app.call('POST', '/api/v1/qa/gta/notificar', { token: caller.access, body: bad });
      expect([403, 422]).toContain(real.status);
      expect({ status: qa.status, body: qa.body }).toEqual({ status: real.status, body: real.body });
    }
    const cancel = { ds_uf: body.ds_uf, ds_serie_gta: 'E', nr_gta: `none-${randomUUID()}` };
    const real = await app.call('POST', '/api/v1/gta/cancelar', { token: caller.access, body: cancel });
    const qa = await app.call('POST', '/api/v1/qa/gta/cancelar', { token: caller.access, body: cancel });
    expect(real.status).toBe(404);
    expect({ status: qa.status, body: qa.body }).toEqual({ status: real.status, body: real.body });
    const producer = await member(app);
    const forbidden = await app.call('POST', '/api/v1/qa/gta/notificar', { token: producer.access, body });
    expect({ status: forbidden.status, error: forbidden.body.error }).toEqual({ status: 403, error: 'FORBIDDEN' });
    expect(await written(caller.user.id, body.nr_gta)).toEqual(before);
  });

  test('POST /api/v1/qa/gta/cancelar answers the GTA CANCELLED as the real call would leave it, and the GTA stays ISSUED with its events unchanged (REST and GraphQL)', async () => {
    const { caller, body } = await setup();
    const gta = (await app.call('POST', '/api/v1/gta/notificar', { token: caller.access, body })).body.data;
    const before = await written(caller.user.id, body.nr_gta);
    const cancel = { ds_uf: body.ds_uf, ds_serie_gta: body.ds_serie_gta, nr_gta: body.nr_gta };
    const qa = await app.call('POST', '/api/v1/qa/gta/cancelar', { token: caller.access, body: cancel });
    expectStatus(qa, 200);
    expect(qa.body.data).toMatchObject({ id: gta.id, str_status: 'CANCELLED' });
    const gql = await app.graphql(`mutation($i: IntegrationGtaInput!) { qaGtaCancelar(input: $i) { id str_status } }`, { i: cancel }, caller.access);
    expect(gql.body).toEqual({ data: { qaGtaCancelar: { id: gta.id, str_status: 'CANCELLED' } } });
    expect(await written(caller.user.id, body.nr_gta)).toEqual(before);
    expect((await app.call('GET', `/api/gtas/${gta.id}`, { token: caller.access })).body.data.str_status).toBe('ISSUED');
    const real = await app.call('POST', '/api/v1/gta/cancelar', { token: caller.access, body: cancel });
    expect(sameGta(real.body.data)).toEqual(sameGta(qa.body.data));
    expect((await written(caller.user.id, body.nr_gta)).gtaEvents).toBe(before.gtaEvents + 1);
  });
});
