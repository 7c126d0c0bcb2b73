import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely } from 'kysely';
import { closeStays, reopenStaysOf } from '../src/animals/stays.js';
import { staysOfAnimals } from '../src/animals/stay.reader.js';
import { toPositional } from '../src/db/sql.js';
import { fromConcurrentWrite } from '../src/shared/errors.js';
import { mustPost, useApp } from './helpers/app.js';
import { recording, rows } from './helpers/db.js';
import { egressRead, holding, ingressRead, issueGta } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockAnimals } from './helpers/tags.js';

/**
 * Issue 25, item 3: the stays partitioned by when they ended, key coalesce(ts_to, 'infinity')
 * (Migration0068StayPartitions, docs/decisions/partitioning.md): the open stays in
 * animal_stay_current, the closed ones in blocks of five calendar years (the converted table is
 * animal_stay_legacy, every stay that ended before its block's end).
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
const thisYear = new Date().getUTCFullYear();
const block = thisYear - (thisYear % 5) + 5;
const nextBlock = `animal_stay_y${block}_${block + 4}`;

const app = useApp();
const county = useCounty(app);

const partitionsOf = async (): Promise<string[]> =>
  (await rows<{ name: string }>(app, `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'animal_stay'::regclass order by 1`)).map((r) => r.name);
const partOf = async (animalId: string) => rows<{ part: string; open: boolean }>(app, 'select tableoid::regclass::text as part, ts_to is null as open from animal_stay where animal_id = ? order by ts_from, id', [animalId]);
const em = () => app.service.orm.em.fork();
const rollback = new Error('rollback');

/** Runs `work` in a transaction that is rolled back (partitions made or detached there leave nothing behind). */
async function rolledBack(work: (tx: EntityManager) => Promise<void>): Promise<void> {
  await expect(em().transactional(async (tx) => (await work(tx), Promise.reject(rollback)))).rejects.toBe(rollback);
}

/** A transaction's manager that records each statement the writers in src/animals/stays.ts send through it (executeBound). */
function recordingTx(tx: EntityManager, seen: CompiledQuery[]): EntityManager {
  const runner = tx.getTransactionContext<Kysely<unknown>>()!;
  const recorder = { executeQuery: (q: CompiledQuery) => (seen.push(q), runner.executeQuery(q)) };
  return new Proxy(tx, { get: (t, k) => (k === 'getTransactionContext' ? () => recorder : Reflect.get(t, k)) });
}

/** The plan of `q` in `tx`, sequential scans priced out (a missing index still shows one). */
async function planOf(tx: EntityManager, q: CompiledQuery): Promise<string> {
  const runner = tx.getTransactionContext<Kysely<unknown>>()!;
  await runner.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
  const plan = await runner.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
  return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
}

test('the open stays\' partition and the legacy one reaching to the next block; a block made ahead; a stay at its boundary lands in the later one', async () => {
  expect(await partitionsOf()).toEqual(expect.arrayContaining(['animal_stay_current', 'animal_stay_legacy']));
  const h = await holding(app, county);
  const { animalIds: [animal] } = await stockAnimals(app, h.unit.unitId, 1);
  await rolledBack(async (tx) => {
    // Ahead: the blocks of this year to six years on, the next one among them, and each only once.
    const made = await tx.execute<{ animal_stay_partitions: string }[]>('select animal_stay_partitions(6)');
    expect(made.map((r) => r.animal_stay_partitions)).toEqual([nextBlock]);
    expect(await tx.execute('select animal_stay_partitions(6)')).toEqual([]);
    const landed: string[] = [];
    for (const at of [`${block - 1}-12-31T23:59:59.999999Z`, `${block}-01-01T00:00:00Z`]) {
      const [r] = await tx.execute<{ part: string }[]>(
        `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to) values (?, ?, ?, now(), ?::timestamptz) returning tableoid::regclass::text as part`,
        [animal, h.unit.unitId, h.unit.establishmentId, at],
      );
      landed.push(r!.part);
    }
    expect(landed).toEqual(['animal_stay_legacy', nextBlock]);
    // Each new block has its own unique id (the primary key is unique per partition).
    const [pk] = await tx.execute<{ def: string }[]>(`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ?::regclass and contype = 'p'`, [nextBlock]);
    expect(pk!.def).toBe('PRIMARY KEY (id)');
  });
});

test('an open stay is in animal_stay_current; closing it moves the row to the closed stays, reopening moves it back', async () => {
  const h = await holding(app, county);
  const to = await holding(app, county);
  const { animalIds: [animal] } = await stockAnimals(app, h.unit.unitId, 1);
  expect(await partOf(animal!)).toEqual([{ part: 'animal_stay_current', open: true }]);
  const egress = (await mustPost(app, '/api/animals-egress', h.owner.access, { from_control_unit_id: h.unit.unitId, to_control_unit_id: to.unit.unitId })).body.data;
  // The keys' statement triggers still see a moved row (its update's transition tables): an unknown egress is refused.
  await expect(em().transactional((tx) => closeStays(tx, [animal!], new Date(), { animals_egress_id: randomUUID() }))).rejects.toThrow(/animal_stay_animals_egress_id_fkey/);
  await em().transactional((tx) => closeStays(tx, [animal!], new Date(), { animals_egress_id: egress.id }));
  expect(await partOf(animal!)).toEqual([{ part: 'animal_stay_legacy', open: false }]);
  await em().transactional((tx) => reopenStaysOf(tx, egress.id, [animal!]));
  expect(await partOf(animal!)).toEqual([{ part: 'animal_stay_current', open: true }]);
});

test('ids come from a sequence, unique per partition; no foreign key references a stay', async () => {
  const h = await holding(app, county);
  const { animalIds } = await stockAnimals(app, h.unit.unitId, 2);
  const ids = await rows<{ id: string }>(app, 'select id::text from animal_stay where animal_id = any(?::uuid[]) order by id', [`{${animalIds.join(',')}}`]);
  expect(BigInt(ids[1]!.id)).toBeGreaterThan(BigInt(ids[0]!.id));
  const [def] = await rows<{ d: string }>(app, `select pg_get_expr(adbin, adrelid) as d from pg_attrdef where adrelid = 'animal_stay'::regclass and adnum = (select attnum from pg_attribute where attrelid = 'animal_stay'::regclass and attname = 'id')`);
  expect(def!.d).toBe(`nextval('animal_stay_id_seq'::regclass)`);
  const unique = await rows<{ part: string }>(app, `select conrelid::regclass::text as part from pg_constraint where contype = 'p' and conrelid in (select inhrelid from pg_inherits where inhparent = 'animal_stay'::regclass) order by 1`);
  expect(unique.map((r) => r.part)).toEqual((await partitionsOf()).sort());
  expect(await rows(app, `select conname from pg_constraint where confrelid = 'animal_stay'::regclass`)).toEqual([]);
});

test('the oldest closed block detaches (cold storage), the open stays never', async () => {
  const h = await holding(app, county);
  const { animalIds: [animal] } = await stockAnimals(app, h.unit.unitId, 1);
  await em().transactional((tx) => closeStays(tx, [animal!], new Date()));
  await rolledBack(async (tx) => {
    await tx.execute('select animal_stay_partitions(6)');
    const detach = (part: string) => tx.execute('select animal_stay_detach(?)', [part]);
    // Refused in a savepoint of their own (PGlite has one connection: the transaction's).
    const refused = (part: string) => tx.transactional((inner) => inner.execute('select animal_stay_detach(?)', [part]));
    await expect(refused(nextBlock)).rejects.toThrow(/oldest partition first \(animal_stay_legacy\)/);
    await expect(refused('animal_stay_current')).rejects.toThrow(/not a partition of closed stays/);
    await detach('animal_stay_legacy');
    expect((await tx.execute<{ name: string }[]>(`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'animal_stay'::regclass order by 1`)).map((r) => r.name)).toEqual(['animal_stay_current', nextBlock]);
    // The detached block is a table of its own (pg_dump it, then drop it); the animal's path starts after it.
    expect(await tx.execute('select count(*)::int as n from animal_stay_legacy where animal_id = ?', [animal])).toEqual([{ n: 1 }]);
    expect(await tx.execute('select count(*)::int as n from animal_stay where animal_id = ?', [animal])).toEqual([{ n: 0 }]);
  });
});

describe('one open stay per animal', () => {
  test('a second open stay of an animal is refused by the open partition\'s unique index', async () => {
    const h = await holding(app, county);
    const { animalIds: [animal] } = await stockAnimals(app, h.unit.unitId, 1);
    await expect(em().execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) values (?, ?, ?, now())', [animal, h.unit.unitId, h.unit.establishmentId])).rejects.toThrow(
      /animal_stay_open/,
    );
  });

  test('two ingresses finishing one animal\'s arrival at once: one open stay, the other answer the contract\'s', async () => {
    const farm = await holding(app, county);
    const feedlot = await holding(app, county, 'FEEDLOT');
    const { codes } = await stockAnimals(app, farm.unit.unitId, 1);
    const animal = (await rows<{ id: string }>(app, 'select animal_id as id from tag where str_code = ?', [codes[0]]))[0]!.id;
    const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 1);
    const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: feedlot.unit.unitId, gta_id: gta.id, tags: [egressRead(codes[0]!)] })).body.data;
    await mustPost(app, `/api/animals-egress/${egress.id}/finish`, farm.owner.access, {}, 200);
    const ingresses = await Promise.all(
      [1, 2].map(async () => (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: [{ gta_id: gta.id }], tags: [ingressRead(codes[0]!)] })).body.data),
    );
    const finished = await Promise.all(ingresses.map((i) => app.call('POST', `/api/animals-ingress/${i.id}/finish`, { token: feedlot.owner.access })));
    expect(finished.filter((r) => r.status >= 500)).toEqual([]);
    expect(finished.map((r) => r.status)).toContain(200);
    for (const r of finished.filter((f) => f.status !== 200)) expect(r.body.error).toMatch(/^(CONFLICT|RULE_VIOLATED|INVALID_STATE)$/);
    expect((await partOf(animal)).filter((s) => s.open)).toEqual([{ part: 'animal_stay_current', open: true }]);
  });
});

onPostgres('a stay closed by two writers at once', () => {
  test('the second fails 40001 (its row moved to another partition), which the service answers CONFLICT CONCURRENT_WRITE', async () => {
    const h = await holding(app, county);
    const { animalIds: [animal] } = await stockAnimals(app, h.unit.unitId, 1);
    let second: Promise<unknown> | undefined;
    await em().transactional(async (tx) => {
      await closeStays(tx, [animal!], new Date());
      second = em().transactional((other) => closeStays(other, [animal!], new Date()));
      second.catch(() => undefined);
      // The second waits on the row this one moved.
      for (let i = 0; i < 200; i++) {
        const waiting = await rows<{ n: number }>(app, `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'update animal_stay s set ts_to%'`);
        if (waiting[0]!.n) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    });
    const error = await second!.then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: '40001' });
    expect(fromConcurrentWrite(error)).toMatchObject({ code: 'CONFLICT', detail: { rule: 'CONCURRENT_WRITE' } });
    expect((await partOf(animal!)).map((s) => s.open)).toEqual([false]);
  });
});

describe('the hot statements use their indexes and prune', () => {
  test('closing stays (the animal\'s open stay): the open partition alone, by an index; reopening by the egress index', async () => {
    const h = await holding(app, county);
    const { animalIds } = await stockAnimals(app, h.unit.unitId, 2);
    await rolledBack(async (tx) => {
      const seen: CompiledQuery[] = [];
      await closeStays(recordingTx(tx, seen), animalIds, new Date());
      await reopenStaysOf(recordingTx(tx, seen), randomUUID(), animalIds);
      const [close, reopen] = [await planOf(tx, seen[0]!), await planOf(tx, seen[1]!)];
      // By animal_stay_open or the path index of that partition, as the statistics make it cheaper (an index scan,
      // or a bitmap heap scan over one: the suite's other files leave more or fewer open stays behind).
      expect(close).toMatch(/(Index Scan using \w+|Bitmap Heap Scan) on animal_stay_current/);
      expect(close).not.toMatch(/Seq Scan/);
      // The rows updated are the open partition's alone; the previous stay's end (previousStayEnded, "Stays in
      // path order" in src/animals/stays.ts) reads the closed partitions, each by its path index (the open one pruned).
      const legacy = close.split('\n').filter((l) => l.includes('animal_stay_legacy'));
      expect(legacy.length).toBeGreaterThan(0);
      for (const line of legacy) expect(line).toMatch(/Index Only Scan Backward using animal_stay_path_legacy on animal_stay_legacy/);
      expect(reopen).not.toMatch(/Seq Scan/);
      expect(reopen).toMatch(/(Index Scan using|Bitmap Index Scan on) animal_stay_egress_legacy/);
    });
  });

  test('an animal\'s path (its stays in every partition, by the path index)', async () => {
    const h = await holding(app, county);
    const { animalIds } = await stockAnimals(app, h.unit.unitId, 1);
    const { db, seen } = recording(app);
    expect((await staysOfAnimals(db, animalIds))[0]).toHaveLength(1);
    const plan = await em().transactional((tx) => planOf(tx, CompiledQuery.raw(toPositional(seen[0]!.sql), seen[0]!.params)));
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/(Index Scan using|Bitmap Index Scan on) animal_stay_path_legacy/);
    expect(plan).toMatch(/(Index Scan using|Bitmap Index Scan on) animal_stay_current_animal_id\w*/);
  });
});
