import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pgDb } from '../src/db/sql.js';
import { useApp } from './helpers/app.js';
import { recording } from './helpers/db.js';
import { makeUser, member } from './helpers/factories.js';
import { makeUnit, stockAnimals } from './helpers/tags.js';

// The actor cache on, as in production: a token's requests after its first run no authentication statement.
const app = useApp({ ACTOR_CACHE: 'true' });

/** The token's first request: after it the session is in the actor cache (src/identity/actor-cache.ts). */
async function warm(token: string): Promise<void> {
  const first = await app.call('GET', '/api/whoami', { token });
  expect(first.status).toBe(200);
  expect((await app.call('GET', '/api/whoami', { token })).sql).toBe(first.sql - 1);
}

/**
 * Issue 8: the four requests of the peers bench at most 3 SQL statements each (authentication
 * included), whatever the nesting, and the same for 2 rows and 200 (to-one chains joined in the
 * page's statement, to-many relations one statement per level). Issue 23: a token's requests after
 * its first take the actor from the cache, one statement fewer (at most 2).
 */
const NESTED = `current_tag { id str_code last_control_unit { id str_name establishment { id str_name county { id str_name } } } }`;

/** An owner with `establishments` establishments of two units each (one with a responsible user), animals spread over every unit. */
async function herd(establishments: number, animalsPerUnit: number) {
  const owner = await member(app);
  const responsible = await makeUser(app);
  const units: string[] = [];
  for (let i = 0; i < establishments; i++) {
    const first = await makeUnit(app, owner.org.id);
    const second = randomUUID();
    const em = app.service.orm.em.fork();
    await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type, responsible_user_id) values (?, ?, ?, 'Piquete', 'PRODUCTION', ?)`, [
      second,
      first.establishmentId,
      `CU-${randomUUID().slice(0, 13).toUpperCase()}`,
      responsible.user.id,
    ]);
    await em.execute('update establishment set responsible_user_id = ? where id = ?', [responsible.user.id, first.establishmentId]);
    units.push(first.unitId, second);
  }
  const animalIds: string[] = [];
  for (const unit of units) animalIds.push(...(await stockAnimals(app, unit, animalsPerUnit)).animalIds);
  return { owner, animalIds };
}

describe('statements per read request', () => {
  test('nested animals page, animal by id, establishments index and animals search: at most 3, equal for 2 and 200 rows', async () => {
    const { owner, animalIds } = await herd(5, 20);
    const token = owner.access;
    await warm(token);

    const animalsPage = (n: number) => app.graphql(`{ animals(page: {int_max_results: ${n}}) { meta { int_total_results } data { id str_species ${NESTED} } } }`, {}, token);
    const [g2, g200] = [await animalsPage(2), await animalsPage(200)];
    expect(g200.body.errors).toBeUndefined();
    expect(g200.body.data.animals.data).toHaveLength(200);
    expect(g200.body.data.animals.meta.int_total_results).toBe(200);
    expect(g200.body.data.animals.data[0].current_tag.last_control_unit.establishment.county.str_name).toMatch(/^Município/);
    expect(g200.sql).toBe(1);
    expect(g200.sql).toBe(g2.sql);

    const one = await app.graphql(`query($id: UUID!) { animal(id: $id) { id ${NESTED} } }`, { id: animalIds[0] }, token);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.animal.current_tag.last_control_unit.establishment.str_name).toMatch(/^Fazenda/);
    expect(one.sql).toBe(1);

    const establishments = (n: number) => app.call('GET', `/api/establishments?int_max_results=${n}`, { token });
    const [e2, e5] = [await establishments(2), await establishments(5)];
    expect(e5.status).toBe(200);
    expect(e5.body.data).toHaveLength(5);
    const withUnits = e5.body.data[0];
    expect(withUnits.control_units).toHaveLength(2);
    expect(withUnits.str_county_name).toMatch(/^Município/);
    expect(withUnits.str_responsible_user_name).toBe('Test User');
    expect(withUnits.control_units.map((u: { responsible_user?: { str_name: string } }) => u.responsible_user?.str_name ?? null).sort()).toEqual(['Test User', null]);
    expect(e5.sql).toBe(2);
    expect(e5.sql).toBe(e2.sql);

    const search = (n: number) => app.call('POST', `/api/animals/search?int_max_results=${n}`, { token, body: { str_species: 'BOVINE', str_gender: 'FEMALE' } });
    const [s2, s200] = [await search(2), await search(200)];
    expect(s200.status).toBe(200);
    expect(s200.body.data).toHaveLength(100);
    expect(s200.body.meta.int_total_results).toBe(100);
    expect(s200.body.data[0]).toMatchObject({ str_gender: 'FEMALE', str_establishment_name: expect.stringMatching(/^Fazenda/) });
    expect(s200.sql).toBe(1);
    expect(s200.sql).toBe(s2.sql);
  });

  test('a GraphQL page that does not select meta is not counted; one that does counts in the same statement', async () => {
    const { owner } = await herd(1, 3);
    await warm(owner.access);
    const without = await app.graphql('{ animals { data { id } } }', {}, owner.access);
    const withMeta = await app.graphql('{ animals { data { id } meta { int_total_results int_total_pages } } }', {}, owner.access);
    expect(withMeta.body.data.animals.meta).toEqual({ int_total_results: 6, int_total_pages: 1 });
    expect(without.body.data.animals.data).toHaveLength(6);
    expect(withMeta.sql).toBe(without.sql);
    // Past the last page: the count comes alone.
    const past = await app.call('GET', '/api/animals?int_current_page=3&int_max_results=5', { token: owner.access });
    expect(past.body).toMatchObject({ data: [], meta: { int_current_page: 3, int_total_results: 6, int_total_pages: 2 } });
  });

  test('a page statement is one text for every caller and first page: the page size written in, the offset bound past page one', async () => {
    const [a, b] = [await herd(1, 3), await herd(1, 2)];
    const { db: recorded, seen } = recording(app);
    const include = { current_tag: { last_control_unit: { establishment: { county: {} } } } };
    const pageOf = async (token: string, page: number) => {
      const actor = await app.service.core.auth.authenticate(app.service.db, token);
      seen.length = 0;
      const result = await app.service.core.animals.page(recorded, actor, {}, { int_max_results: 4, int_current_page: page }, { count: false, include });
      expect(seen).toHaveLength(1);
      return { rows: result.data.length, query: seen[0]! };
    };
    const [a1, b1, a2] = [await pageOf(a.owner.access, 1), await pageOf(b.owner.access, 1), await pageOf(a.owner.access, 2)];
    expect([a1.rows, b1.rows, a2.rows]).toEqual([4, 4, 2]);
    // Bound as a parameter, a page size made PostgreSQL plan every call afresh: it estimates a
    // parameter limit as a tenth of the table, so the statement's generic plan never won.
    expect(a1.query.sql).toMatch(/ limit 4(?! offset)/);
    expect(a1.query.params).not.toContain(4);
    expect(b1.query.sql).toBe(a1.query.sql);
    expect(a2.query.sql).toMatch(/ limit 4 offset \?/);
    expect(a2.query.params).toContain(4); // the offset of page 2
  });

  // Prepared statements and their plan counters are PostgreSQL's (PGlite runs each query unnamed).
  const onPostgres = process.env.DATABASE_URL ? test : test.skip;
  onPostgres('PostgreSQL settles on the page statement\'s generic plan instead of planning every call', async () => {
    const { owner } = await herd(2, 5);
    // One connection, so that its prepared statements are the ones the view below shows.
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    try {
      const db = pgDb(pool);
      const actor = await app.service.core.auth.authenticate(db, owner.access);
      const include = { current_tag: { last_control_unit: { establishment: { county: {} } } } };
      for (let i = 0; i < 12; i++) {
        const page = await app.service.core.animals.page(db, actor, {}, { int_max_results: 50 }, { count: false, include });
        expect(page.data).toHaveLength(20);
      }
      const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
        `select generic_plans, custom_plans from pg_prepared_statements where statement like '%from animal a where%' and statement like '%left join lateral%'`,
      );
      expect(rows).toHaveLength(1);
      // PostgreSQL tries 5 custom plans, then keeps the generic one when it costs no more.
      expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(7);
    } finally {
      await pool.end();
    }
  });
});
