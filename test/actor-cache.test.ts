import { startApp, type TestApp } from './helpers/app.js';
import { buildService, startChild, type ChildService } from './helpers/child.js';
import { login, makeUser, member } from './helpers/factories.js';
import { holding } from './helpers/movements.js';
import { makeCounty } from './helpers/places.js';
import { share } from './helpers/sharing.js';
import { ActorCache } from '../src/identity/actor-cache.js';
import { LISTENER_NAME } from '../src/identity/actor-listener.js';

/**
 * Issue 23: each instance keeps the actors it authenticated, so a request on a known session runs
 * no authentication statement, and forgets one on every instance as soon as it changes
 * (Migration0048ActorChanges's triggers, LISTEN/NOTIFY): a revoked token is refused within a
 * second everywhere, including by an instance in another process. While the listening connection
 * is down, nothing is kept or served from the cache.
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let a: TestApp;
beforeAll(async () => {
  a = await startApp({ ACTOR_CACHE: 'true' });
  await until(() => a.service.core.auth.actors.enabled, 10_000);
}, 120_000);
afterAll(() => a.close());

async function until(ok: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await ok()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(10);
  }
}

async function get(base: string, path: string, token: string): Promise<{ status: number; sql: number }> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
  await res.text();
  return { status: res.status, sql: Number(res.headers.get('x-sql-statements')) };
}

describe('the cache (PostgreSQL and PGlite)', () => {
  test('a second request on a session runs one statement fewer: the authentication', async () => {
    const owner = await member(a);
    const first = await get(a.url, '/api/whoami', owner.access);
    const second = await get(a.url, '/api/whoami', owner.access);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.sql).toBe(first.sql - 1);
  });

  test('a logout, a password change and a role change are seen by the next request of the same instance', async () => {
    const owner = await member(a);
    const other = await login(a, owner, owner.org.id);
    expect((await get(a.url, '/api/whoami', owner.access)).status).toBe(200);
    expect((await get(a.url, '/api/whoami', other.access)).status).toBe(200);
    expect((await a.call('POST', '/api/logout', { token: owner.access })).status).toBe(204);
    expect((await get(a.url, '/api/whoami', owner.access)).status).toBe(401);

    const third = await login(a, owner, owner.org.id);
    expect((await get(a.url, '/api/whoami', third.access)).status).toBe(200);
    expect((await a.call('PUT', '/api/self-update', { token: other.access, body: { str_current_password: owner.password, str_new_password: 'another-password-1' } })).status).toBe(200);
    expect((await get(a.url, '/api/whoami', third.access)).status).toBe(401);

    const operator = await makeUser(a);
    const em = a.service.orm.em.fork();
    await em.execute(`insert into membership (id, user_id, organization_id, str_role) values (gen_random_uuid(), ?, ?, 'OPERATOR')`, [operator.user.id, owner.org.id]);
    const op = await login(a, operator, owner.org.id);
    const owners = await login(a, { ...owner, password: 'another-password-1' }, owner.org.id);
    const members = `/api/organizations/${owner.org.id}/members`;
    expect((await get(a.url, members, op.access)).status).toBe(200);
    expect((await get(a.url, members, op.access)).status).toBe(200);
    expect((await a.call('DELETE', `${members}/${operator.user.id}`, { token: owners.access })).status).toBe(204);
    expect((await get(a.url, members, op.access)).status).not.toBe(200);
  });

  test('a caller cached without grants: an invite it accepts and a sharing to its organization open its next requests', async () => {
    const county = await makeCounty(a);
    const farm = await holding(a, county);
    const invitee = await member(a);
    const unit = `/api/control-units/${farm.unit.unitId}`;
    const first = await get(a.url, unit, invitee.access);
    const cached = await get(a.url, unit, invitee.access);
    expect([first.status, cached.status, cached.sql]).toEqual([404, 404, first.sql - 1]);
    const invite = await a.call('POST', '/api/invites', { token: farm.owner.access, body: { control_unit_id: farm.unit.unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', str_type: 'VIEWER' } });
    expect(invite.status).toBe(201);
    expect((await get(a.url, unit, invitee.access)).status).toBe(404);
    expect((await a.call('PATCH', `/api/invites/${invite.body.data.id}`, { token: invitee.access, body: { bl_accepted: true } })).status).toBe(200);
    expect((await get(a.url, unit, invitee.access)).status).toBe(200);

    const buyer = await member(a);
    const establishment = `/api/establishments/${farm.unit.establishmentId}`;
    expect((await get(a.url, establishment, buyer.access)).status).toBe(404);
    expect((await get(a.url, establishment, buyer.access)).status).toBe(404);
    await share(a, farm.owner.access, { lst_org_ids: [buyer.org.id], accesses: [{ establishment_id: farm.unit.establishmentId, str_scope: 'ANIMALS' }] });
    expect((await get(a.url, establishment, buyer.access)).status).toBe(200);
  });

  test('a read that began before a change does not store what it read', () => {
    const cache = new ActorCache();
    cache.setLive(true);
    const row = { bl_admin: false, str_type: 'PRODUCER', county_id: null, str_role: 'OWNER', ts_revoked_at: null };
    const mark = cache.mark();
    cache.changed('someone-else');
    cache.store('k', 'u', row, mark);
    expect(cache.get('k')).toBeUndefined();
    cache.store('k', 'u', row, cache.mark());
    expect(cache.get('k')).toEqual(row);
    cache.changed('u');
    expect(cache.get('k')).toBeUndefined();
    cache.store('k', 'u', row, cache.mark());
    cache.setLive(false);
    expect(cache.get('k')).toBeUndefined();
    cache.store('k', 'u', row, cache.mark());
    cache.setLive(true);
    expect(cache.get('k')).toBeUndefined();
  });
});

onPostgres('two instances in two processes (PostgreSQL)', () => {
  let b: ChildService;
  beforeAll(async () => {
    await buildService();
    b = await startChild({ DATABASE_URL: process.env.DATABASE_URL!, EXPOSE_SQL_STATEMENTS: 'true', ACTOR_CACHE: 'true' });
  }, 180_000);
  afterAll(async () => {
    b?.process.kill('SIGTERM');
    await b?.exited;
  });

  /** The other process has the session cached: a request there runs one statement fewer than its first. */
  async function cachedAtB(token: string): Promise<void> {
    const first = await get(b.url, '/api/whoami', token);
    expect(first.status).toBe(200);
    // Its listener may still be connecting right after its start.
    await until(async () => (await get(b.url, '/api/whoami', token)).sql < first.sql, 10_000);
  }

  const refusedAtB = (token: string, path = '/api/whoami') => until(async () => (await get(b.url, path, token)).status === 401, 1000);

  test('a logout at A: B refuses the token within a second', async () => {
    const owner = await member(a);
    await cachedAtB(owner.access);
    expect((await a.call('POST', '/api/logout', { token: owner.access })).status).toBe(204);
    await refusedAtB(owner.access);
  });

  test("a password change at A: B refuses the user's other sessions within a second", async () => {
    const owner = await member(a);
    const other = await login(a, owner, owner.org.id);
    await cachedAtB(other.access);
    expect((await a.call('PUT', '/api/self-update', { token: owner.access, body: { str_current_password: owner.password, str_new_password: 'another-password-1' } })).status).toBe(200);
    await refusedAtB(other.access);
  });

  test('a membership taken away at A: B stops granting the organization within a second', async () => {
    const owner = await member(a);
    const operator = await member(a, 'MANAGER', owner.org);
    const members = `/api/organizations/${owner.org.id}/members`;
    await cachedAtB(operator.access);
    expect((await get(b.url, members, operator.access)).status).toBe(200);
    expect((await a.call('DELETE', `${members}/${operator.user.id}`, { token: owner.access })).status).toBe(204);
    await until(async () => (await get(b.url, members, operator.access)).status !== 200, 1000);
  });

  test('a sharing to a user B has cached without grants, made at A: B shows it within a second', async () => {
    const county = await makeCounty(a);
    const farm = await holding(a, county);
    const buyer = await member(a);
    const establishment = `/api/establishments/${farm.unit.establishmentId}`;
    await cachedAtB(buyer.access);
    expect((await get(b.url, establishment, buyer.access)).status).toBe(404);
    await share(a, farm.owner.access, { lst_user_ids: [buyer.user.id], accesses: [{ establishment_id: farm.unit.establishmentId, str_scope: 'TAGS' }] });
    await until(async () => (await get(b.url, establishment, buyer.access)).status === 200, 1000);
  });

  test('a session revoked by plain SQL (no service involved): B refuses it within a second', async () => {
    const owner = await member(a);
    await cachedAtB(owner.access);
    await a.service.orm.em.fork().execute(`update auth_session set ts_revoked_at = now(), str_revoke_reason = 'TEST' where user_id = ?`, [owner.user.id]);
    await refusedAtB(owner.access);
  });

  test('the listening connection dropped: the cache is emptied and off until it is back, so a change made meanwhile is never missed', async () => {
    const owner = await member(a);
    const first = await get(a.url, '/api/whoami', owner.access);
    expect((await get(a.url, '/api/whoami', owner.access)).sql).toBe(first.sql - 1);
    const cache = a.service.core.auth.actors;
    expect(cache.size).toBeGreaterThan(0);
    const [ended] = await a.service.orm.em.fork().execute<{ ok: boolean }[]>('select bool_or(pg_terminate_backend(pid)) as ok from pg_stat_activity where application_name = ?', [`${LISTENER_NAME} ${process.pid}`]);
    expect(ended!.ok).toBe(true);
    await until(() => !cache.enabled || cache.size === 0, 2000);
    // Revoked while A hears nothing: the notification is lost, and must not matter.
    await a.service.orm.em.fork().execute(`update auth_session set ts_revoked_at = now(), str_revoke_reason = 'TEST' where user_id = ?`, [owner.user.id]);
    expect((await get(a.url, '/api/whoami', owner.access)).status).toBe(401);
    // It reconnects by itself, and caches again.
    await until(() => cache.enabled, 10_000);
    const again = await member(a);
    const one = await get(a.url, '/api/whoami', again.access);
    expect((await get(a.url, '/api/whoami', again.access)).sql).toBe(one.sql - 1);
  });
});
