import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { seenUnitsLookup } from '../src/trace/answer/trace-answer.js';
import { TraceService, type TraceInput } from '../src/trace/trace.service.js';
import { useApp } from './helpers/app.js';
import { login, makeUser, official } from './helpers/factories.js';
import type { Holding } from './helpers/movements.js';
import { at, networkPlaces, travelNetwork } from './helpers/trace-network.js';

/**
 * The trace walked in memory (the service's graph, docs/decisions/trace.md "The walk in memory")
 * answers what the walk in SQL (`trace_runs` and its storing statement) answers: the same traced
 * animals in the same order with the same moves, contacts and paths, the same totals and the same
 * contact chain, for an administrator, a state's authority and the owner of one of the holdings
 * (who sees its own part: the probes, the hidden contacts), on random networks with trucks.
 */
const app = useApp();
let places: Holding[];
let vehicleId: string;
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
  await app.service.core.trace.ready();
});

/** A random network as test/trace-walk.test.ts draws them: units, animals with 1-5 stays, egresses, some on a travel. */
const network = (seed: number) => travelNetwork(app, places, vehicleId, seed);

// Under TEST_TRACE_GRAPH=false the service walks in SQL too: nothing of the graph to compare (the SQL side is every other trace file's).
const withGraph = process.env.TEST_TRACE_GRAPH === 'false' ? describe.skip : describe;

withGraph('the walk in memory answers what the walk in SQL answers', () => {
  test('on random networks, for an administrator, an authority and an owner', async () => {
    const db = app.service.db;
    const sql = new TraceService();
    const admin = await login(app, await makeUser(app, { admin: true }));
    const [{ county_id } = { county_id: '' }] = await app.service.orm.em.fork().execute<{ county_id: string }[]>('select county_id from establishment where id = ?', [places[0]!.unit.establishmentId]);
    const authority = await official(app, county_id!);
    const callers = [admin.access, authority.access, places[0]!.owner.access];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom('FORWARD', 'BACKWARD', 'BOTH'),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
        fc.constantFrom('unit', 'animal', 'establishment'),
        fc.integer({ min: 0, max: 2 }),
        // The reached units' visibility each by its establishment's key, or by the caller's establishments hashed.
        fc.constantFrom(2000, 0),
        async (seed, direction, maxHops, kind, who, perRowUpTo) => {
          seenUnitsLookup.perRowUpTo = perRowUpTo;
          const { units, animals } = await network(seed);
          const from = (seed % 97) + 10;
          const input: TraceInput = {
            ts_from: at(from),
            ts_to: at(from + ((seed >> 8) % 90)),
            str_direction: direction,
            int_max_hops: maxHops,
            ...(kind === 'unit' ? { control_unit_id: units[seed % units.length] } : kind === 'animal' ? { animal_id: animals[seed % animals.length] } : { establishment_id: places[seed % 3]!.unit.establishmentId }),
          };
          const actor = await app.service.core.auth.authenticate(db, callers[who]!);
          const page = { int_max_results: 5000 };
          const walks = app.service.core.trace.walksInMemory;
          // Each path walks: no stored answer of the other is reused.
          await app.service.orm.em.fork().execute('delete from trace_run');
          const inMemory = await app.service.core.trace.trace(db, actor, input, page).catch((e: Error) => e);
          await app.service.core.trace.settled();
          await app.service.orm.em.fork().execute('delete from trace_run');
          const inSql = await sql.trace(db, actor, input, page).catch((e: Error) => e);
          expect(inMemory).toEqual(inSql);
          if (!(inSql instanceof Error)) expect(app.service.core.trace.walksInMemory).toBe(walks + (direction === 'BOTH' ? 2 : 1));
        },
      ),
      { numRuns: 30 },
    );
    seenUnitsLookup.perRowUpTo = 2000;
  });

  test('a stay written after the graph was loaded is walked', async () => {
    const db = app.service.db;
    const admin = await login(app, await makeUser(app, { admin: true }));
    const actor = await app.service.core.auth.authenticate(db, admin.access);
    const { units } = await network(7);
    const newcomer = randomUUID();
    const em = app.service.orm.em.fork();
    await em.execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) values (?, 'BOVINE', 'MALE', ?, ?)`, [newcomer, units[0], at(0)]);
    await em.execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to) values (?, ?, ?, ?, ?)', [newcomer, units[0], places[0]!.unit.establishmentId, at(300), at(310)]);
    await em.execute('delete from trace_run');
    const walks = app.service.core.trace.walksInMemory;
    const answer = await app.service.core.trace.trace(db, actor, { control_unit_id: units[0], ts_from: at(305), ts_to: at(306), str_direction: 'FORWARD' }, null);
    expect(app.service.core.trace.walksInMemory).toBe(walks + 1);
    expect(answer.data.map((a) => a.animal_id)).toContain(newcomer);
  });
});
