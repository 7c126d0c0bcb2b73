import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { migrate, openOrm, type Orm } from '../src/db/orm.js';
import { scratchDatabase, type ScratchDatabase } from './helpers/scratch-db.js';

/**
 * A running database is upgraded with its data in it, where CI's database starts empty: a migration
 * that only fails on rows (Migration0049's first version: a second UPDATE of rows it had just updated
 * queued their deferred key checks, and its CREATE INDEX then refused the table) passes every fresh
 * run. This database stops at an earlier landing's last migration, takes rows as that schema knew
 * them, and must then take every later migration.
 */
const LANDED = 'Migration0038EventsOut';

const onPostgres = Boolean(process.env.DATABASE_URL) && process.env.TEST_DATABASE !== 'pglite';

let scratch: ScratchDatabase | undefined;
let orm: Orm;

beforeAll(async () => {
  scratch = onPostgres ? await scratchDatabase('upgrade') : undefined;
  const env = { ...process.env, DATABASE_URL: scratch?.url, DATA_DIR: 'memory://', PGLITE_IMAGE: undefined, DATABASE_REPLICA_URLS: undefined };
  orm = await openOrm(loadConfig(env));
});

afterAll(async () => {
  await orm.close();
  await scratch?.drop();
});

test(`a database with rows written before ${LANDED} takes every later migration`, async () => {
  await orm.migrator.up({ to: LANDED });
  const em = orm.em.fork();
  const [organization, county, farm, feedlot, from, to] = Array.from({ length: 6 }, () => randomUUID());
  await em.execute(`insert into organization (id, str_name, str_document) values (?, 'Upgrade Ranch', '11222333000181')`, [organization]);
  await em.execute(`insert into county (id, str_ibge_code, str_name, str_federative_unit) values (?, '3550308', 'São Paulo', 'SP')`, [county]);
  await em.execute(`insert into establishment (id, organization_id, county_id, str_name, str_type) values (?, ?, ?, 'Farm', 'FARM'), (?, ?, ?, 'Feedlot', 'FEEDLOT')`, [farm, organization, county, feedlot, organization, county]);
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, 'P1', 'Pasture', 'PRODUCTION'), (?, ?, 'F1', 'Pen', 'PRODUCTION')`, [from, farm, to, feedlot]);
  await em.execute(
    `insert into animals_egress (id, from_control_unit_id, to_control_unit_id, bl_move_with_tag_reading) select gen_random_uuid(), ?, ?, false from generate_series(1, 3)`,
    [from, to],
  );

  await migrate(orm);

  expect(await orm.migrator.getPending()).toEqual([]);
  const egresses = await em.execute<Record<string, string>[]>(
    `select from_holder_organization_id, from_holder_federative_unit, to_holder_organization_id, to_holder_federative_unit from animals_egress`,
  );
  expect(egresses).toEqual(Array.from({ length: 3 }, () => ({ from_holder_organization_id: organization, from_holder_federative_unit: 'SP', to_holder_organization_id: organization, to_holder_federative_unit: 'SP' })));
  const establishments = await em.execute<{ holder_federative_unit: string }[]>(`select holder_federative_unit from establishment`);
  expect(establishments).toEqual([{ holder_federative_unit: 'SP' }, { holder_federative_unit: 'SP' }]);
});
