import { randomUUID } from 'node:crypto';
import type { Query } from '../src/db/sql.js';
import { appendEvents, verifyChain, type EventInput } from '../src/shared/events.js';
import { recordHistory } from '../src/shared/history.js';
import { startApp, useApp, type TestApp } from './helpers/app.js';
import { recording, rows } from './helpers/db.js';
import { member } from './helpers/factories.js';
import { scratchDatabase } from './helpers/scratch-db.js';

/**
 * Issue 25, item 3: the event log partitioned by time (Migration0052EventLogPartitions,
 * docs/decisions/partitioning.md). A year's partition holds seq [year × 10^12, (year + 1) × 10^12).
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
const YEAR = 1_000_000_000_000n;
const thisYear = new Date().getUTCFullYear();

const app = useApp();

const partitionsOf = async (on: TestApp, table: string): Promise<string[]> =>
  (await rows<{ name: string }>(on, `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ?::regclass order by 1`, [table])).map((r) => r.name);

const someEvents = (recordId: string, n: number, actorId: string | null, subjects: string[] = []): EventInput[] =>
  Array.from({ length: n }, (_, i) => ({
    type: 'TEST_EVENT',
    recordType: 'Test',
    recordId,
    actorId,
    payload: { i },
    subjects: subjects.map((recordId) => ({ recordType: 'TestSubject', recordId })),
  }));

const append = (on: TestApp, events: EventInput[]) => on.service.orm.em.fork().transactional((tx) => appendEvents(tx, events));

test('this year\'s and next year\'s partitions exist ahead, for the log and its subject lists', async () => {
  for (const table of ['event', 'event_subject']) {
    expect(await partitionsOf(app, table)).toEqual(expect.arrayContaining([`${table}_y${thisYear}`, `${table}_y${thisYear + 1}`]));
  }
});

test('an event written now gets a seq of this year and lands in this year\'s partition, its subjects beside it', async () => {
  const owner = await member(app);
  const record = randomUUID();
  await append(app, someEvents(record, 1, owner.user.id, [randomUUID()]));
  const [e] = await rows<{ seq: string; part: string }>(app, 'select seq::text as seq, tableoid::regclass::text as part from event where record_id = ?', [record]);
  expect(BigInt(e!.seq) / YEAR).toBe(BigInt(thisYear));
  expect(e!.part).toBe(`event_y${thisYear}`);
  const [s] = await rows<{ part: string }>(app, 'select tableoid::regclass::text as part from event_subject where event_seq = ?', [e!.seq]);
  expect(s!.part).toBe(`event_subject_y${thisYear}`);
});

test('a row at a partition\'s boundary lands in the later year (FROM is inclusive, TO exclusive)', async () => {
  const boundary = BigInt(thisYear + 1) * YEAR;
  const rollback = new Error('rollback');
  const landed: string[] = [];
  await expect(
    app.service.orm.em.fork().transactional(async (tx) => {
      for (const seq of [boundary - 1n, boundary]) {
        const [r] = await tx.execute<{ part: string }[]>(
          `insert into event (seq, id, str_type, str_record_type, record_id, ts_occurred_at, str_payload, str_prev_hash, str_hash)
           values (?, ?, 'TEST', 'Test', ?, now(), '{}', '', '') returning tableoid::regclass::text as part`,
          [seq.toString(), randomUUID(), randomUUID()],
        );
        landed.push(r!.part);
      }
      throw rollback;
    }),
  ).rejects.toBe(rollback);
  expect(landed).toEqual([`event_y${thisYear}`, `event_y${thisYear + 1}`]);
});

describe('the hot statements use their indexes in every partition', () => {
  /** The plans of statements as the service runs them, with sequential scans priced out: a missing index still shows one. */
  async function plans(queries: Query[]): Promise<string[]> {
    return app.service.orm.em.fork().transactional(async (tx) => {
      await tx.execute('set local enable_seqscan = off');
      const out: string[] = [];
      for (const q of queries) {
        const plan = await tx.execute<{ 'QUERY PLAN': string }[]>(`explain ${q.sql}`, q.params);
        out.push(plan.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return out;
    });
  }
  const noSeqScan = (plan: string) => expect(plan).not.toMatch(/Seq Scan on event/);

  test('a record\'s history (its own events and the lists that name it)', async () => {
    const owner = await member(app);
    const record = randomUUID();
    const listed = randomUUID();
    await append(app, [...someEvents(record, 3, owner.user.id), ...someEvents(randomUUID(), 1, owner.user.id, [listed])]);
    const { db: recorded, seen } = recording(app);
    expect((await recordHistory(recorded, 'Test', record, null)).data).toHaveLength(3);
    expect((await recordHistory(recorded, 'TestSubject', listed, null)).data).toHaveLength(1);
    const [own, list] = await plans(seen);
    for (const plan of [own!, list!]) {
      noSeqScan(plan);
      expect(plan).toMatch(new RegExp(`(using|Bitmap Index Scan on) event_y${thisYear}_\\w+`));
    }
    expect(own).toMatch(new RegExp(`using event_y${thisYear}_str_record_type_record_id_seq_idx`));
    expect(list).toMatch(new RegExp(`(using|Bitmap Index Scan on) event_subject_y${thisYear}_record_id_event_seq_idx`));
  });

  test('the append\'s head (newest partition first, no sort), the chain\'s walk and the relay\'s subject lists', async () => {
    const head = {
      sql: `select e.str_hash from event e where e.str_record_type = ? and e.record_id = ? and e.bl_record_chain
             order by e.str_record_type desc, e.record_id desc, e.seq desc limit 1`,
      params: ['Test', randomUUID()],
    };
    const walk = { sql: 'select * from event where seq > ? order by seq limit ?', params: [0, 10] };
    const lists = { sql: 'select event_seq, record_id from event_subject where event_seq > ? and event_seq <= ? order by event_seq', params: [0, 10] };
    const [h, w, l] = await plans([head, walk, lists]);
    for (const plan of [h!, w!, l!]) noSeqScan(plan);
    for (const plan of [h!, w!]) expect(plan).not.toMatch(/Sort|Merge Append/);
    // Ordered by the partition key: the newest partition is read first and the scan stops at the first row.
    expect(h).toMatch(new RegExp(`Index Scan Backward using \\w+ on event_y${thisYear + 1}[^]*Index Scan Backward using \\w+ on event_y${thisYear}`));
    expect(w).toMatch(/Index Scan using \w*pkey\w* on event_legacy/);
    expect(l).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) event_subject_event_legacy/);
  });
});

onPostgres('old partitions detach to cold storage (a fresh database of its own)', () => {
  test('the oldest year detaches, its rows kept in a table of their own; the chain verifies and appends chain on from it', async () => {
    const base = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    const fresh = await scratchDatabase(`${base}_partitions`);
    const own = await startApp({ DATABASE_URL: fresh.url });
    try {
      const em = () => own.service.orm.em.fork();
      // The year's first inserts at once (the sequence put back below this year's base): one session
      // moves the sequence, every event lands in this year's partition, none in the older one.
      await em().execute(`select setval('event_seq_seq', 1000)`);
      const racing = Array.from({ length: 16 }, () => randomUUID());
      await Promise.all(racing.map((id) => append(own, someEvents(id, 2, null))));
      const landed = await rows<{ part: string; n: number }>(own, `select tableoid::regclass::text as part, count(*)::int as n from event where record_id = any(?::uuid[]) group by 1`, [`{${racing.join(',')}}`]);
      expect(landed).toEqual([{ part: `event_y${thisYear}`, n: 32 }]);
      expect((await rows<{ n: number }>(own, 'select count(*)::int as n from event_legacy'))[0]!.n).toBe(0);

      const kept = randomUUID();
      const gone = randomUUID();
      await append(own, [...someEvents(kept, 2, null, [randomUUID()]), ...someEvents(gone, 2, null)]);
      // Next year: the sequence moves to its range as event_next_seq moves it on 1 January.
      await em().execute(`select setval('event_seq_seq', ?)`, [(BigInt(thisYear + 1) * YEAR).toString()]);
      await append(own, someEvents(kept, 2, null));
      const before = await verifyChain(em());
      expect(before.ok).toBe(true);

      // Only the oldest partition may go (the anchors are each stream's last hash before what stays).
      await expect(em().execute('select event_log_detach(?)', [`event_y${thisYear}`])).rejects.toThrow(/oldest partition first \(event_legacy\)/);
      await em().execute('select event_log_detach(?)', ['event_legacy']);
      await em().execute('select event_log_detach(?)', [`event_y${thisYear}`]);
      expect(await partitionsOf(own, 'event')).toEqual([`event_y${thisYear + 1}`]);
      expect(await partitionsOf(own, 'event_subject')).toEqual([`event_subject_y${thisYear + 1}`]);
      // Cold storage: the detached year is a table of its own (pg_dump it, then drop it).
      const [cold] = await rows<{ n: number }>(own, `select count(*)::int as n from event_y${thisYear} where record_id in (?, ?)`, [kept, gone]);
      expect(cold!.n).toBe(4);
      expect((await rows<{ n: number }>(own, `select count(*)::int as n from event_subject_y${thisYear}`))[0]!.n).toBeGreaterThanOrEqual(1);

      const after = await verifyChain(em());
      expect(after).toMatchObject({ ok: true, checked: 2 });
      // A stream with events left chains on from its newest; one whose events all left, from its anchor.
      await append(own, [...someEvents(kept, 1, null), ...someEvents(gone, 1, null)]);
      const [anchor] = await rows<{ str_hash: string }>(own, 'select str_hash from event_chain_anchor where record_id = ?', [gone]);
      const [first] = await rows<{ str_prev_hash: string }>(own, 'select str_prev_hash from event where record_id = ?', [gone]);
      expect(first!.str_prev_hash).toBe(anchor!.str_hash);
      expect(await verifyChain(em())).toMatchObject({ ok: true, checked: 4 });

      // A forged anchor breaks the chain: the check is real.
      await em().execute(`update event_chain_anchor set str_hash = repeat('f', 64) where record_id = ?`, [gone]);
      expect(await verifyChain(em())).toMatchObject({ ok: false, broken: { reason: 'previous hash does not match the event before it' } });
    } finally {
      await own.close();
      await fresh.drop();
    }
  }, 180_000);
});
