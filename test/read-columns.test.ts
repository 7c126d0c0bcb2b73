import { randomUUID } from 'node:crypto';
import { animalSource } from '../src/animals/animal.reader.js';
import type { Source } from '../src/db/reader.js';
import { userSource } from '../src/identity/user.reader.js';
import { controlUnitSource } from '../src/places/control-unit.reader.js';
import { countySource } from '../src/places/county.reader.js';
import { establishmentSource } from '../src/places/establishment.reader.js';
import { tagSource } from '../src/tags/tag.reader.js';
import { useApp } from './helpers/app.js';
import { makeUser, member } from './helpers/factories.js';
import { makeUnit, stockAnimals } from './helpers/tags.js';

const app = useApp();

/**
 * Reads narrowed to the columns a query selects (graphql/columns.ts): a source's column list is
 * its table's (else a new column would never reach a narrowed answer), and a narrowed answer is
 * the answer whole rows give.
 */
describe('reads narrowed to the selected columns', () => {
  test("each narrowed source lists its table's columns, in order (the user's without the password hash)", async () => {
    // The holder columns (Migration0036ScopeHolders, the establishment's Migration0057) are the scope's, never an answer's.
    const holder = ['holder_organization_id', 'holder_federative_unit'];
    const sources: [Source, string[]][] = [
      [animalSource, holder],
      [tagSource, holder],
      [controlUnitSource, []],
      [establishmentSource, ['holder_federative_unit']],
      [countySource, []],
      [userSource, ['password_hash']],
    ];
    for (const [source, hidden] of sources) {
      const rows = await app.service.db.rows<{ column_name: string }>({
        sql: `select column_name from information_schema.columns where table_schema = current_schema() and table_name = ? order by ordinal_position`,
        params: [source.table.replaceAll('"', '')],
      });
      const columns = rows.map((r) => r.column_name).filter((c) => !hidden.includes(c));
      expect({ table: source.table, columns: source.columnNames }).toEqual({ table: source.table, columns });
    }
  });

  test('a narrowed page and record answer what whole rows answer, computed fields and shared relations included', async () => {
    const owner = await member(app);
    const responsible = await makeUser(app);
    const unit = await makeUnit(app, owner.org.id);
    const em = app.service.orm.em.fork();
    // A member, so the owner sees the person whole (CONTRACT.md, Accounts).
    await em.execute(`insert into membership (id, user_id, organization_id, str_role) values (?, ?, ?, 'VIEWER')`, [randomUUID(), responsible.user.id, owner.org.id]);
    const second = randomUUID();
    await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type, responsible_user_id) values (?, ?, ?, 'Piquete', 'PRODUCTION', ?)`, [
      second,
      unit.establishmentId,
      `CU-${randomUUID().slice(0, 13).toUpperCase()}`,
      responsible.user.id,
    ]);
    await em.execute('update establishment set responsible_user_id = ?, num_longitude = -47.9, num_latitude = -15.8, dec_area = 12.5 where id = ?', [responsible.user.id, unit.establishmentId]);
    const { animalIds } = await stockAnimals(app, second, 3);
    await stockAnimals(app, unit.unitId, 2);

    const animal = `id str_species str_current_tag_code str_last_control_unit_code str_establishment_name geo_identification { type coordinates } ts_created_at
      current_tag { id str_status last_control_unit { id str_code str_responsible_user_name responsible_user { id str_email organizations { id str_role } }
        establishment { id str_name dec_area geo_location { coordinates } str_county_name str_county_federative_unit str_responsible_user_name county { id str_ibge_code } } } }`;
    const establishment = `id str_name str_county_ibge_uf_code str_responsible_document control_units { id str_code str_responsible_user_name responsible_user { str_name } }`;
    const narrowed = `{ animals(page: {int_max_results: 10}) { meta { int_total_results } data { ${animal} } } establishments { data { ${establishment} } } }`;
    // Another root field: the whole operation reads whole rows.
    const whole = `{ counties(page: {int_max_results: 1}) { data { id } } animals(page: {int_max_results: 10}) { meta { int_total_results } data { ${animal} } } establishments { data { ${establishment} } } }`;
    const [a, b] = [await app.graphql(narrowed, {}, owner.access), await app.graphql(whole, {}, owner.access)];
    expect(a.body.errors).toBeUndefined();
    expect(b.body.errors).toBeUndefined();
    expect(a.body.data.animals.data).toHaveLength(5);
    expect(a.body.data.animals.data.find((x: { id: string }) => x.id === animalIds[0]).current_tag.last_control_unit.str_responsible_user_name).toBe('Test User');
    expect(a.body.data.establishments.data[0]).toMatchObject({ str_responsible_document: responsible.user.str_document, control_units: expect.any(Array) });
    expect(a.body.data.animals.data[0].current_tag.last_control_unit.establishment).toMatchObject({ dec_area: 12.5, geo_location: { coordinates: [-47.9, -15.8] } });
    expect(a.body.data).toEqual({ animals: b.body.data.animals, establishments: b.body.data.establishments });

    const one = (doc: string) => app.graphql(doc, { id: animalIds[1] }, owner.access);
    const [c, d] = [await one(`query($id: UUID!) { animal(id: $id) { ${animal} } }`), await one(`query($id: UUID!) { whoami { id } animal(id: $id) { ${animal} } }`)];
    expect(c.body.errors).toBeUndefined();
    expect(c.body.data.animal.id).toBe(animalIds[1]);
    expect(c.body.data.animal).toEqual(d.body.data.animal);
  });
});
