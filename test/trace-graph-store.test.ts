import { randomUUID } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { pgGraphSource, pgliteGraphSource, type GraphSource } from '../src/trace/graph/trace-graph.source.js';
import { TraceGraphStore, type GraphSink } from '../src/trace/graph/trace-graph.store.js';
import { rowsOf, type GraphStay, type StayRows } from '../src/trace/graph/trace-graph.types.js';
import { useApp } from './helpers/app.js';
import { holding, moveByGta, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockAnimals } from './helpers/tags.js';

/**
 * The trace graph kept exactly fresh (Migration0071TraceChanges, src/trace/graph/trace-graph.store.ts;
 * docs/decisions/trace.md, "The graph kept fresh"): after a full load, and after each kind of write
 * and a refresh, the graph holds exactly the rows a plain reading of the tables gives.
 */
const onPostgres = process.env.DATABASE_URL ? test : test.skip;
const app = useApp();
const county = useCounty(app);
const em = () => app.service.orm.em.fork();
const BASE = Date.UTC(2026, 0, 1);
const day = (n: number) => new Date(BASE + n * 86_400_000).toISOString();

/** A graph as small as the interface allows: each animal's rows. */
class MapGraph implements GraphSink {
  readonly byAnimal = new Map<string, GraphStay[]>();
  add(rows: StayRows): void {
    for (const r of rowsOf(rows)) this.byAnimal.set(r.animal, [...(this.byAnimal.get(r.animal) ?? []), r]);
  }
  replaceAnimals(ids: readonly string[], rows: readonly GraphStay[]): void {
    for (const id of ids) this.byAnimal.delete(id);
    this.add(rows);
  }
  all(): GraphStay[] {
    return [...this.byAnimal.values()].flat().sort((a, b) => a.id - b.id);
  }
  of(animal: string): GraphStay[] {
    return (this.byAnimal.get(animal) ?? []).slice().sort((a, b) => a.from - b.from || a.id - b.id);
  }
}

let source: GraphSource;
let pool: pg.Pool | undefined;
beforeAll(async () => {
  const native = await app.service.orm.em.getConnection().getNativeClient();
  if (process.env.DATABASE_URL) source = pgGraphSource((pool = native as pg.Pool));
  else source = pgliteGraphSource(native as unknown as PGlite);
});
const newStore = (options = {}) => new TraceGraphStore(source, () => new MapGraph(), { purgeEveryMs: 0, ...options });

/** Every stay as the tables say, read another way than the store's (Migration0067's VEHICLE as a lateral lookup, the times to text). */
async function table(): Promise<string[][]> {
  const rows = await em().execute<Record<string, string | null>[]>(
    `select s.id::text as id, s.animal_id::text as animal, s.control_unit_id::text as unit, s.establishment_id::text as establishment,
            to_char(s.ts_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as "from", to_char(s.ts_to at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as "to",
            (select coalesce(te.travel_id, e.id) from animals_egress e left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
              where e.id = s.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED'))::text as vehicle
       from animal_stay s order by s.id`,
  );
  return rows.map((r) => [r.id!, r.animal!, r.unit!, r.establishment!, r.from!, r.to ?? '', r.vehicle ?? '']);
}

/** A time in epoch microseconds as the table's text above. */
const asText = (micros: number) => `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}`;
const flat = (g: MapGraph) => g.all().map((s) => [String(s.id), s.animal, s.unit, s.establishment, asText(s.from), s.to === null ? '' : asText(s.to), s.vehicle ?? '']);

async function expectExact(store: TraceGraphStore<MapGraph>): Promise<MapGraph> {
  const graph = await store.current();
  expect(flat(graph)).toEqual(await table());
  return graph;
}

async function herd(n: number, unit: Holding): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  for (const id of ids) await em().execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) values (?, 'BOVINE', 'MALE', ?, ?)`, [id, unit.unit.unitId, day(0)]);
  return ids;
}
const stay = (animal: string, at: Holding, from: string, to: string | null, egress: string | null = null) =>
  em().execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_egress_id) values (?, ?, ?, ?, ?, ?)', [animal, at.unit.unitId, at.unit.establishmentId, from, to, egress]);
async function egress(from: Holding, to: Holding, status = 'FINISHED'): Promise<string> {
  const id = randomUUID();
  await em().execute(`insert into animals_egress (id, from_control_unit_id, to_control_unit_id, str_status, bl_move_with_tag_reading) values (?, ?, ?, ?, true)`, [id, from.unit.unitId, to.unit.unitId, status]);
  return id;
}
async function travel(owner: Holding, from: Holding, to: Holding): Promise<string> {
  const id = randomUUID();
  const vehicle = randomUUID();
  const letters = () => Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');
  await em().execute(`insert into vehicle (id, organization_id, str_license_plate) values (?, ?, ?)`, [vehicle, owner.owner.org.id, `${letters()}2B34`]);
  await em().execute(`insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`, [
    id,
    vehicle,
    owner.owner.user.id,
    from.unit.unitId,
    to.unit.unitId,
    day(0),
  ]);
  return id;
}
const embark = (travelId: string, egressId: string) =>
  em().execute('insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at) values (?, ?, ?, ?)', [randomUUID(), travelId, egressId, day(5)]);

let farm: Holding;
let feedlot: Holding;
beforeAll(async () => {
  farm = await holding(app, county);
  feedlot = await holding(app, county);
});

test('a full load is the table to the microsecond, each stay\'s vehicle resolved as the walk resolves it', async () => {
  const [x, y, z, w] = await herd(4, farm);
  const trip = await travel(farm, farm, feedlot);
  const onTruck = await egress(farm, feedlot);
  await embark(trip, onTruck);
  const walked = await egress(farm, feedlot);
  const open = await egress(farm, feedlot, 'OPEN');
  const released = await egress(farm, feedlot);
  await embark(trip, released);
  await em().execute('update travel_embark set ts_released_at = ? where animals_egress_id = ?', [day(6), released]);
  await stay(x!, farm, '2026-01-01T00:00:00.123457Z', day(5), onTruck);
  await stay(y!, farm, day(0), day(5), walked);
  await stay(z!, farm, day(0), day(5), open);
  await stay(w!, farm, day(0), day(5), released);
  await stay(x!, feedlot, day(6), null);

  const store = newStore({ chunk: 3 });
  await store.ready();
  const graph = await expectExact(store);
  expect(graph.of(x!).map((s) => [s.unit, s.from, s.to, s.vehicle])).toEqual([
    [farm.unit.unitId, Date.UTC(2026, 0, 1) * 1000 + 123_457, (BASE + 5 * 86_400_000) * 1000, trip],
    [feedlot.unit.unitId, (BASE + 6 * 86_400_000) * 1000, null, null],
  ]);
  expect([y, z, w].map((a) => graph.of(a!)[0]!.vehicle)).toEqual([walked, null, released]);
  expect(store.stats.loads).toBe(1);
});

test('nothing changed: the refresh reads nothing; concurrent callers share one refresh; a movement through the service shows up exactly', async () => {
  const store = newStore();
  await store.ready();
  await Promise.all([store.current(), store.current(), store.current()]);
  expect(store.stats).toMatchObject({ unchanged: 1, refreshes: 0 });

  const { codes, animalIds } = await stockAnimals(app, farm.unit.unitId, 3);
  await moveByGta(app, farm, feedlot, codes);
  const graph = await expectExact(store);
  expect(store.stats).toMatchObject({ loads: 1, refreshes: 1, unchanged: 1 });
  for (const a of animalIds) expect(graph.of(a).map((s) => s.unit)).toEqual([farm.unit.unitId, feedlot.unit.unitId]);
  // The egress that closed their stays at the farm is their vehicle (FINISHED or RECEIVED, no travel).
  expect(graph.of(animalIds[0]!)[0]!.vehicle).toEqual(expect.any(String));
});

test('stays inserted, updated (closed: moved between partitions) and deleted by plain SQL show up after the next refresh', async () => {
  const [a, b] = await herd(2, farm);
  const store = newStore();
  await store.ready();
  await stay(a!, farm, day(1), null);
  await stay(b!, farm, day(1), null);
  await expectExact(store);
  await em().execute('update animal_stay set ts_to = ? where animal_id = ? and ts_to is null', [day(3), a]);
  await stay(a!, feedlot, day(3), null);
  let graph = await expectExact(store);
  expect(graph.of(a!).map((s) => s.unit)).toEqual([farm.unit.unitId, feedlot.unit.unitId]);
  await em().execute('delete from animal_stay where animal_id = ?', [b]);
  graph = await expectExact(store);
  expect(graph.byAnimal.has(b!)).toBe(false);
  expect(store.stats.loads).toBe(1);
});

test('an egress\'s status and a travel\'s embark change the vehicle of the stays it closed', async () => {
  const [a] = await herd(1, farm);
  const out = await egress(farm, feedlot, 'OPEN');
  await stay(a!, farm, day(1), day(2), out);
  const store = newStore();
  await store.ready();
  expect((await store.current()).of(a!)[0]!.vehicle).toBeNull();
  await em().execute(`update animals_egress set str_status = 'FINISHED' where id = ?`, [out]);
  expect((await expectExact(store)).of(a!)[0]!.vehicle).toBe(out);
  const trip = await travel(farm, farm, feedlot);
  await embark(trip, out);
  expect((await expectExact(store)).of(a!)[0]!.vehicle).toBe(trip);
  await em().execute('update travel_embark set ts_released_at = ? where animals_egress_id = ?', [day(3), out]);
  expect((await expectExact(store)).of(a!)[0]!.vehicle).toBe(out);
  await em().execute(`update animals_egress set str_status = 'CANCELLED' where id = ?`, [out]);
  expect((await expectExact(store)).of(a!)[0]!.vehicle).toBeNull();
  expect(store.stats).toMatchObject({ loads: 1, refreshes: 4 });
});

onPostgres('a transaction begun before a refresh and committed after it is read by the next refresh', async () => {
  const [a] = await herd(1, farm);
  const store = newStore();
  await store.ready();
  const writer = await pool!.connect();
  try {
    await writer.query('begin');
    await writer.query('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) values ($1, $2, $3, $4)', [a, farm.unit.unitId, farm.unit.establishmentId, day(1)]);
    // A later transaction commits while the first is still open: the refresh reads it, not the open one.
    await stay(a!, feedlot, day(0), day(1));
    let graph = await expectExact(store);
    expect(graph.of(a!).map((s) => s.unit)).toEqual([feedlot.unit.unitId]);
    await writer.query('commit');
    graph = await expectExact(store);
    expect(graph.of(a!).map((s) => s.unit)).toEqual([feedlot.unit.unitId, farm.unit.unitId]);
  } finally {
    writer.release();
  }
});

/**
 * The purge keeps rows of transactions newer than the oldest one running in the cluster (other
 * databases' too): retried until that one has ended.
 */
async function purgedOf(animal: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    await source.purge('1 hour');
    if (!(await em().execute('select 1 from trace_change where animal_id = ?', [animal])).length) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

test('a horizon whose change rows were purged reads everything again; a purge of rows it had read does not', async () => {
  const store = newStore();
  await store.ready();
  const [a] = await herd(1, farm);
  // Rows the load had read (below its horizon's xmin), aged past the retention and purged.
  await em().execute(`update trace_change set ts_changed_at = now() - interval '2 hours' where xid < pg_snapshot_xmin(?::pg_snapshot)`, [store.readUnder]);
  await source.purge('1 hour');
  await expectExact(store);
  expect(store.stats.loads).toBe(1);
  // A change after the horizon, purged before the store read it: the store must reload.
  await stay(a!, farm, day(1), null);
  await em().execute(`update trace_change set ts_changed_at = now() - interval '2 hours'`);
  expect(await purgedOf(a!)).toBe(true);
  const graph = await expectExact(store);
  expect(store.stats.loads).toBe(2);
  expect(graph.of(a!)).toHaveLength(1);
});

test('a refresh purges the change rows older than the retention when due', async () => {
  const store = newStore({ purgeEveryMs: 1, retention: '1 hour' });
  await store.ready();
  const [a] = await herd(1, farm);
  await stay(a!, farm, day(1), null);
  await em().execute(`update trace_change set ts_changed_at = now() - interval '2 hours' where animal_id = ?`, [a]);
  // (Retried while a transaction older than the row runs anywhere in the cluster: the purge keeps it until then.)
  for (let i = 0; i < 100 && !store.stats.purged; i++) {
    await new Promise((r) => setTimeout(r, 50));
    await expectExact(store);
  }
  expect(store.stats.purged).toBeGreaterThan(0);
  expect(await em().execute('select 1 from trace_change where animal_id = ?', [a])).toEqual([]);
});

test('a caller arriving while a refresh runs is answered by the next refresh, which sees what committed before its call', async () => {
  const [a] = await herd(1, farm);
  let checked!: () => void;
  const hasChecked = new Promise<void>((r) => (checked = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  // The first refresh is held after its check statement ran (its snapshot taken).
  let held = false;
  const holding: GraphSource = {
    ...source,
    async check(since) {
      const verdict = await source.check(since);
      if (!held) {
        held = true;
        checked();
        await released;
      }
      return verdict;
    },
  };
  const store = new TraceGraphStore(holding, () => new MapGraph(), { purgeEveryMs: 0 });
  await store.ready();
  const first = store.current();
  await hasChecked;
  await stay(a!, farm, day(1), null);
  const second = store.current();
  release();
  await first;
  expect((await second).of(a!)).toHaveLength(1);
  expect(flat(await second)).toEqual(await table());
});
