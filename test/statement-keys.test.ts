import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { holding, moveByGta, type Holding } from './helpers/movements.js';
import { makeCounty } from './helpers/places.js';
import { stockAnimals } from './helpers/tags.js';
import { STATEMENT_KEYS } from '../src/db/migrations/Migration0046StatementForeignKeys.js';
import { fromConstraintViolation } from '../src/shared/errors.js';

/**
 * Issue 20: the stay's foreign keys, checked row by row for each stay an ingress finish opens
 * (STATEMENT_KEYS), are kept by triggers (Migration0046StatementForeignKeys). The same guarantees: a row naming a
 * missing parent is refused with the constraint's name and SQLSTATE 23503 (the contract's
 * REFERENCE_EXISTS), on insert and on an update that changes the key; a parent still named cannot be
 * deleted or re-keyed (RESTRICT), or takes its children with it (CASCADE), or leaves them unnamed (SET NULL).
 */

let farm: Holding;
let feedlot: Holding;

const sqlInTx = (text: string, params: unknown[] = []) => app.service.orm.em.fork().transactional((tx) => tx.execute(text, params));

/** A bare animal at a unit (no tag: nothing else names it), with an open stay. */
async function bareAnimal(unit: { unitId: string; establishmentId: string }): Promise<string> {
  const id = randomUUID();
  await sqlInTx(`insert into animal (id, str_species, str_gender, str_status, last_control_unit_id) values (?, 'BOVINE', 'MALE', 'ACTIVE', ?)`, [id, unit.unitId]);
  await sqlInTx('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) values (?, ?, ?, now())', [id, unit.unitId, unit.establishmentId]);
  return id;
}

const app = useApp();
beforeAll(async () => {
  const county = await makeCounty(app);
  farm = await holding(app, county, 'FARM');
  feedlot = await holding(app, county, 'FEEDLOT');
});

test('the stay\'s keys are no longer PostgreSQL constraints but triggers on both sides; the animal\'s unit still is one', async () => {
  const names = STATEMENT_KEYS.map((k) => k.name);
  expect(names).toHaveLength(4);
  expect(await count(app, `pg_constraint where conname = any(array[?]::text[])`, [names])).toBe(0);
  expect(await count(app, `pg_constraint where conname = 'animal_last_control_unit_id_fkey' and contype = 'f'`)).toBe(1);
  const triggers = await rows<{ tgname: string }>(app, `select tgname from pg_trigger where tgname like '%\\_keys\\_on\\_%' order by tgname`);
  expect(triggers.map((t) => t.tgname)).toEqual([
    'animal_keys_on_delete',
    'animal_keys_on_rekey',
    'animal_stay_keys_on_insert',
    'animal_stay_keys_on_update',
    'animals_egress_keys_on_delete',
    'animals_egress_keys_on_rekey',
    'animals_ingress_keys_on_delete',
    'animals_ingress_keys_on_rekey',
    'control_unit_keys_on_delete',
    'control_unit_keys_on_rekey',
  ]);
});

test('a row naming a missing parent is refused, on insert and on an update of its key, with the constraint\'s name', async () => {
  const animal = await bareAnimal(farm.unit);
  const missing = randomUUID();
  const refused = async (text: string, params: unknown[], constraint: string, atCommit = false) => {
    const err = await sqlInTx(text, params).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(String((err as Error).message)).toContain(constraint);
    expect((err as { code?: string }).code).toBe('23503');
    // The contract's answer for it: a rule violated, naming the constraint (a deferred constraint's
    // error comes at commit, unconverted; the triggers' comes from the statement, as a constraint's did in event_append).
    if (!atCommit) expect(fromConstraintViolation(err)).toMatchObject({ code: 'RULE_VIOLATED', detail: { rule: 'REFERENCE_EXISTS', constraint } });
  };
  const stay = 'insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_ingress_id, animals_egress_id) values (?, ?, ?, now(), now(), ?, ?)';
  await refused(stay, [missing, farm.unit.unitId, farm.unit.establishmentId, null, null], 'animal_stay_animal_id_fkey');
  await refused(stay, [animal, randomUUID(), farm.unit.establishmentId, null, null], 'animal_stay_unit_of_establishment');
  // A unit and an establishment that both exist, but the unit is not that establishment's.
  await refused(stay, [animal, farm.unit.unitId, feedlot.unit.establishmentId, null, null], 'animal_stay_unit_of_establishment');
  await refused(stay, [animal, farm.unit.unitId, farm.unit.establishmentId, missing, null], 'animal_stay_animals_ingress_id_fkey');
  await refused(stay, [animal, farm.unit.unitId, farm.unit.establishmentId, null, missing], 'animal_stay_animals_egress_id_fkey');
  await refused('update animal_stay set animals_egress_id = ? where animal_id = ?', [missing, animal], 'animal_stay_animals_egress_id_fkey');
  await refused('update animal_stay set control_unit_id = ? where animal_id = ?', [feedlot.unit.unitId, animal], 'animal_stay_unit_of_establishment');
  await refused(`insert into animal (id, str_species, str_gender, str_status, last_control_unit_id) values (?, 'BOVINE', 'MALE', 'ACTIVE', ?)`, [randomUUID(), missing], 'animal_last_control_unit_id_fkey', true);
  await refused('update animal set last_control_unit_id = ? where id = ?', [missing, animal], 'animal_last_control_unit_id_fkey', true);
  // One bad row among good ones refuses the whole statement.
  await refused(`insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to) select x, ?, ?, now(), now() from unnest(array[?, ?]::uuid[]) x`, [farm.unit.unitId, farm.unit.establishmentId, animal, missing], 'animal_stay_animal_id_fkey');
  // Nothing of those was written; a good row still is; an update that leaves the key alone is not checked against it.
  expect(await count(app, 'animal_stay where animal_id = ?', [animal])).toBe(1);
  await sqlInTx('update animal_stay set control_unit_id = ?, establishment_id = ? where animal_id = ?', [feedlot.unit.unitId, feedlot.unit.establishmentId, animal]);
  await sqlInTx('update animal set last_control_unit_id = ?, str_name = ? where id = ?', [feedlot.unit.unitId, 'Moved', animal]);
  await sqlInTx('update animal set str_name = ? where id = ?', ['Renamed', animal]);
});

test('a parent still named cannot be deleted or re-keyed; a deleted animal takes its stays, a deleted ingress or egress leaves them unnamed', async () => {
  const county = await makeCounty(app);
  const pen = await holding(app, county, 'FARM');
  const animal = await bareAnimal(pen.unit);
  // PGlite's newer PostgreSQL words a RESTRICT refusal "violates RESTRICT setting of foreign key constraint".
  await expect(sqlInTx('delete from control_unit where id = ?', [pen.unit.unitId])).rejects.toThrow(/violates (RESTRICT setting of )?foreign key constraint "animal_(stay_unit_of_establishment|last_control_unit_id_fkey)"/);
  // The unit moved to another establishment while stays name it with its own.
  await expect(sqlInTx('update control_unit set establishment_id = ? where id = ?', [farm.unit.establishmentId, pen.unit.unitId])).rejects.toThrow(/animal_stay_unit_of_establishment/);
  await expect(sqlInTx('update animal set id = ? where id = ?', [randomUUID(), animal])).rejects.toThrow(/animal_stay_animal_id_fkey/);
  // CASCADE: the animal's stays go with it.
  await sqlInTx('delete from animal where id = ?', [animal]);
  expect(await count(app, 'animal_stay where animal_id = ?', [animal])).toBe(0);
  // Nothing names the unit now: it can be deleted.
  await sqlInTx('delete from control_unit where id = ?', [pen.unit.unitId]);
  expect(await count(app, 'control_unit where id = ?', [pen.unit.unitId])).toBe(0);

  // SET NULL: an ingress and an egress deleted (never done by the service) leave the stays they opened and closed.
  const herd = await stockAnimals(app, farm.unit.unitId, 2);
  const { egress, ingress } = await moveByGta(app, farm, feedlot, herd.codes);
  expect(await count(app, 'animal_stay where animals_egress_id = ?', [egress.id])).toBe(2);
  expect(await count(app, 'animal_stay where animals_ingress_id = ?', [ingress.id])).toBe(2);
  await sqlInTx('delete from animals_ingress where id = ?', [ingress.id]);
  expect(await count(app, 'animal_stay where animals_ingress_id = ?', [ingress.id])).toBe(0);
  await sqlInTx('delete from animals_egress where id = ?', [egress.id]);
  expect(await count(app, 'animal_stay where animals_egress_id = ?', [egress.id])).toBe(0);
  expect(await count(app, 'animal_stay where animal_id = any(array[?]::uuid[])', [herd.animalIds])).toBe(4);
});

test('an ingress finish still opens its stays and moves its animals under the triggers', async () => {
  const herd = await stockAnimals(app, farm.unit.unitId, 3);
  await moveByGta(app, farm, feedlot, herd.codes);
  const stays = await rows<{ control_unit_id: string; establishment_id: string; n: number }>(
    app,
    'select control_unit_id, establishment_id, count(*)::int as n from animal_stay where animal_id = any(array[?]::uuid[]) and ts_to is null group by 1, 2',
    [herd.animalIds],
  );
  expect(stays).toEqual([{ control_unit_id: feedlot.unit.unitId, establishment_id: feedlot.unit.establishmentId, n: 3 }]);
});
