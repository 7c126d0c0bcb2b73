import { randomUUID } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { foldInt8, hashInt8, hashUint32Extended, hashUuidBytes } from '../src/trace/graph/pg-hash.js';
import { checkGraph } from '../src/trace/graph/trace-graph.check.js';
import { sameFingerprint } from '../src/trace/graph/trace-graph.fingerprint.js';
import { pgGraphSource, pgliteGraphSource, type GraphSource } from '../src/trace/graph/trace-graph.source.js';
import { TraceGraphStore } from '../src/trace/graph/trace-graph.store.js';
import { TraceGraph } from '../src/trace/graph/trace-graph.js';
import { useApp } from './helpers/app.js';
import { holding, moveByGta, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockAnimals } from './helpers/tags.js';

/**
 * The graph compared with the database (docs/decisions/trace.md, "Never wrong"): the stays'
 * fingerprint per partition, read in one statement, equals the graph's own computed from memory
 * when the graph is current as of that statement's snapshot, and differs after a write that
 * bypassed the change log's triggers. PostgreSQL's hash functions computed in JavaScript equal the
 * server's. Every write that names no animal (TRUNCATE, a partition detached or attached,
 * `trace_graph_stale()`) makes the next refresh read the graph again whole.
 */
const app = useApp();
const county = useCounty(app);
const em = () => app.service.orm.em.fork();
const SCRATCH = 'animal_stay_y2100_2104';

let source: GraphSource;
let farm: Holding;
let feedlot: Holding;
beforeAll(async () => {
  const native = await app.service.orm.em.getConnection().getNativeClient();
  if (process.env.DATABASE_URL) source = pgGraphSource(native as pg.Pool);
  else source = pgliteGraphSource(native as unknown as PGlite);
  farm = await holding(app, county);
  feedlot = await holding(app, county);
});
afterAll(async () => {
  await em().execute(`drop table if exists ${SCRATCH}`);
});
const newStore = () => new TraceGraphStore(source, () => new TraceGraph(), { purgeEveryMs: 0 });

/** The graph's fingerprint against a fresh reading of the database's (after bringing the graph to it). */
async function compared(store: TraceGraphStore<TraceGraph>): Promise<'equal' | 'mismatch' | 'stale'> {
  const graph = await store.current();
  return (await checkGraph(source, graph, store.readUnder!)).verdict;
}

test('PostgreSQL\'s hashint8, hashint8extended and uuid_hash computed in JavaScript equal the server\'s', async () => {
  const ints = [0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 + 5, 4_294_967_295, 1_767_225_600_123_456, -86_400_000_000, 2 ** 53 - 1, -(2 ** 53) + 1];
  for (let i = 0; i < 40; i++) ints.push(Math.floor((Math.random() - 0.3) * 2 ** 53));
  const uuids = [...Array.from({ length: 40 }, () => randomUUID()), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
  const server = await em().execute<{ h: string; x: string }[]>('select (hashint8(v)::int8 & 4294967295)::text as h, hashint8extended(v, 0)::text as x from unnest(?::int8[]) with ordinality as u(v, n) order by n', [`{${ints.join(',')}}`]);
  expect(ints.map((v) => String(hashInt8(v)))).toEqual(server.map((r) => r.h));
  expect(ints.map((v) => { const [hi, lo] = hashUint32Extended(foldInt8(v)); return BigInt.asIntN(64, (BigInt(hi!) << 32n) | BigInt(lo!)).toString(); })).toEqual(server.map((r) => r.x));
  const uuidServer = await em().execute<{ h: string }[]>('select (uuid_hash(v)::int8 & 4294967295)::text as h from unnest(?::uuid[]) with ordinality as u(v, n) order by n', [`{${uuids.join(',')}}`]);
  expect(uuids.map((u) => String(hashUuidBytes(Buffer.from(u.replaceAll('-', ''), 'hex'), 0)))).toEqual(uuidServer.map((r) => r.h));
});

test('after the load and after refreshes the graph\'s fingerprint equals the database\'s; a write past the triggers makes them differ, and the store reads the graph again', async () => {
  const { codes, animalIds } = await stockAnimals(app, farm.unit.unitId, 4);
  await moveByGta(app, farm, feedlot, codes.slice(0, 2));
  const store = newStore();
  await store.ready();
  expect(await compared(store)).toBe('equal');
  const read = await source.fingerprint();
  expect(read.parts.filter((p) => p.name === 'animal_stay_current')[0]!.stays).toBeGreaterThan(0);
  expect(read.parts[0]).toMatchObject({ name: null, stays: 0 });

  // Through the service (the change log): still equal, at the check's own snapshot.
  await moveByGta(app, feedlot, farm, codes.slice(0, 1));
  expect(await compared(store)).toBe('equal');
  await moveByGta(app, farm, feedlot, codes.slice(2, 4));
  expect(await store.verify()).toBe('equal');
  expect(store.stats).toMatchObject({ loads: 1, checks: 1, mismatches: 0 });

  // A bulk writer with the triggers off (session_replication_role = replica): no change row names the animal.
  await em().transactional(async (tx) => {
    await tx.execute('set local session_replication_role = replica');
    await tx.execute(`update animal_stay set ts_from = ts_from - interval '1 microsecond' where animal_id = ? and ts_to is null`, [animalIds[3]]);
  });
  const graph = await store.current();
  const since = store.readUnder!;
  const check = await checkGraph(source, graph, since);
  expect(check.verdict).toBe('mismatch');
  expect(sameFingerprint(check.database, check.graph)).toBe(false);
  // Only the open stays' partition differs.
  const differing = check.database.filter((p, i) => p.checksum !== check.graph[i]!.checksum).map((p) => p.name);
  expect(differing).toEqual(['animal_stay_current']);

  expect(await store.verify()).toBe('mismatch');
  expect(store.stats).toMatchObject({ loads: 2, checks: 2, mismatches: 1 });
  expect(await store.verify()).toBe('equal');
});

test('TRUNCATE of a partition marks the graph stale: the next refresh reads it again whole', async () => {
  const { animalIds } = await stockAnimals(app, farm.unit.unitId, 2);
  await em().execute(`create table ${SCRATCH} partition of animal_stay for values from ('2100-01-01 00:00:00+00') to ('2105-01-01 00:00:00+00')`);
  // A partition made by hand has no TRUNCATE trigger until trace_graph_stale() (or animal_stay_partitions) guards it.
  await em().execute('select trace_graph_stale()');
  expect(await em().execute(`select 1 from pg_trigger where tgrelid = '${SCRATCH}'::regclass and tgname = 'trace_change_stay_truncate'`)).toHaveLength(1);
  await em().execute(`insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to) values (?, ?, ?, '2100-06-01', '2101-01-01')`, [animalIds[0], feedlot.unit.unitId, feedlot.unit.establishmentId]);
  const store = newStore();
  await store.ready();
  const before = await store.current();
  expect(before.animalIndex(animalIds[0]!)).toBeDefined();
  const stays = before.stays;
  expect(await compared(store)).toBe('equal');

  await em().execute(`truncate ${SCRATCH}`);
  const after = await store.current();
  expect(store.stats.loads).toBe(2);
  expect(after.stays).toBe(stays - 1);
  expect(await compared(store)).toBe('equal');
});

test('a partition detached or attached by hand, then trace_graph_stale(): the graph is read again whole; cli stays:detach marks it itself', async () => {
  const [animal] = (await stockAnimals(app, farm.unit.unitId, 1)).animalIds;
  await em().execute(`create table if not exists ${SCRATCH} partition of animal_stay for values from ('2100-01-01 00:00:00+00') to ('2105-01-01 00:00:00+00')`);
  await em().execute(`insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to) values (?, ?, ?, '2100-06-01', '2101-01-01')`, [animal, feedlot.unit.unitId, feedlot.unit.establishmentId]);
  const store = newStore();
  await store.ready();
  const stays = (await store.current()).stays;

  await em().execute(`alter table animal_stay detach partition ${SCRATCH}`);
  expect(await compared(store)).toBe('mismatch');
  await em().execute('select trace_graph_stale()');
  expect((await store.current()).stays).toBe(stays - 1);
  expect(store.stats.loads).toBe(2);

  await em().execute(`alter table animal_stay attach partition ${SCRATCH} for values from ('2100-01-01 00:00:00+00') to ('2105-01-01 00:00:00+00')`);
  await em().execute('select trace_graph_stale()');
  expect((await store.current()).stays).toBe(stays);
  expect(store.stats.loads).toBe(3);
  expect(await compared(store)).toBe('equal');

  // animal_stay_detach (cli stays:detach) writes the mark in its own transaction (rolled back here: the legacy block stays).
  await em().transactional(async (tx) => {
    await tx.execute('select animal_stay_detach(?)', ['animal_stay_legacy']);
    const marks = await tx.execute(`select 1 from trace_change where animal_id = '00000000-0000-0000-0000-000000000000' and xid = pg_current_xact_id()`);
    expect(marks).toHaveLength(1);
    throw new Error('rolled back');
  }).catch((e: Error) => expect(e.message).toBe('rolled back'));
  await em().execute(`drop table ${SCRATCH}`);
});

test('the blocks animal_stay_partitions makes carry the TRUNCATE trigger; so do the egresses and embarks; TRUNCATE of the whole table writes the mark', async () => {
  await em().transactional(async (tx) => {
    await tx.execute('select animal_stay_partitions(12)');
    const unguarded = await tx.execute(`select t.relid::text from pg_partition_tree('animal_stay'::regclass) t where not exists (select 1 from pg_trigger g where g.tgrelid = t.relid and g.tgname = 'trace_change_stay_truncate')`);
    expect(unguarded).toEqual([]);
    const others = await tx.execute<{ t: string }[]>(`select tgrelid::regclass::text as t from pg_trigger where tgname in ('trace_change_egress_truncate', 'trace_change_embark_truncate') order by 1`);
    expect(others.map((r) => r.t)).toEqual(['animals_egress', 'travel_embark']);
    // The whole table, then the embarks (the stays' vehicles): each writes the mark (all rolled back).
    const marks = async () => (await tx.execute<{ n: number }[]>(`select count(*)::int as n from trace_change where animal_id = '00000000-0000-0000-0000-000000000000' and xid = pg_current_xact_id()`))[0]!.n;
    await tx.execute('truncate animal_stay');
    const afterStays = await marks();
    expect(afterStays).toBeGreaterThan(0);
    await tx.execute('truncate travel_embark');
    expect(await marks()).toBeGreaterThan(afterStays);
    throw new Error('rolled back');
  }).catch((e: Error) => expect(e.message).toBe('rolled back'));
});


