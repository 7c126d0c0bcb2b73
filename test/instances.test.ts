import { randomUUID } from 'node:crypto';
import { startApp, type Reply, type TestApp } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { cnpj, cpf, email, lastMail, login, makeUser, member } from './helpers/factories.js';
import { animalBody, fieldWork } from './helpers/identify.js';
import { scratchDatabase } from './helpers/scratch-db.js';
import { makeUnit, stockAnimals, stockTags } from './helpers/tags.js';
import { vehicleBody } from './helpers/travels.js';

/**
 * Issue 25, "several instances, one behaviour": two services on one database (A and B) behave as
 * one. On PostgreSQL A and B are two services of their own (each its pool, its memory); on PGlite
 * (one process's database, one session) B is A, and the tests that need two are skipped.
 */
const LIMIT = 5;
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await startApp({ LOGIN_LIMIT_PER_LOGIN: String(LIMIT) });
  b = process.env.DATABASE_URL ? await startApp({ LOGIN_LIMIT_PER_LOGIN: String(LIMIT) }) : a;
}, 120_000);
afterAll(async () => {
  await a.close();
  if (b !== a) await b.close();
});

/** A then B then A...: the i-th request goes to one of the two. */
const either = (i: number) => (i % 2 ? b : a);
const outcome = (r: Reply) => ({ status: r.status, error: r.body?.error, detail: r.body?.detail });
const wrongLogin = (app: TestApp, email: string) => app.call('POST', '/api/login', { body: { str_email: email, str_password: 'not the password' } });

onPostgres('migrations under an advisory lock (PostgreSQL only: a PGlite database belongs to one process)', () => {
  test('two instances started at once on a fresh database: both come up, the schema migrated once, one administrator', async () => {
    const base = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    const fresh = await scratchDatabase(`${base}_instances`);
    const env = { DATABASE_URL: fresh.url, ADMIN_EMAIL: 'first@example.com', ADMIN_PASSWORD: 'change-me-please' };
    const started = await Promise.allSettled([startApp(env), startApp(env)]);
    try {
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual(['up', 'up']);
      const one = (started[0] as PromiseFulfilledResult<TestApp>).value;
      expect(await count(one, 'mikro_orm_migrations')).toBe(await count(one, 'mikro_orm_migrations where name is not null'));
      expect(await rows(one, 'select name, count(*)::int as n from mikro_orm_migrations group by name having count(*) > 1')).toEqual([]);
      expect(await count(one, '"user" where bl_admin')).toBe(1);
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
      await fresh.drop();
    }
  }, 180_000);
});

describe('the login throttle counts an attempt before the password is checked', () => {
  test(`12 wrong passwords for one account at once: at most ${LIMIT} are checked (401), the rest 429`, async () => {
    const person = await makeUser(a);
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => wrongLogin(either(i), person.email)));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(12 - LIMIT);
  });

  test('the right password after fewer failures than the limit still signs in, and clears the count', async () => {
    const person = await makeUser(a);
    for (let i = 0; i < LIMIT - 1; i++) expect((await wrongLogin(either(i), person.email)).status).toBe(401);
    await login(b, person);
    for (let i = 0; i < LIMIT; i++) expect((await wrongLogin(either(i), person.email)).status).toBe(401);
    expect(outcome(await wrongLogin(a, person.email))).toMatchObject({ status: 429, error: 'RATE_LIMITED' });
  });
});

describe('a create with a client id sent twice at once answers the same 201 twice', () => {
  const twice = (path: string, token: string, body: unknown) => Promise.all([a.call('POST', path, { token, body }), b.call('POST', path, { token, body })]);

  test('vehicles', async () => {
    const driver = await member(a, 'OWNER', undefined, 'TRANSPORTER');
    for (let round = 0; round < 4; round++) {
      const body = vehicleBody({ id: randomUUID(), owner_id: driver.user.id });
      const [first, second] = await twice('/api/vehicles', driver.access, body);
      expect([outcome(first), outcome(second)]).toEqual([{ status: 201 }, { status: 201 }].map((s) => ({ ...s, error: undefined, detail: undefined })));
      expect(second.body.data.id).toBe(first.body.data.id);
      expect(await count(a, 'vehicle where id = ?', [body.id])).toBe(1);
    }
  });

  test('vehicles through GraphQL: both answers carry the one vehicle, no error', async () => {
    const driver = await member(a, 'OWNER', undefined, 'TRANSPORTER');
    const mutation = 'mutation ($input: VehicleCreateInput!) { createVehicle(input: $input) { id str_license_plate } }';
    for (let round = 0; round < 4; round++) {
      const input = vehicleBody({ id: randomUUID(), owner_id: driver.user.id });
      const both = await Promise.all([a.graphql(mutation, { input }, driver.access), b.graphql(mutation, { input }, driver.access)]);
      expect(both.map((r) => [r.body.errors, r.body.data?.createVehicle?.id])).toEqual([
        [undefined, input.id],
        [undefined, input.id],
      ]);
    }
  });

  test('organizations and users', async () => {
    const owner = await member(a);
    for (let round = 0; round < 3; round++) {
      for (const [path, body] of [
        ['/api/organizations', { id: randomUUID(), str_name: `Org ${round}`, str_document: cnpj() }],
        ['/api/users', { id: randomUUID(), str_name: `User ${round}`, str_email: email(), str_document: cpf() }],
      ] as const) {
        const [first, second] = await twice(path, owner.access, body);
        // A person is invited (202, CONTRACT.md's Accounts); an organization is created.
        const status = path === '/api/users' ? 202 : 201;
        expect([path, outcome(first), outcome(second)]).toEqual([path, ...[{ status }, { status }].map((s) => ({ ...s, error: undefined, detail: undefined }))]);
        expect(second.body).toEqual(first.body);
      }
    }
  });

  test('tags identifications (the identification id, or only the animals’ ids)', async () => {
    const { owner, unit, stock } = await fieldWork(a, 16);
    for (let round = 0; round < 4; round++) {
      const codes = stock.codes.slice(round * 4, round * 4 + 4);
      const animals = codes.map((c) => animalBody(c, { id: randomUUID() }));
      const body = { to_control_unit_id: unit.unitId, animals, ...(round % 2 ? {} : { id: randomUUID() }) };
      const [first, second] = await twice('/api/tags-identifications', owner.access, body);
      expect([outcome(first), outcome(second)]).toEqual([{ status: 201 }, { status: 201 }].map((s) => ({ ...s, error: undefined, detail: undefined })));
      expect(second.body.data.id).toBe(first.body.data.id);
      expect(await count(a, "tag where str_code in (?) and str_status = 'APPLIED'", [codes])).toBe(4);
    }
  });

  test('tags reservations (each item’s id)', async () => {
    const { owner, unit } = await fieldWork(a, 20);
    for (let round = 0; round < 4; round++) {
      const body = { reservations: [{ id: randomUUID(), control_unit_id: unit.unitId, str_name: `Lote ${round}`, int_quantity: 3 }] };
      const [first, second] = await twice('/api/tags-reservations', owner.access, body);
      expect([outcome(first), outcome(second)]).toEqual([{ status: 201 }, { status: 201 }].map((s) => ({ ...s, error: undefined, detail: undefined })));
      expect(await count(a, 'tag where tags_reservation_id = ?', [body.reservations[0]!.id])).toBe(3);
    }
  });
});

describe('reservations by quantity pick with FOR UPDATE SKIP LOCKED', () => {
  test('16 clients × 3 reservations of 5 tags at one unit of 1,000: 48 of 48 reserved, no tag twice', async () => {
    const owner = await member(a);
    const unit = await makeUnit(a, owner.org.id);
    await stockTags(a, unit.unitId, 1000);
    const client = async (c: number) => {
      const replies: Reply[] = [];
      for (let k = 0; k < 3; k++) replies.push(await either(c).call('POST', '/api/tags-reservations', { token: owner.access, body: { reservations: [{ control_unit_id: unit.unitId, str_name: `c${c}-${k}`, int_quantity: 5 }] } }));
      return replies;
    };
    const replies = (await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)))).flat();
    expect(replies.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
    const held = await rows<{ n: number; reservations: number }>(a, "select count(*)::int as n, count(distinct tags_reservation_id)::int as reservations from tag where last_control_unit_id = ? and str_status = 'RESERVED'", [unit.unitId]);
    expect(held).toEqual([{ n: 240, reservations: 48 }]);
  });
});

describe('reservations by range over both instances', () => {
  test('16 clients × 3 disjoint ranges of 5 tags at one unit: every range reserved whole', async () => {
    const owner = await member(a);
    const unit = await makeUnit(a, owner.org.id);
    const { codes } = await stockTags(a, unit.unitId, 240);
    const client = async (c: number) => {
      const replies: Reply[] = [];
      for (let k = 0; k < 3; k++) {
        const first = (c * 3 + k) * 5;
        const body = { reservations: [{ control_unit_id: unit.unitId, str_name: `c${c}-${k}`, str_begin: codes[first], str_finish: codes[first + 4] }] };
        replies.push(await either(c).call('POST', '/api/tags-reservations', { token: owner.access, body }));
      }
      return replies;
    };
    const replies = (await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)))).flat();
    expect(replies.filter((r) => r.status !== 201).map(outcome)).toEqual([]);
    const held = await rows<{ n: number; reservations: number }>(a, "select count(*)::int as n, count(distinct tags_reservation_id)::int as reservations from tag where last_control_unit_id = ? and str_status = 'RESERVED'", [unit.unitId]);
    expect(held).toEqual([{ n: 240, reservations: 48 }]);
  });
});

onPostgres('two instances on one database, requests alternating between them (PostgreSQL only: a PGlite database belongs to one process)', () => {
  test('the login throttle: failures at A and B add up to one count', async () => {
    const person = await makeUser(a);
    for (let i = 0; i < LIMIT; i++) expect((await wrongLogin(either(i), person.email)).status).toBe(401);
    expect(outcome(await wrongLogin(a, person.email))).toMatchObject({ status: 429, error: 'RATE_LIMITED' });
    expect(outcome(await wrongLogin(b, person.email))).toMatchObject({ status: 429, error: 'RATE_LIMITED' });
  });

  test('Idempotency-Key: a key used at A replays at B, once and at the same moment', async () => {
    const driver = await member(a, 'OWNER', undefined, 'TRANSPORTER');
    const send = (app: TestApp, key: string, body: unknown) => app.call('POST', '/api/vehicles', { token: driver.access, body, headers: { 'idempotency-key': key } });
    const body = vehicleBody({ owner_id: driver.user.id });
    const first = await send(a, 'one', body);
    const again = await send(b, 'one', body);
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(again.body).toEqual(first.body);
    const together = vehicleBody({ owner_id: driver.user.id });
    const both = await Promise.all([send(a, 'two', together), send(b, 'two', together)]);
    expect(both.map((r) => r.status)).toEqual([201, 201]);
    expect(both[1]!.body).toEqual(both[0]!.body);
    expect(await count(a, 'vehicle where str_license_plate = ?', [together.str_license_plate])).toBe(1);
  });

  test('stored create answers: a client id created at A answers the stored 201 at B', async () => {
    const driver = await member(a, 'OWNER', undefined, 'TRANSPORTER');
    const body = vehicleBody({ id: randomUUID(), owner_id: driver.user.id });
    const first = await a.call('POST', '/api/vehicles', { token: driver.access, body });
    await a.call('PATCH', `/api/vehicles/${body.id}`, { token: driver.access, body: { str_color: 'Azul' } });
    const again = await b.call('POST', '/api/vehicles', { token: driver.access, body });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(again.body).toEqual(first.body);
  });

  test('sessions: a token from A works at B; logged out at B, refused at A; a refresh retried at the other gets the same pair, and dies with its session', async () => {
    const person = await makeUser(a);
    const session = await login(a, person);
    expect((await b.call('GET', '/api/whoami', { token: session.access })).status).toBe(200);
    expect((await b.call('POST', '/api/logout', { token: session.access })).status).toBe(204);
    expect(outcome(await a.call('GET', '/api/whoami', { token: session.access }))).toMatchObject({ status: 401, error: 'UNAUTHENTICATED' });

    const other = await login(b, person);
    const refreshed = await a.call('POST', '/api/refresh', { body: { refresh_token: other.refresh } });
    expect(refreshed.status).toBe(200);
    // A retry within the grace (a lost response) at the other instance gets the very pair A gave.
    const retried = await b.call('POST', '/api/refresh', { body: { refresh_token: other.refresh } });
    expect([retried.status, retried.body.data?.str_access_token]).toEqual([200, refreshed.body.data.str_access_token]);
    await b.call('POST', '/api/logout', { token: refreshed.body.data.str_access_token });
    expect(outcome(await a.call('POST', '/api/refresh', { body: { refresh_token: refreshed.body.data.str_refresh_token } }))).toMatchObject({ status: 401, error: 'UNAUTHENTICATED' });
  });

  test('trace runs: the same trace at A and B at once, four times: the same answer, every page', async () => {
    const owner = await member(a);
    const unit = await makeUnit(a, owner.org.id);
    await stockAnimals(a, unit.unitId, 30);
    const input = { establishment_id: unit.establishmentId, ts_from: new Date(Date.now() - 86_400_000).toISOString(), ts_to: new Date(Date.now() + 86_400_000).toISOString() };
    const page = (app: TestApp, n: number) => app.call('POST', `/api/trace?int_current_page=${n}&int_max_results=10`, { token: owner.access, body: input });
    const answers = await Promise.all(Array.from({ length: 8 }, async (_, i) => [await page(either(i), 1), await page(either(i + 1), 2), await page(either(i), 3)]));
    for (const pages of answers) expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
    const ids = answers.map((pages) => pages.flatMap((p) => p.body.data.map((x: { animal_id: string }) => x.animal_id)));
    expect(new Set(ids[0]).size).toBe(30);
    for (const other of ids) expect(other).toEqual(ids[0]);
  });

  test('verification codes: sent at A, a second send at B is 429; wrong codes at A and B add up to the 5 attempts', async () => {
    const m = await member(a);
    expect((await a.call('POST', '/api/user-verification', { token: m.access, body: { str_channel: 'EMAIL' } })).status).toBe(201);
    expect(outcome(await b.call('POST', '/api/user-verification', { token: m.access, body: { str_channel: 'EMAIL' } }))).toMatchObject({ status: 429, error: 'RATE_LIMITED' });
    const code = /(\d{6})/.exec((await lastMail(a, m.email))?.str_body ?? '')![1]!;
    const wrong = code === '000000' ? '000001' : '000000';
    const tries = await Promise.all(Array.from({ length: 8 }, (_, i) => either(i).call('POST', '/api/user-verification/verify', { token: m.access, body: { str_verification_code: wrong } })));
    expect(tries.filter((r) => r.status === 422 && r.body.error === 'VALIDATION_FAILED').length).toBe(5);
    expect(tries.filter((r) => r.body?.error === 'INVALID_STATE').length).toBe(3);
    expect(outcome(await b.call('POST', '/api/user-verification/verify', { token: m.access, body: { str_verification_code: code } }))).toMatchObject({ status: 422, error: 'INVALID_STATE' });
  });
});
