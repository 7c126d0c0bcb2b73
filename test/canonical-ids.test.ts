import { randomUUID } from 'node:crypto';
import { verifyChain } from '../src/shared/events.js';
import { expectStatus, useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { makeUnit, stockAnimals } from './helpers/tags.js';

const app = useApp();

/** Upper case, and every other letter upper case: both name the same record as the lower-case id. */
const shouts = (id: string) => [id.toUpperCase(), [...id].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')];

/**
 * Issue 9: an id typed in upper case (a path, a client id in a body) used to be hashed into its
 * event as typed while the database stored it lower-cased, so events:verify reported the chain
 * broken. Ids are canonical before anything stores, hashes or compares them.
 */
test('write routes take ids in any case, answer and record them lower-case, and the event chain verifies', async () => {
  const owner = await member(app);
  const unit = await makeUnit(app, owner.org.id);
  const { animalIds } = await stockAnimals(app, unit.unitId, 1);
  const token = owner.access;
  const touched: string[] = [];

  const writes: [string, string, Record<string, unknown>][] = [];
  for (const id of shouts(unit.establishmentId)) writes.push(['PATCH', `/api/establishments/${id}`, { str_name: `Fazenda ${id.slice(0, 4)}` }]);
  for (const id of shouts(unit.unitId)) writes.push(['PUT', `/api/control-units/${id}`, { str_name: `Retiro ${id.slice(0, 4)}` }]);
  for (const id of shouts(animalIds[0]!)) writes.push(['PATCH', `/api/animals/${id}`, { str_name: `Vaca ${id.slice(0, 4)}` }]);
  for (const id of shouts(owner.org.id)) writes.push(['PATCH', `/api/organizations/${id}`, { str_name: `Org ${id.slice(0, 4)}` }]);
  for (const id of shouts(owner.user.id)) writes.push(['PATCH', `/api/users/${id}`, { str_name: `Dona ${id.slice(0, 4)}` }]);
  for (const [method, path, body] of writes) {
    const res = await app.call(method, path, { token, body });
    expectStatus(res, 200);
    expect(res.body.data.id).toBe(path.split('/').pop()!.toLowerCase());
    touched.push(res.body.data.id);
  }

  const establishmentId = randomUUID();
  const created = await app.call('POST', '/api/establishments', { token, body: { id: establishmentId.toUpperCase(), str_name: 'Fazenda Nova', str_type: 'FARM' } });
  expectStatus(created, 201);
  expect(created.body.data.id).toBe(establishmentId);
  const unitId = randomUUID();
  const unitCreated = await app.call('POST', '/api/control-units', {
    token,
    body: { id: unitId.toUpperCase(), establishment_id: establishmentId.toUpperCase(), str_code: `CU-${randomUUID().slice(0, 13)}`, str_name: 'Retiro Novo', str_type: 'PRODUCTION' },
  });
  expectStatus(unitCreated, 201);
  expect(unitCreated.body.data.id).toBe(unitId);
  // The same client id in another case is a replay of the same record, not a conflict or a twin.
  const again = await app.call('POST', '/api/establishments', { token, body: { id: establishmentId, str_name: 'Fazenda Nova', str_type: 'FARM' } });
  expect(again.status).toBeLessThan(300);
  expect(again.body.data.id).toBe(establishmentId);
  touched.push(establishmentId, unitId);

  const em = app.service.orm.em.fork();
  const events = await em.execute<{ record_id: string; actor_id: string; str_payload: string }[]>('select record_id, actor_id, str_payload from event where record_id in (?) order by seq', [touched]);
  expect(new Set(events.map((e) => e.record_id))).toEqual(new Set(touched));
  for (const e of events) expect(e.actor_id).toBe(owner.user.id);
  expect(await verifyChain(em)).toEqual({ ok: true, checked: expect.any(Number) });
});
