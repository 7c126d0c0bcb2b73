import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Tokens, VERIFIED_TOKENS_MAX } from '../src/identity/tokens.js';
import { useApp, type Reply } from './helpers/app.js';
import { TestClock } from './helpers/clock.js';
import { login, makeUser, member } from './helpers/factories.js';

const SECRET = 'test-secret-test-secret-test-secret-0123';
const ISSUER = 'livestock-traceability';
const AUDIENCE = 'livestock-traceability-api';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const app = useApp();

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => {
  const [header, payload, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header!, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload!, 'base64url').toString()),
    segments: [header!, payload!, signature!],
  };
};
const hmac = (alg: 'sha256' | 'sha512', input: string, secret = SECRET) => createHmac(alg, secret).update(input).digest('base64url');

const whoami = (token: string) => app.call('GET', '/api/whoami', { token });
const whoamiWith = (authorization: string) => app.call('GET', '/api/whoami', { headers: { authorization } });

async function expectRefused(res: Promise<Reply>): Promise<void> {
  const r = await res;
  expect({ status: r.status, error: r.body?.error }).toEqual({ status: 401, error: 'UNAUTHENTICATED' });
  expect(r.body.data).toBeUndefined();
}

/** A signed-in user and the claims of its real access token (sub, sid of a live session). */
async function session() {
  const person = await makeUser(app);
  const s = await login(app, person);
  const { payload } = parts(s.access);
  return { person, ...s, claims: payload as Record<string, unknown> & { sub: string; sid: string; jti: string; iat: number; exp: number } };
}

/** Claims as the service would sign them, for a real session, unless overridden. */
function claimsFor(c: { sub: string; sid: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = Math.floor(Date.now() / 1000);
  return { sub: c.sub, sid: c.sid, jti: randomUUID(), iat, exp: iat + 900, iss: ISSUER, aud: AUDIENCE, ...overrides };
}

const without = (claims: Record<string, unknown>, key: string): Record<string, unknown> => Object.fromEntries(Object.entries(claims).filter(([k]) => k !== key));

describe('forged and broken access tokens: 401 UNAUTHENTICATED on /api/whoami', () => {
  test('control: a token signed here with the test secret and the right claims is accepted', async () => {
    // Without this, the refusals below could pass for the wrong reason.
    const s = await session();
    const token = jwt.sign(claimsFor(s.claims), SECRET, { algorithm: 'HS256' });
    const res = await whoami(token);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(s.person.user.id);
  });

  test('alg: none', async () => {
    const s = await session();
    const payload = b64(claimsFor(s.claims));
    await expectRefused(whoami(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`));
    await expectRefused(whoami(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}`));
    await expectRefused(whoami(`${b64({ alg: 'None', typ: 'JWT' })}.${payload}.`));
    // The real token with its header swapped for alg none and the signature dropped.
    const [, realPayload] = parts(s.access).segments;
    await expectRefused(whoami(`${b64({ alg: 'none', typ: 'JWT' })}.${realPayload}.`));
  });

  test('signed with another secret', async () => {
    const s = await session();
    const token = jwt.sign(claimsFor(s.claims), 'another-secret-another-secret-another-secret', { algorithm: 'HS256' });
    await expectRefused(whoami(token));
  });

  test('a valid token with a tampered payload (sub and sid of another user), the signature kept', async () => {
    const victim = await session();
    const attacker = await session();
    const { segments, payload } = parts(attacker.access);
    // Take another live session's identity so that only the signature stands in the way.
    const forged = { ...payload, sub: victim.claims.sub, sid: victim.claims.sid };
    await expectRefused(whoami(`${segments[0]}.${b64(forged)}.${segments[2]}`));
    // Only sub changed, too.
    await expectRefused(whoami(`${segments[0]}.${b64({ ...payload, sub: victim.claims.sub })}.${segments[2]}`));
    // The untouched token still works: the refusal is about the tampering.
    expect((await whoami(attacker.access)).body.data.id).toBe(attacker.person.user.id);
  });

  test('expired', async () => {
    const s = await session();
    const iat = Math.floor(Date.now() / 1000) - 3600;
    const token = jwt.sign(claimsFor(s.claims, { iat, exp: iat + 900 }), SECRET, { algorithm: 'HS256' });
    const res = await whoami(token);
    await expectRefused(Promise.resolve(res));
  });

  test('wrong issuer, wrong audience, missing issuer or audience', async () => {
    const s = await session();
    const sign = (claims: Record<string, unknown>) => jwt.sign(claims, SECRET, { algorithm: 'HS256' });
    await expectRefused(whoami(sign(claimsFor(s.claims, { iss: 'someone-else' }))));
    await expectRefused(whoami(sign(claimsFor(s.claims, { aud: 'another-api' }))));
    await expectRefused(whoami(sign(without(claimsFor(s.claims), 'iss'))));
    await expectRefused(whoami(sign(without(claimsFor(s.claims), 'aud'))));
  });

  test('another algorithm: RS256 (a real key pair, and an HMAC under an RS256 header), HS512 with the right secret', async () => {
    const s = await session();
    const claims = claimsFor(s.claims);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expectRefused(whoami(jwt.sign(claims, privateKey, { algorithm: 'RS256' })));

    // Key confusion: an RS256 header over an HMAC made with the secret, and with the public key as secret.
    const rsHeader = b64({ alg: 'RS256', typ: 'JWT' });
    const input = `${rsHeader}.${b64(claims)}`;
    await expectRefused(whoami(`${input}.${hmac('sha256', input)}`));
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await expectRefused(whoami(`${input}.${hmac('sha256', input, pem)}`));

    // The right secret, but not the pinned algorithm.
    await expectRefused(whoami(jwt.sign(claims, SECRET, { algorithm: 'HS512' })));
    const hsInput = `${b64({ alg: 'HS512', typ: 'JWT' })}.${b64(claims)}`;
    await expectRefused(whoami(`${hsInput}.${hmac('sha512', hsInput)}`));
  });

  test('claims the service requires: a token without sid, jti or sub, or with a made-up session', async () => {
    const s = await session();
    const sign = (claims: Record<string, unknown>) => jwt.sign(claims, SECRET, { algorithm: 'HS256' });
    await expectRefused(whoami(sign(without(claimsFor(s.claims), 'sid'))));
    await expectRefused(whoami(sign(without(claimsFor(s.claims), 'jti'))));
    await expectRefused(whoami(sign(without(claimsFor(s.claims), 'sub'))));
    await expectRefused(whoami(sign(claimsFor({ sub: s.claims.sub, sid: randomUUID() }))));
    // A session of another user does not carry this user.
    const other = await session();
    await expectRefused(whoami(sign(claimsFor({ sub: s.claims.sub, sid: other.claims.sid }))));
  });

  test('malformed Authorization headers', async () => {
    const s = await session();
    await expectRefused(whoamiWith(`Token ${s.access}`));
    await expectRefused(whoamiWith('Token x'));
    await expectRefused(whoamiWith('Bearer'));
    await expectRefused(whoamiWith('Bearer '));
    await expectRefused(whoamiWith(`Basic ${Buffer.from('a:b').toString('base64')}`));
    await expectRefused(whoamiWith('Bearer not.a.jwt'));
    await expectRefused(whoamiWith('Bearer garbage'));
    await expectRefused(whoamiWith(s.access));
    // The well-formed header with the same token is accepted.
    expect((await whoamiWith(`Bearer ${s.access}`)).status).toBe(200);
  });

  test('GraphQL refuses a forged token with the same code', async () => {
    const s = await session();
    const token = jwt.sign(claimsFor(s.claims), 'another-secret-another-secret-another-secret', { algorithm: 'HS256' });
    const res = await app.graphql('{ whoami { id } }', {}, token);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('access token claims', () => {
  test('sub, jti, iat, exp = iat + 900, iss, aud; HS256 with the configured secret; no org without an active organization', async () => {
    const person = await makeUser(app);
    const s = await login(app, person);
    const { header, payload } = parts(s.access);
    expect(header.alg).toBe('HS256');
    expect(payload.sub).toBe(person.user.id);
    expect(payload.jti).toMatch(UUID);
    expect(Number.isInteger(payload.iat)).toBe(true);
    expect(payload.exp).toBe(payload.iat + 900);
    expect(payload.iss).toBe(ISSUER);
    expect(payload.aud).toBe(AUDIENCE);
    expect('org' in payload).toBe(false);
    // It verifies with the configured secret, pinned to HS256.
    const verified = jwt.verify(s.access, SECRET, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE }) as jwt.JwtPayload;
    expect(verified.sub).toBe(person.user.id);
    // Every token gets its own jti.
    const again = await login(app, person);
    expect(parts(again.access).payload.jti).not.toBe(payload.jti);
  });

  test('org is the active organization', async () => {
    const owner = await member(app, 'OWNER');
    const { payload } = parts(owner.access);
    expect(payload.sub).toBe(owner.user.id);
    expect(payload.org).toBe(owner.org.id);
    expect(payload.exp).toBe(payload.iat + 900);
    expect(payload.iss).toBe(ISSUER);
    expect(payload.aud).toBe(AUDIENCE);
    expect(payload.jti).toMatch(UUID);
  });

  test('a refreshed token keeps the organization and gets a new jti', async () => {
    const owner = await member(app, 'OWNER');
    const res = await app.call('POST', '/api/refresh', { body: { refresh_token: owner.refresh } });
    expect(res.status).toBe(200);
    const before = parts(owner.access).payload;
    const after = parts(res.body.data.str_access_token).payload;
    expect(after.org).toBe(owner.org.id);
    expect(after.sub).toBe(owner.user.id);
    expect(after.jti).not.toBe(before.jti);
    expect(after.exp).toBe(after.iat + 900);
  });
});

describe('verified tokens kept by their exact string (Tokens.verifyAccess)', () => {
  const settings = { secret: SECRET, issuer: ISSUER, audience: AUDIENCE };
  const issued = (tokens: Tokens, iat: number) => tokens.signAccess({ sub: randomUUID(), org: null, sid: randomUUID(), iat }).token;
  const refusal = (tokens: Tokens, token: string) => {
    try {
      tokens.verifyAccess(token);
      return 'accepted';
    } catch (err) {
      return (err as { detail?: unknown }).detail ?? String(err);
    }
  };

  test('a kept token is refused from the second its exp names, on the clock the tokens are judged by', () => {
    const clock = new TestClock();
    const tokens = new Tokens(settings, clock);
    const iat = Math.floor(Date.now() / 1000);
    const token = issued(tokens, iat);
    clock.set(new Date(iat * 1000));
    expect(tokens.verifyAccess(token).exp).toBe(iat + 900);
    expect(tokens.verifiedSize).toBe(1);
    clock.set(new Date((iat + 899) * 1000 + 999));
    expect(refusal(tokens, token)).toBe('accepted');
    clock.set(new Date((iat + 900) * 1000));
    expect(refusal(tokens, token)).toBe('token expired');
    // And again (no longer kept: jsonwebtoken judges it, on the same clock).
    expect(refusal(tokens, token)).toBe('token expired');
    clock.set(new Date(iat * 1000));
    expect(refusal(tokens, token)).toBe('accepted');
  });

  test('a tampered token is refused though the real one is kept', () => {
    const tokens = new Tokens(settings);
    const token = issued(tokens, Math.floor(Date.now() / 1000));
    const claims = tokens.verifyAccess(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: randomUUID() });
    expect(refusal(tokens, `${header}.${forged}.${signature}`)).toBe('invalid token');
    const flipped = signature.slice(0, -2) + (signature.at(-2) === 'A' ? 'B' : 'A') + signature.at(-1);
    expect(refusal(tokens, `${header}.${payload}.${flipped}`)).toBe('invalid token');
    expect(refusal(tokens, `${token}x`)).toBe('invalid token');
    expect(tokens.verifyAccess(token)).toBe(claims);
  });

  test('bounded: past VERIFIED_TOKENS_MAX the least recently used go, and are verified again when they come back', () => {
    const tokens = new Tokens(settings);
    const iat = Math.floor(Date.now() / 1000);
    const first = issued(tokens, iat);
    tokens.verifyAccess(first);
    for (let i = 0; i < VERIFIED_TOKENS_MAX + 10; i++) tokens.verifyAccess(issued(tokens, iat));
    expect(tokens.verifiedSize).toBe(VERIFIED_TOKENS_MAX);
    expect(tokens.verifyAccess(first).iat).toBe(iat);
  });
});
