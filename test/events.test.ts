import { randomUUID } from 'node:crypto';
import { appendEvents, verifyChain, type EventInput } from '../src/shared/events.js';
import { requestScope } from '../src/shared/request-scope.js';
import { useApp } from './helpers/app.js';
import { cnpj, cpf, email, login, makeUser, member } from './helpers/factories.js';

interface EventRow {
  seq: string | number;
  id: string;
  str_type: string;
  str_record_type: string;
  record_id: string;
  actor_id: string | null;
  str_payload: string;
}

const app = useApp();

const em = () => app.service.orm.em.fork();
const eventsOf = (recordId: string) => em().execute<EventRow[]>('select * from event where record_id = ? order by seq', [recordId]);

/** Rewrites one event's payload past the append-only trigger (session_replication_role = replica skips triggers). */
async function forcePayload(seq: number, payload: string): Promise<void> {
  await em().transactional(async (tx) => {
    await tx.execute('set local session_replication_role = replica');
    await tx.execute('update event set str_payload = ? where seq = ?', [payload, seq]);
  });
}

/** An organization, a user created by its owner over REST and that user's login: the events they leave. */
async function someChanges() {
  const founder = await makeUser(app);
  const session = await login(app, founder);
  const org = await app.call('POST', '/api/organizations', { token: session.access, body: { str_name: 'Events Org', str_document: cnpj() } });
  expect(org.status).toBe(201);
  const owner = await login(app, founder, org.body.data.id);
  const created = await app.call('POST', '/api/users', { token: owner.access, body: { str_name: 'Created User', str_email: email('created'), str_document: cpf() } });
  expect(created.status).toBe(202);
  const [user] = await em().execute<{ id: string }[]>('select id from "user" where str_email = ?', [created.body.data.str_email]);
  return { founder, orgId: org.body.data.id as string, userId: user!.id };
}

test('changes leave events with their type, record and actor, and the chain verifies', async () => {
  const { founder, orgId, userId } = await someChanges();

  const orgEvents = await eventsOf(orgId);
  expect(orgEvents.map((e) => e.str_type)).toEqual(['ORGANIZATION_CREATED']);
  expect(orgEvents[0]).toMatchObject({ str_record_type: 'Organization', actor_id: founder.user.id });
  expect(JSON.parse(orgEvents[0]!.str_payload)).toMatchObject({ owner_user_id: founder.user.id });

  const userEvents = await eventsOf(userId);
  expect(userEvents.map((e) => e.str_type)).toEqual(['USER_CREATED']);
  expect(userEvents[0]).toMatchObject({ str_record_type: 'User', actor_id: founder.user.id });
  // The account joins on confirming; the invitation names the organization and the role.
  const [invited] = await em().execute<{ str_payload: string }[]>(`select str_payload from event where str_type = 'USER_INVITED' and str_payload::jsonb ->> 'user_id' = ?`, [userId]);
  expect(JSON.parse(invited!.str_payload)).toMatchObject({ organization_id: orgId, str_role: 'OPERATOR' });

  // The founder's two logins (plain, then with the organization active) each started a session.
  const founderEvents = await eventsOf(founder.user.id);
  expect(founderEvents.filter((e) => e.str_type === 'SESSION_STARTED').map((e) => e.actor_id)).toEqual([founder.user.id, founder.user.id]);

  const report = await verifyChain(em());
  expect(report.broken).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(report.checked).toBeGreaterThanOrEqual(4);
  // Batches join up: a tiny batch size walks the same chain.
  const small = await verifyChain(em(), 3);
  expect(small.ok).toBe(true);
  expect(small.checked).toBeGreaterThanOrEqual(report.checked);
});

test('the event table refuses UPDATE and DELETE', async () => {
  const { orgId } = await someChanges();
  const [before] = await eventsOf(orgId);
  await expect(em().execute('update event set str_payload = ? where seq = ?', ['{}', before!.seq])).rejects.toThrow(/append-only/);
  await expect(em().execute('delete from event where seq = ?', [before!.seq])).rejects.toThrow(/append-only/);
  await expect(em().execute('delete from event where record_id = ?', [orgId])).rejects.toThrow(/append-only/);
  const [after] = await eventsOf(orgId);
  expect(after).toEqual(before);
});

test('a tampered payload breaks the chain at that event; restoring it mends it', async () => {
  const { orgId } = await someChanges();
  const [event] = await eventsOf(orgId);
  const seq = Number(event!.seq);
  const original = event!.str_payload;
  try {
    await forcePayload(seq, JSON.stringify({ ...JSON.parse(original), str_name: 'Forged' }));
    expect((await eventsOf(orgId))[0]!.str_payload).not.toBe(original);
    const report = await verifyChain(em());
    expect(report.ok).toBe(false);
    expect(report.broken).toEqual({ seq, id: event!.id, reason: expect.any(String) });
  } finally {
    await forcePayload(seq, original);
  }
  expect((await eventsOf(orgId))[0]!.str_payload).toBe(original);
  expect(await verifyChain(em())).toEqual({ ok: true, checked: expect.any(Number) });
});

test('appending 50 events runs as many statements as appending one', async () => {
  const owner = await member(app);
  const events = (n: number): EventInput[] =>
    Array.from({ length: n }, (_, i) => ({ type: 'TEST_EVENT', recordType: 'Test', recordId: randomUUID(), actorId: owner.user.id, payload: { i } }));

  /** Statements appendEvents runs for these events; the transaction is rolled back so the shared chain keeps no test rows. */
  const measure = async (batch: EventInput[]): Promise<number> => {
    const scope = { requestId: 't', statements: 0 };
    let ran = -1;
    const rollback = new Error('rollback');
    await expect(
      requestScope.run(scope, () =>
        em().transactional(async (tx) => {
          const start = scope.statements;
          await appendEvents(tx, batch);
          ran = scope.statements - start;
          const ids = batch.map((e) => e.recordId);
          const stored = await tx.execute<{ n: number }[]>(`select count(*)::int as n from event where record_id in (${ids.map(() => '?').join(', ')})`, ids);
          expect(stored[0]!.n).toBe(batch.length);
          throw rollback;
        }),
      ),
    ).rejects.toBe(rollback);
    return ran;
  };

  const one = await measure(events(1));
  const fifty = await measure(events(50));
  expect(one).toBeGreaterThan(0);
  expect(fifty).toBe(one);
  expect(await verifyChain(em())).toEqual({ ok: true, checked: expect.any(Number) });
});

test('one append of interleaved streams, several events each and any characters, continues each chain as verify reads it', async () => {
  const owner = await member(app);
  const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
  // What PostgreSQL hashes must be the bytes Node hashes: accents, emoji, quotes, backslashes, newlines, escaped NUL.
  const odd = { str_name: 'Fazenda São João 🐄 "aspas" \\barra\\ \n linha \u0000 fim', n: 1.5, nested: [{ ç: 'ü' }] };
  const event = (recordId: string, i: number, payload: unknown = { i }): EventInput => ({ type: 'TEST_EVENT', recordType: 'Test', recordId, actorId: owner.user.id, payload });
  const rollback = new Error('rollback');
  await expect(
    em().transactional(async (tx) => {
      await appendEvents(tx, [event(a, 0)]);
      // a continues from its head; b and c start; each stream's events interleaved with the others'.
      await appendEvents(tx, [event(b, 1, odd), event(a, 2), event(c, 3), event(b, 4), event(a, 5, odd), event(c.toUpperCase(), 6)]);
      const rows = await tx.execute<{ record_id: string; str_payload: string; str_prev_hash: string; str_hash: string }[]>(
        'select record_id, str_payload, str_prev_hash, str_hash from event where record_id in (?, ?, ?) order by seq',
        [a, b, c],
      );
      expect(rows.map((r) => [r.record_id, JSON.parse(r.str_payload).i ?? 'odd'])).toEqual([
        [a, 0],
        [b, 'odd'],
        [a, 2],
        [c, 3],
        [b, 4],
        [a, 'odd'],
        [c, 6],
      ]);
      expect(JSON.parse(rows[1]!.str_payload)).toEqual(odd);
      for (const id of [a, b, c]) {
        const chain = rows.filter((r) => r.record_id === id);
        expect(chain[0]!.str_prev_hash).toBe('0'.repeat(64));
        for (let i = 1; i < chain.length; i++) expect(chain[i]!.str_prev_hash).toBe(chain[i - 1]!.str_hash);
      }
      // verifyChain recomputes every hash in Node from the stored columns.
      expect(await verifyChain(tx)).toEqual({ ok: true, checked: expect.any(Number) });
      throw rollback;
    }),
  ).rejects.toBe(rollback);
});
