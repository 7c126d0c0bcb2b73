import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { controlUnitPolicy } from '../src/places/establishment.policy.js';
import { stayKey } from '../src/animals/stays.js';
import { storeTraceAnswer, type ReachedRows } from '../src/trace/answer/trace-answer.js';
import { traceRun, traceRunPage, type TraceQuestion } from '../src/trace/trace.reader.js';
import { useApp } from './helpers/app.js';
import { login, makeUser, official } from './helpers/factories.js';
import type { Holding } from './helpers/movements.js';
import { at, networkPlaces, travelNetwork } from './helpers/trace-network.js';

/**
 * The answer of a walk done elsewhere (`storeTraceAnswer`, the walk in memory's storing) equals
 * the SQL storing statement's (`traceRun`) when both are given the same walk: here `trace_runs`'
 * own rows, read back and handed over as the walk in memory hands them. The walk in memory is
 * checked against `trace_runs` apart (test/trace-graph*.test.ts); this holds the rest: entries,
 * visibility, the contact chain, the rank and its groups, for three kinds of caller.
 */
const app = useApp();
let places: Holding[];
let vehicleId: string;
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
});

const network = (seed: number) => travelNetwork(app, places, vehicleId, seed);

interface WalkRow {
  animal_id: string;
  control_unit_id: string | null;
  establishment_id: string | null;
  stay_id: string;
  us_exposure: string;
  int_hops: number;
  via_animal_id: string | null;
  via_control_unit_id: string | null;
  us_via: string | null;
  bl_seed: boolean;
  leg_egress_id: string | null;
}

/** `trace_runs`' rows as the walk in memory gives them: columnar, ids as indexes into tables of names. */
function columnar(rows: WalkRow[]) {
  const tables = { animal: [] as string[], unit: [] as string[], establishment: [] as string[], stay: [] as number[], egress: [] as string[] };
  const index = <K extends keyof typeof tables>(k: K, v: (typeof tables)[K][number] | null) => {
    if (v === null) return -1;
    const list = tables[k] as unknown[];
    const at = list.indexOf(v);
    return at >= 0 ? at : list.push(v) - 1;
  };
  const n = rows.length;
  const reached: ReachedRows = {
    length: n,
    animal: Int32Array.from(rows, (r) => index('animal', r.animal_id)),
    unit: Int32Array.from(rows, (r) => index('unit', r.control_unit_id)),
    establishment: Int32Array.from(rows, (r) => index('establishment', r.establishment_id)),
    stay: Int32Array.from(rows, (r) => index('stay', Number(r.stay_id))),
    exposure: Float64Array.from(rows, (r) => Number(r.us_exposure)),
    hops: Int32Array.from(rows, (r) => r.int_hops),
    viaAnimal: Int32Array.from(rows, (r) => index('animal', r.via_animal_id)),
    viaUnit: Int32Array.from(rows, (r) => index('unit', r.via_control_unit_id)),
    viaTime: Float64Array.from(rows, (r) => (r.us_via === null ? NaN : Number(r.us_via))),
    seed: Uint8Array.from(rows, (r) => (r.bl_seed ? 1 : 0)),
    legEgress: Int32Array.from(rows, (r) => index('egress', r.leg_egress_id)),
  };
  const names = { animalId: (i: number) => tables.animal[i]!, unitId: (i: number) => tables.unit[i]!, establishmentId: (i: number) => tables.establishment[i]!, stayId: (i: number) => tables.stay[i]!, egressId: (i: number) => tables.egress[i]!, compareAnimals: (a: number, b: number) => (tables.animal[a]! < tables.animal[b]! ? -1 : tables.animal[a]! > tables.animal[b]! ? 1 : 0) };
  return { reached, names };
}

/** The egress of a row's leg, read from its stays as the walk in memory reads it from its graph: the last before the stay in path order, a BACKWARD question's the stay's own. */
const legEgress = (arrived: boolean) =>
  arrived
    ? `(select b.animals_egress_id::text from animal_stay s join animal_stay b on b.animal_id = s.animal_id and (${stayKey('b')}, b.ts_from, b.id) < (${stayKey('s')}, s.ts_from, s.id)
         where s.id = w.stay_id and b.animals_egress_id is not null order by ${stayKey('b')} desc, b.ts_from desc, b.id desc limit 1)`
    : `(select s.animals_egress_id::text from animal_stay s where s.id = w.stay_id)`;

const micros = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;

describe('the answer stored from a walk in memory', () => {
  test('equals the storing statement over the same walk', async () => {
    const em = app.service.orm.em.fork();
    const db = app.service.db;
    const admin = await login(app, await makeUser(app, { admin: true }));
    const [{ county_id } = { county_id: '' }] = await em.execute<{ county_id: string }[]>('select county_id from establishment where id = ?', [places[0]!.unit.establishmentId]);
    const callers = [admin.access, (await official(app, county_id)).access, places[0]!.owner.access];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom('FORWARD' as const, 'BACKWARD' as const, 'BOTH' as const),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 }),
        async (seed, direction, maxHops, byUnit, who) => {
          const { units, animals } = await network(seed);
          const actor = await app.service.core.auth.authenticate(db, callers[who]!);
          const from = at((seed % 97) + 10);
          const to = at((seed % 97) + 10 + ((seed >> 8) % 90));
          const id = byUnit ? units[seed % units.length]! : animals[seed % animals.length]!;
          const q: TraceQuestion = {
            seed: { sql: byUnit ? 's.control_unit_id = ?' : 's.animal_id = ?', params: [id] },
            place: { kind: byUnit ? 'unit' : 'animal', id },
            from,
            to,
            direction,
            maxHops,
            visibleUnit: (column, on = {}) => controlUnitPolicy.unitIn(actor, column, 'MOVEMENTS', on),
          };
          const inSql = await traceRun(db, q, randomUUID(), 'sql');
          const walks = direction === 'BOTH' ? [true, false] : [direction === 'FORWARD'];
          const parts = [];
          for (const forward of walks) {
            const rows = await em.execute<WalkRow[]>(
              `select w.animal_id, w.control_unit_id, w.establishment_id, w.stay_id::text as stay_id, ${micros('w.ts_exposure')} as us_exposure, w.int_hops, w.via_animal_id, w.via_control_unit_id,
                      ${micros('w.ts_via')} as us_via, w.bl_seed, ${legEgress(direction !== 'BACKWARD')} as leg_egress_id
                 from trace_runs(array(select s.id from animal_stay s where ${q.seed.sql} and s.ts_from <= ? and coalesce(s.ts_to, now()) >= ?), ?::timestamptz, ?::timestamptz, ?::boolean, ?::integer) w`,
              [id, to, from, from, to, forward, maxHops],
            );
            parts.push(rows);
          }
          const { reached, names } = columnar(parts.flat());
          const inMemory = await storeTraceAnswer(db, q, reached, names, { head: null, recent: 0 }, randomUUID(), 'memory');
          await inMemory.pending?.store();
          expect(inMemory.total).toBe(inSql.total);
          expect(await inMemory.pending!.page(db, 5000, 0)).toEqual(await traceRunPage(db, inSql.id, 5000, 0));
          expect(await inMemory.pending!.page(db, 3, 2)).toEqual(await traceRunPage(db, inSql.id, 3, 2));
          expect(inMemory.establishments).toEqual(inSql.establishments);
          expect(await traceRunPage(db, inMemory.id, 5000, 0)).toEqual(await traceRunPage(db, inSql.id, 5000, 0));
          const groups = (run: string) => em.execute(`select ord, int_group_from, int_group_to, ts_via from trace_answer where run_id = ? order by ord`, [run]);
          expect(await groups(inMemory.id)).toEqual(await groups(inSql.id));
        },
      ),
      { numRuns: 40 },
    );
  });
});
