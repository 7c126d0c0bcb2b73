import { randomUUID } from 'node:crypto';
import { loadConfig, ConfigError } from '../src/config.js';
import { expectStatus, startApp, useApp, type Reply, type TestApp } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { PASSWORD, lastMail, login, makeOrganization, makeUser, member } from './helpers/factories.js';
import { ISO_Z } from './helpers/places.js';
import { animalsStaying } from './helpers/stays.js';
import { makeUnit, ownerWithUnit, stockTags } from './helpers/tags.js';
import { eventsOf, setStatus } from './helpers/tags-out.js';

const app = useApp({ USER_FEATURES_DEFAULT: 'new-map, reports' });

const admin = async (a: TestApp = app) => {
  const person = await makeUser(a, { admin: true });
  return { ...person, ...(await login(a, person)) };
};

function expectError(res: Reply, status: number, error: string): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
}

describe('GET /api/home', () => {
  const HOME_KEYS = [
    'organization_id', 'int_animals', 'animals_by_status', 'int_establishments', 'int_control_units', 'int_tags', 'tags_by_status', 'int_open_animals_egresses',
    'int_open_animals_ingresses', 'int_open_movements', 'int_pending_invites', 'int_open_occurrences', 'ts_counted_at',
  ].sort();

  test("the active organization's counts, in one statement besides the token's; nothing of another organization; GraphQL the same", async () => {
    const { owner, unit } = await ownerWithUnit(app);
    await makeUnit(app, owner.org.id);
    const { animalIds } = await animalsStaying(app, unit.unitId, 3);
    await setStatus(app, 'animal', [animalIds[0]!], 'DEAD');
    await stockTags(app, unit.unitId, 4);
    const em = app.service.orm.em.fork();
    await em.execute(`insert into animals_egress (id, from_control_unit_id, bl_move_with_tag_reading) values (?, ?, true), (?, ?, true)`, [randomUUID(), unit.unitId, randomUUID(), unit.unitId]);
    await em.execute(`update animals_egress set str_status = 'CANCELLED' where id = (select id from animals_egress where from_control_unit_id = ? limit 1)`, [unit.unitId]);
    await em.execute(`insert into animals_ingress (id, to_control_unit_id, bl_move_with_tag_reading) values (?, ?, false)`, [randomUUID(), unit.unitId]);
    const invitee = await makeUser(app);
    const invited = await app.call('POST', '/api/invites', { token: owner.access, body: { control_unit_id: unit.unitId, user_id: invitee.user.id, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' } });
    expectStatus(invited, 201);
    const open = await app.call('POST', '/api/occurrences', { token: owner.access, body: { str_type: 'OTHER', control_unit_id: unit.unitId, str_description: 'Cerca' } });
    const closed = await app.call('POST', '/api/occurrences', { token: owner.access, body: { str_type: 'OTHER', control_unit_id: unit.unitId, str_description: 'Porteira' } });
    expectStatus(await app.call('POST', `/api/occurrences/${closed.body.data.id}/resolve`, { token: owner.access, body: { str_resolution: 'ok' } }), 200);
    expect(open.status).toBe(201);
    // Another organization's records do not count.
    const other = await ownerWithUnit(app);
    await animalsStaying(app, other.unit.unitId, 2);

    const res = await app.call('GET', '/api/home', { token: owner.access });
    expectStatus(res, 200);
    const h = res.body.data;
    expect(Object.keys(h).sort()).toEqual(HOME_KEYS);
    expect(h).toMatchObject({
      organization_id: owner.org.id,
      int_animals: 3,
      int_establishments: 2,
      int_control_units: 2,
      int_tags: 7,
      int_open_animals_egresses: 1,
      int_open_animals_ingresses: 1,
      int_open_movements: 2,
      int_pending_invites: 1,
      int_open_occurrences: 1,
    });
    expect(h.animals_by_status).toEqual([
      { str_status: 'ACTIVE', int_count: 2 }, { str_status: 'IN_TRANSIT', int_count: 0 }, { str_status: 'MISSING', int_count: 0 },
      { str_status: 'DEAD', int_count: 1 }, { str_status: 'SLAUGHTERED', int_count: 0 }, { str_status: 'EXPORTED', int_count: 0 },
    ]);
    expect(h.tags_by_status).toEqual([
      { str_status: 'AVAILABLE', int_count: 4 }, { str_status: 'RESERVED', int_count: 0 }, { str_status: 'APPLIED', int_count: 3 },
      { str_status: 'IN_TRANSIT', int_count: 0 }, { str_status: 'REPLACED', int_count: 0 }, { str_status: 'WRITTEN_OFF', int_count: 0 },
    ]);
    expect(h.ts_counted_at).toMatch(ISO_Z);
    // One statement for the token, one for every count.
    expect(res.sql).toBe(2);

    const gql = await app.graphql('{ home { organization_id int_animals int_open_movements animals_by_status { str_status int_count } } }', {}, owner.access);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.home).toMatchObject({ organization_id: owner.org.id, int_animals: 3, int_open_movements: 2 });
    expect(gql.sql).toBe(2);
  });

  test('without an active organization every count is 0; without a token 401', async () => {
    const person = await makeUser(app);
    const session = await login(app, person);
    const res = await app.call('GET', '/api/home', { token: session.access });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ organization_id: null, int_animals: 0, int_establishments: 0, int_tags: 0, int_pending_invites: 0, int_open_occurrences: 0 });
    expect(res.sql).toBe(2);
    expectError(await app.call('GET', '/api/home'), 401, 'UNAUTHENTICATED');
  });
});

describe('User Features', () => {
  const features = async (token: string) => {
    const res = await app.call('GET', '/api/user-features', { token });
    expectStatus(res, 200);
    return res.body.data.lst_features as string[];
  };

  test('default ∪ organization ∪ user, a level turning off what a lower one turns on; one event per change, the same setting again none', async () => {
    const boss = await admin();
    const m = await member(app, 'VIEWER');
    const peer = await member(app, 'OWNER', m.org);
    expect(await features(m.access)).toEqual(['new-map', 'reports']);
    const res = await app.call('GET', '/api/user-features', { token: m.access });
    expect(res.body.data).toEqual({ user_id: m.user.id, organization_id: m.org.id, lst_features: ['new-map', 'reports'] });
    expect(res.sql).toBe(2);

    const org = await app.call('PUT', `/api/user-features/organizations/${m.org.id.toUpperCase()}`, { token: boss.access, body: { lst_enabled: ['trace', 'beta', 'trace'], lst_disabled: ['reports'] } });
    expectStatus(org, 200);
    expect(org.body.data).toMatchObject({ user_id: null, organization_id: m.org.id, lst_enabled: ['beta', 'trace'], lst_disabled: ['reports'] });
    expect(await features(m.access)).toEqual(['beta', 'new-map', 'trace']);
    expect(await features(peer.access)).toEqual(['beta', 'new-map', 'trace']);

    const mine = await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: boss.access, body: { lst_enabled: ['reports'], lst_disabled: ['beta', 'new-map'] } });
    expectStatus(mine, 200);
    expect(mine.body.data).toMatchObject({ user_id: m.user.id, organization_id: null, lst_enabled: ['reports'], lst_disabled: ['beta', 'new-map'] });
    expect(await features(m.access)).toEqual(['reports', 'trace']);
    expect(await features(peer.access)).toEqual(['beta', 'new-map', 'trace']);

    // The same setting again: the same answer, no event.
    const again = await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: boss.access, body: { lst_disabled: ['new-map', 'beta'], lst_enabled: ['reports'] } });
    expect(again.body.data).toEqual(mine.body.data);
    const events = await eventsOf(app, 'User', m.user.id);
    expect(events.filter((e) => e.str_type === 'USER_FEATURES_SET').map((e) => e.payload)).toEqual([
      { changes: { lst_enabled: { from: [], to: ['reports'] }, lst_disabled: { from: [], to: ['beta', 'new-map'] } } },
    ]);
    expect((await eventsOf(app, 'Organization', m.org.id)).map((e) => e.str_type)).toEqual(['ORGANIZATION_FEATURES_SET']);

    // An empty setting gives the levels below back.
    expectStatus(await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: boss.access, body: {} }), 200);
    expect(await features(m.access)).toEqual(['beta', 'new-map', 'trace']);

    const gql = await app.graphql('{ userFeatures { lst_features } }', {}, m.access);
    expect(gql.body.data.userFeatures.lst_features).toEqual(['beta', 'new-map', 'trace']);
  });

  test('refusals: not an administrator 403, unknown user or organization 404, bad flags 422, a flag on both sides 422, bad id 400, no token 401', async () => {
    const boss = await admin();
    const m = await member(app, 'OWNER');
    expectError(await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: m.access, body: { lst_enabled: ['x'] } }), 403, 'FORBIDDEN');
    expectError(await app.call('PUT', `/api/user-features/organizations/${m.org.id}`, { token: m.access, body: { lst_enabled: ['x'] } }), 403, 'FORBIDDEN');
    expectError(await app.call('PUT', `/api/user-features/users/${randomUUID()}`, { token: boss.access, body: {} }), 404, 'NOT_FOUND');
    expectError(await app.call('PUT', `/api/user-features/organizations/${randomUUID()}`, { token: boss.access, body: {} }), 404, 'NOT_FOUND');
    const bad = await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: boss.access, body: { lst_enabled: ['ok', 'no spaces'] } });
    expectError(bad, 422, 'VALIDATION_FAILED');
    expect(Object.keys(bad.body.detail.fields)).toEqual(['lst_enabled']);
    const many = await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: boss.access, body: { lst_disabled: Array.from({ length: 101 }, (_, i) => `f${i}`) } });
    expect(many.body.detail.fields.lst_disabled).toEqual(['at most 100 flags']);
    const both = await app.call('PUT', `/api/user-features/users/${m.user.id}`, { token: boss.access, body: { lst_enabled: ['a'], lst_disabled: ['a'] } });
    expectError(both, 422, 'VALIDATION_FAILED');
    expect(both.body.detail.fields.lst_disabled[0]).toMatch(/either enabled or disabled: a/);
    expectError(await app.call('PUT', '/api/user-features/users/not-a-uuid', { token: boss.access, body: {} }), 400, 'BAD_REQUEST');
    expectError(await app.call('GET', '/api/user-features'), 401, 'UNAUTHENTICATED');
    expect(await count(app, 'user_feature where user_id = ?', [m.user.id])).toBe(0);
  });

  test('USER_FEATURES_DEFAULT: a comma list, validated at start', () => {
    expect(loadConfig({ USER_FEATURES_DEFAULT: ' b, a,,b ' }).USER_FEATURES_DEFAULT).toEqual(['a', 'b']);
    expect(loadConfig({}).USER_FEATURES_DEFAULT).toEqual([]);
    expect(() => loadConfig({ USER_FEATURES_DEFAULT: 'ok,not ok' })).toThrow(ConfigError);
  });
});

describe('Privacy And Terms', () => {
  const version = () => `v-${randomUUID().slice(0, 8)}`;

  test('administrators publish (client-id replay, version once), anyone reads the current one, a user accepts it once; refusals', async () => {
    const boss = await admin();
    const m = await member(app);
    const v = version();
    const id = randomUUID();
    const body = { id, str_version: v, str_text: 'Termos de uso e política de privacidade.' };
    expectError(await app.call('POST', '/api/privacy-and-terms', { token: m.access, body }), 403, 'FORBIDDEN');
    const pub = await app.call('POST', '/api/privacy-and-terms', { token: boss.access, body });
    expectStatus(pub, 201);
    expect(pub.body.data).toMatchObject({ id, str_version: v, str_text: body.str_text, bl_accepted: null, ts_terms_accepted_at: null });
    expect(pub.body.data.ts_published_at).toMatch(ISO_Z);
    const replay = await app.call('POST', '/api/privacy-and-terms', { token: boss.access, body });
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 201, body: pub.body });
    expectError(await app.call('POST', '/api/privacy-and-terms', { token: boss.access, body: { ...body, str_text: 'outro' } }), 422, 'CONFLICT');
    const taken = await app.call('POST', '/api/privacy-and-terms', { token: boss.access, body: { str_version: v, str_text: 'outro' } });
    expectError(taken, 422, 'CONFLICT');
    expect(taken.body.detail).toEqual({ fields: { str_version: ['was already published'] } });
    const missing = await app.call('POST', '/api/privacy-and-terms', { token: boss.access, body: {} });
    expect(missing.body.detail.fields).toEqual({ str_version: ['is required'], str_text: ['is required'] });
    expect(await count(app, 'privacy_terms where str_version = ?', [v])).toBe(1);
    expect((await eventsOf(app, 'PrivacyTerms', id)).map((e) => e.str_type)).toEqual(['PRIVACY_TERMS_PUBLISHED']);

    const anonymous = await app.call('GET', '/api/privacy-and-terms');
    expectStatus(anonymous, 200);
    expect(anonymous.body.data).toEqual(pub.body.data);
    const mine = await app.call('GET', '/api/privacy-and-terms', { token: m.access });
    expect(mine.body.data).toMatchObject({ str_version: v, bl_accepted: false, ts_terms_accepted_at: null });

    expectError(await app.call('POST', '/api/privacy-and-terms/accept', { token: m.access, body: { str_version: 'v-old' } }), 422, 'INVALID_STATE');
    const accepted = await app.call('POST', '/api/privacy-and-terms/accept', { token: m.access, body: { str_version: v } });
    expectStatus(accepted, 200);
    expect(accepted.body.data).toMatchObject({ id, str_version: v, bl_accepted: true });
    const [user] = await rows<{ ts_terms_accepted_at: Date }>(app, 'select ts_terms_accepted_at from "user" where id = ?', [m.user.id]);
    expect(new Date(accepted.body.data.ts_terms_accepted_at)).toEqual(new Date(user!.ts_terms_accepted_at));
    const again = await app.call('POST', '/api/privacy-and-terms/accept', { token: m.access });
    expect(again.body.data).toEqual(accepted.body.data);
    expect((await eventsOf(app, 'User', m.user.id)).filter((e) => e.str_type === 'PRIVACY_TERMS_ACCEPTED').map((e) => e.payload.refs)).toEqual([{ privacy_terms_id: id, str_version: v }]);
    const whoami = await app.call('GET', '/api/whoami', { token: m.access });
    expect(whoami.body.data.ts_terms_accepted_at).toBe(accepted.body.data.ts_terms_accepted_at);
    expectError(await app.call('POST', '/api/privacy-and-terms/accept'), 401, 'UNAUTHENTICATED');
  });

  test('TERMS_REQUIRED: 428 TERMS_NOT_ACCEPTED on every other call (REST and GraphQL) until the current version is accepted; a new version asks again', async () => {
    const strict = await startApp({ TERMS_REQUIRED: 'true' });
    try {
      const boss = await admin(strict);
      // Signed in straight into its organization: change-org is not one of the calls open before the terms.
      const person = await makeUser(strict);
      const org = await makeOrganization(strict, [{ person, role: 'OWNER' }]);
      await strict.service.orm.em.fork().execute('update "user" set organization_id = ? where id = ?', [org.id, person.user.id]);
      const m = { ...person, ...(await login(strict, person)) };
      const v = version();
      expectStatus(await strict.call('POST', '/api/privacy-and-terms', { token: boss.access, body: { str_version: v, str_text: 'Termos' } }), 201);
      const refused = await strict.call('GET', '/api/home', { token: m.access });
      expectError(refused, 428, 'TERMS_NOT_ACCEPTED');
      expect(refused.body.detail).toMatchObject({ path: '/api/privacy-and-terms' });
      expectError(await strict.call('POST', '/api/occurrences', { token: m.access, body: {} }), 428, 'TERMS_NOT_ACCEPTED');
      const gql = await strict.graphql('{ home { int_animals } }', {}, m.access);
      expect(gql.body.errors[0].extensions.code).toBe('TERMS_NOT_ACCEPTED');
      // What stays open: the terms, the session's own calls, and anything without a token.
      expectStatus(await strict.call('GET', '/api/whoami', { token: m.access }), 200);
      expectStatus(await strict.call('GET', '/api/privacy-and-terms', { token: m.access }), 200);
      expectStatus(await strict.call('POST', '/api/refresh', { body: { refresh_token: m.refresh } }), 200);
      expectStatus(await strict.call('POST', '/api/login', { body: { str_email: m.email, str_password: PASSWORD } }), 200);
      expectStatus(await strict.call('POST', '/api/privacy-and-terms/accept', { token: m.access, body: { str_version: v } }), 200);
      expectStatus(await strict.call('GET', '/api/home', { token: m.access }), 200);
      // A new version: accept again.
      const next = version();
      expectStatus(await strict.call('POST', '/api/privacy-and-terms', { token: boss.access, body: { str_version: next, str_text: 'Termos 2' } }), 201);
      expectError(await strict.call('GET', '/api/user-features', { token: m.access }), 428, 'TERMS_NOT_ACCEPTED');
      expectStatus(await strict.call('POST', '/api/privacy-and-terms/accept', { token: m.access }), 200);
      expectStatus(await strict.call('GET', '/api/user-features', { token: m.access }), 200);
      expectStatus(await strict.call('POST', '/api/logout', { token: m.access }), 204);
    } finally {
      await strict.close();
    }
  });
});

describe('User Verification', () => {
  const codeIn = (text: string | undefined) => /(\d{6})/.exec(text ?? '')?.[1] ?? '';
  const send = (a: TestApp, token: string, body: unknown) => a.call('POST', '/api/user-verification', { token, body });
  const verify = (a: TestApp, token: string, body: unknown) => a.call('POST', '/api/user-verification/verify', { token, body });
  const verified = async (a: TestApp, id: string) => (await rows<{ bl_verified: boolean }>(a, 'select bl_verified from "user" where id = ?', [id]))[0]!.bl_verified;

  test('by e-mail: the code mailed, kept hashed, sets bl_verified; a second send within the minute 429; a used or wrong code after is refused', async () => {
    const m = await member(app);
    const res = await send(app, m.access, { str_channel: 'EMAIL' });
    expectStatus(res, 201);
    expect(res.body.data).toMatchObject({ user_id: m.user.id, str_channel: 'EMAIL', int_attempts_left: 5 });
    expect(res.body.data.str_destination).toBe(`${m.email[0]}***${m.email.slice(m.email.indexOf('@'))}`);
    const expires = new Date(res.body.data.ts_expires_at).getTime() - Date.now();
    expect(expires).toBeGreaterThan(9 * 60_000);
    expect(expires).toBeLessThanOrEqual(10 * 60_000);
    const code = codeIn((await lastMail(app, m.email))?.str_body);
    expect(code).toMatch(/^\d{6}$/);
    const [stored] = await rows<{ str_code_hash: string }>(app, 'select str_code_hash from user_verification_code where user_id = ?', [m.user.id]);
    expect(stored!.str_code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.str_code_hash).not.toContain(code);
    const throttled = await send(app, m.access, { str_channel: 'EMAIL' });
    expectError(throttled, 429, 'RATE_LIMITED');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);

    const ok = await verify(app, m.access, { str_verification_code: code, user_id: m.user.id.toUpperCase() });
    expectStatus(ok, 200);
    expect(ok.body.data).toEqual({ user_id: m.user.id, bl_verified: true });
    expect(await verified(app, m.user.id)).toBe(true);
    expect(await count(app, 'user_verification_code where user_id = ?', [m.user.id])).toBe(0);
    // Verified: the used code and any other are refused as wrong codes, writing nothing.
    const wrongAfter = { error: 'VALIDATION_FAILED', detail: { fields: { str_verification_code: ['is wrong; the user is already verified, no code is pending'] } } };
    for (const again of [code, code === '000000' ? '000001' : '000000']) {
      const res = await verify(app, m.access, { str_verification_code: again });
      expect({ status: res.status, body: res.body }).toEqual({ status: 422, body: wrongAfter });
    }
    expect((await eventsOf(app, 'User', m.user.id)).map((e) => e.str_type).filter((t) => t.startsWith('USER_VERIF'))).toEqual(['USER_VERIFICATION_SENT', 'USER_VERIFIED']);
    // Verified: nothing more to send.
    expectError(await send(app, m.access, { str_channel: 'EMAIL' }), 422, 'INVALID_STATE');
  });

  test('by SMS through the sender; brute force stopped at 5 attempts, then only a new code works', async () => {
    const quick = await startApp({ VERIFICATION_SEND_INTERVAL_SECONDS: '1' });
    try {
      const texts: { to: string; text: string }[] = [];
      quick.service.core.userVerification.sms = { send: async (to, text) => void texts.push({ to, text }) };
      const m = await member(quick);
      expectError(await send(quick, m.access, { str_channel: 'SMS' }), 422, 'VALIDATION_FAILED');
      await quick.service.orm.em.fork().execute('update "user" set str_phone = ? where id = ?', ['5561999994321', m.user.id]);
      await new Promise((r) => setTimeout(r, 1100));
      const res = await send(quick, m.access, { str_channel: 'SMS' });
      expectStatus(res, 201);
      expect(res.body.data.str_destination).toBe('*********4321');
      expect(texts.map((t) => t.to)).toEqual(['5561999994321']);
      const code = codeIn(texts[0]!.text);
      const wrong = code === '000000' ? '000001' : '000000';
      for (let i = 1; i <= 5; i++) {
        const res = await verify(quick, m.access, { str_verification_code: wrong });
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(res.body.detail.fields.str_verification_code[0]).toMatch(i < 5 ? `${5 - i} attempt` : 'no attempts left');
      }
      // The right code is no use any more.
      const spent = await verify(quick, m.access, { str_verification_code: code });
      expectError(spent, 422, 'INVALID_STATE');
      expect(spent.body.detail.message).toMatch(/request a new one/);
      expect(await verified(quick, m.user.id)).toBe(false);
      await new Promise((r) => setTimeout(r, 1100));
      expectStatus(await send(quick, m.access, { str_channel: 'SMS' }), 201);
      const fresh = codeIn(texts[1]!.text);
      expectStatus(await verify(quick, m.access, { str_verification_code: fresh }), 200);
      expect(await verified(quick, m.user.id)).toBe(true);
      const failed = (await eventsOf(quick, 'User', m.user.id)).filter((e) => e.str_type === 'USER_VERIFICATION_FAILED');
      expect(failed).toHaveLength(5);
    } finally {
      await quick.close();
    }
  });

  test('refusals: bad channel, bad code, another user, no code, an expired code, no token', async () => {
    const m = await member(app);
    const other = await member(app);
    expect((await send(app, m.access, {})).body.detail.fields).toEqual({ str_channel: ['is required'] });
    expect((await send(app, m.access, { str_channel: 'FAX' })).body.detail.fields).toEqual({ str_channel: ['must be one of EMAIL, SMS'] });
    expect((await verify(app, m.access, {})).body.detail.fields).toEqual({ str_verification_code: ['is required'] });
    expect((await verify(app, m.access, { str_verification_code: '12ab' })).body.detail.fields).toEqual({ str_verification_code: ['must be 6 digits'] });
    expect((await verify(app, m.access, { str_verification_code: '123456', user_id: 'x' })).body.detail.fields).toEqual({ user_id: ['must be a uuid'] });
    expectError(await verify(app, m.access, { str_verification_code: '123456', user_id: other.user.id }), 403, 'FORBIDDEN');
    expectError(await verify(app, m.access, { str_verification_code: '123456' }), 422, 'INVALID_STATE');
    expectStatus(await send(app, m.access, { str_channel: 'EMAIL' }), 201);
    const code = codeIn((await lastMail(app, m.email))?.str_body);
    await app.service.orm.em.fork().execute(`update user_verification_code set ts_expires_at = now() - interval '1 second' where user_id = ?`, [m.user.id]);
    const expired = await verify(app, m.access, { str_verification_code: code });
    expectError(expired, 422, 'INVALID_STATE');
    expect(expired.body.detail.message).toMatch(/expired/);
    expectError(await send(app, '', { str_channel: 'EMAIL' }), 401, 'UNAUTHENTICATED');
    expectError(await verify(app, '', { str_verification_code: code }), 401, 'UNAUTHENTICATED');
    expect(await verified(app, m.user.id)).toBe(false);
  });
});
