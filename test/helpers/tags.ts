import { randomUUID } from 'node:crypto';
import type { TestApp } from './app.js';
import { member } from './factories.js';
import { makeCounty, unitCode, type TestCounty } from './places.js';

/** Brazilian tag codes no other test uses: 076 + 12 digits from a random 9-digit block (1,000 codes each). */
export function freshCodeBlock(): string {
  const block = String(Math.floor(Math.random() * 1e9)).padStart(9, '0');
  return `076${block}000`;
}
export const codeAt = (begin: string, offset: number): string => (BigInt(begin) + BigInt(offset)).toString().padStart(15, '0');

export interface TestUnit {
  establishmentId: string;
  unitId: string;
  code: string;
}

/** An establishment with one control unit (`PRODUCTION` unless said) in the organization, written straight to the database (set-up). */
export async function makeUnit(app: TestApp, orgId: string, county?: TestCounty, type = 'PRODUCTION'): Promise<TestUnit> {
  const c = county ?? (await makeCounty(app));
  const establishmentId = randomUUID();
  const unitId = randomUUID();
  const code = unitCode();
  const em = app.service.orm.em.fork();
  await em.execute(`insert into establishment (id, organization_id, county_id, str_name, str_type) values (?, ?, ?, ?, 'FARM')`, [establishmentId, orgId, c.id, `Fazenda ${code}`]);
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Retiro', ?)`, [unitId, establishmentId, code, type]);
  return { establishmentId, unitId, code };
}

/** An owner of a fresh organization, signed in, with one control unit. */
export async function ownerWithUnit(app: TestApp, county?: TestCounty) {
  const owner = await member(app);
  const unit = await makeUnit(app, owner.org.id, county);
  return { owner, unit };
}

/**
 * A box of `n` AVAILABLE tags in stock at the unit, written straight to the database (set-up for
 * tests of what comes after an ingress). Returns the box and its codes in order.
 */
export async function stockTags(app: TestApp, unitId: string, n: number): Promise<{ boxId: string; codes: string[]; tagIds: string[] }> {
  const begin = freshCodeBlock();
  const finish = codeAt(begin, n - 1);
  const boxId = randomUUID();
  const em = app.service.orm.em.fork();
  await em.execute(`insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, ?, ?, ?, 'IN_STOCK', ?)`, [boxId, `BOX-${begin}`, begin, finish, n, unitId]);
  const rows = await em.execute<{ id: string; str_code: string }[]>(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id)
       select gen_random_uuid(), lpad((?::bigint + g)::text, 15, '0'), 'AVAILABLE', ?, ? from generate_series(0, ? - 1) g
     returning id, str_code`,
    [begin, boxId, unitId, n],
  );
  rows.sort((a, b) => a.str_code.localeCompare(b.str_code));
  return { boxId, codes: rows.map((r) => r.str_code), tagIds: rows.map((r) => r.id) };
}

/**
 * `n` ACTIVE animals at the unit, each with an APPLIED tag from a fresh box, written straight to
 * the database, set-based (set-up for replacement, writeoff and movement tests).
 */
export async function stockAnimals(app: TestApp, unitId: string, n: number): Promise<{ animalIds: string[]; tagIds: string[]; codes: string[] }> {
  const { tagIds, codes } = await stockTags(app, unitId, n);
  const em = app.service.orm.em.fork();
  const animalIds = tagIds.map(() => randomUUID());
  await em.transactional(async (tx) => {
    await tx.execute(
      `insert into animal (id, str_species, str_gender, last_control_unit_id, current_tag_id, ts_identified_at)
       select x.id, 'BOVINE', case when x.n % 2 = 0 then 'MALE' else 'FEMALE' end, ?, x.tag_id, now() from unnest(array[?]::uuid[], array[?]::uuid[]) with ordinality as x(id, tag_id, n)`,
      [unitId, animalIds, tagIds],
    );
    await tx.execute(`update tag set str_status = 'APPLIED', animal_id = a.id, last_control_unit_id = null from animal a where a.current_tag_id = tag.id and tag.id in (?)`, [tagIds]);
    await tx.execute(
      `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) select a.id, a.last_control_unit_id, cu.establishment_id, a.ts_identified_at
         from animal a join control_unit cu on cu.id = a.last_control_unit_id where a.id in (?)`,
      [animalIds],
    );
  });
  await em.execute(`update tags_box set str_status = 'DEPLETED' where id = (select tags_box_id from tag where id = ?)`, [tagIds[0]]);
  return { animalIds, tagIds, codes };
}
