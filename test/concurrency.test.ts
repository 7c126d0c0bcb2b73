import { describeError } from '../graphql/errors.js';
import { verifyChain } from '../src/shared/events.js';
import { useApp, type Reply } from './helpers/app.js';
import { cnpj, login, makeUser, member, type Person } from './helpers/factories.js';

const app = useApp({ LOGIN_LIMIT_PER_LOGIN: '100000' });

const PAIRS = 40;
const AT_ONCE = 8;

/** Runs `pairs` pairs of requests, `atOnce` pairs at a time, both requests of a pair together; every reply. */
async function race(pairs: number, atOnce: number, pair: (i: number) => [Promise<Reply>, Promise<Reply>]): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let start = 0; start < pairs; start += atOnce) {
    const round = Array.from({ length: Math.min(atOnce, pairs - start) }, (_, k) => pair(start + k)).flat();
    replies.push(...(await Promise.all(round)));
  }
  return replies;
}

const statuses = (replies: Reply[]) => replies.filter((r) => r.status >= 500).map((r) => ({ status: r.status, body: r.body }));
const loginOf = (person: Person) => app.call('POST', '/api/login', { body: { str_email: person.email, str_password: person.password } });

/**
 * Issue 9: writes on one user that used to deadlock on the service-wide event-log lock and the
 * user row (PostgreSQL 40P01 → 500). Each record's events are now a chain of their own, locked in
 * one order, so none of these pairs fails, and the log still verifies.
 */
describe('concurrent writes on one user never deadlock', () => {
  test('self-update with login, 8 × 40', async () => {
    const person = await makeUser(app);
    const session = await login(app, person);
    const replies = await race(PAIRS, AT_ONCE, (i) => [app.call('PUT', '/api/self-update', { token: session.access, body: { str_name: `Name ${i}` } }), loginOf(person)]);
    expect(statuses(replies)).toEqual([]);
    expect(replies.every((r) => r.status === 200)).toBe(true);
  });

  test('self-update with organization create, 8 × 40', async () => {
    const person = await makeUser(app);
    const session = await login(app, person);
    const replies = await race(PAIRS, AT_ONCE, (i) => [
      app.call('PUT', '/api/self-update', { token: session.access, body: { str_name: `Name ${i}` } }),
      app.call('POST', '/api/organizations', { token: session.access, body: { str_name: `Org ${i}`, str_document: cnpj() } }),
    ]);
    expect(statuses(replies)).toEqual([]);
    expect(replies.map((r) => r.status).sort()).toEqual([...Array(PAIRS).fill(200), ...Array(PAIRS).fill(201)].sort());
  });

  test("an owner's update of a member with that member's login, 8 × 40", async () => {
    const owner = await member(app);
    const person = await makeUser(app);
    const em = app.service.orm.em.fork();
    await em.execute(`insert into membership (id, user_id, organization_id, str_role) values (gen_random_uuid(), ?, ?, 'OPERATOR')`, [person.user.id, owner.org.id]);
    const replies = await race(PAIRS, AT_ONCE, (i) => [app.call('PATCH', `/api/users/${person.user.id}`, { token: owner.access, body: { str_name: `Name ${i}` } }), loginOf(person)]);
    expect(statuses(replies)).toEqual([]);
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(await verifyChain(app.service.orm.em.fork())).toEqual({ ok: true, checked: expect.any(Number) });
  });
});

test('a transaction PostgreSQL rolls back for a deadlock or a serialization failure is a 409 CONFLICT to send again, never a 500', async () => {
  for (const state of ['40P01', '40001']) {
    // The driver's own error for that SQLSTATE, as a real deadlock raises it.
    const error = await app.service.orm.em
      .fork()
      .execute(`do $$ begin raise exception 'two writers met' using errcode = '${state}'; end $$`)
      .then(() => null, (e: unknown) => e);
    expect(describeError(error, 'request-id')).toMatchObject({ code: 'CONFLICT', detail: { rule: 'CONCURRENT_WRITE' }, retryAfter: 1 });
  }
});
