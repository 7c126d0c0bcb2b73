import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { User } from '../src/identity/user.entity.js';
import { dumpImage, startApp, type TestApp } from './helpers/app.js';
import { email, makeUser } from './helpers/factories.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';
/** A mailer production requires; nothing listens there, and these tests send no mail. */
const SMTP = 'smtp://127.0.0.1:9';

/** The ConfigError loadConfig throws for this environment (fails the test when it does not throw one). */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  test('a PORT that is not a number stops the start naming PORT', () => {
    const err = configError({ PORT: 'abc' });
    expect(err.message).toMatch(/\bPORT\b/);
    expect(err.message).not.toMatch(/DATABASE_URL|JWT_SECRET/);
  });

  test('a PORT out of range names PORT', () => {
    expect(configError({ PORT: '70000' }).message).toMatch(/\bPORT\b/);
  });

  test('a DATABASE_URL that is not a url names DATABASE_URL', () => {
    const err = configError({ DATABASE_URL: 'not a url' });
    expect(err.message).toMatch(/\bDATABASE_URL\b/);
    expect(err.message).not.toMatch(/\bPORT\b/);
  });

  test('DATABASE_REPLICA_URLS: a list of postgres URLs, none by default; anything else, or replicas without DATABASE_URL, names it', () => {
    const db = 'postgres://postgres@127.0.0.1:5432/app';
    expect(loadConfig({ DATABASE_URL: db }).DATABASE_REPLICA_URLS).toEqual([]);
    expect(loadConfig({ DATABASE_URL: db, DATABASE_REPLICA_URLS: ' postgres://r1:5433/app , postgresql://r2/app ' }).DATABASE_REPLICA_URLS).toEqual(['postgres://r1:5433/app', 'postgresql://r2/app']);
    expect(loadConfig({ DATABASE_URL: db }).DATABASE_REPLICA_MAX_LAG_MS).toBe(5000);
    expect(configError({ DATABASE_URL: db, DATABASE_REPLICA_URLS: 'http://r1/app' }).message).toMatch(/DATABASE_REPLICA_URLS: each must be a postgres:\/\/ URL/);
    expect(configError({ DATABASE_REPLICA_URLS: 'postgres://r1/app' }).message).toMatch(/DATABASE_REPLICA_URLS: replicas need DATABASE_URL/);
    expect(configError({ DATABASE_URL: db, DATABASE_REPLICA_MAX_LAG_MS: '-1' }).message).toMatch(/DATABASE_REPLICA_MAX_LAG_MS/);
  });

  test('TRACE_CHANGE_RETENTION: an interval of whole units, 24 hours by default, at least a minute; TRACE_CHANGE_PURGE_EVERY_MS: 5 minutes, 0 never', () => {
    expect(loadConfig({})).toMatchObject({ TRACE_CHANGE_RETENTION: '24 hours', TRACE_CHANGE_PURGE_EVERY_MS: 300_000 });
    expect(loadConfig({ TRACE_CHANGE_RETENTION: '2 days 6 hours', TRACE_CHANGE_PURGE_EVERY_MS: '0' })).toMatchObject({ TRACE_CHANGE_RETENTION: '2 days 6 hours', TRACE_CHANGE_PURGE_EVERY_MS: 0 });
    expect(configError({ TRACE_CHANGE_RETENTION: '24' }).message).toMatch(/TRACE_CHANGE_RETENTION: an interval of whole units/);
    expect(configError({ TRACE_CHANGE_RETENTION: "1 hour'; drop table animal; --" }).message).toMatch(/TRACE_CHANGE_RETENTION/);
    expect(configError({ TRACE_CHANGE_RETENTION: '30 seconds' }).message).toMatch(/TRACE_CHANGE_RETENTION: at least 1 minute/);
    expect(configError({ TRACE_CHANGE_PURGE_EVERY_MS: '-1' }).message).toMatch(/TRACE_CHANGE_PURGE_EVERY_MS/);
  });

  test('production without JWT_SECRET names JWT_SECRET', () => {
    const err = configError({ NODE_ENV: 'production', SMTP_URL: SMTP });
    expect(err.message).toMatch(/\bJWT_SECRET\b/);
    // With a secret (and a mailer), production starts.
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET, SMTP_URL: SMTP }).JWT_SECRET).toBe(SECRET);
  });

  test('production without a mailer (SMTP_URL) does not start: the outbox, codes in clear, is for development and tests', () => {
    const err = configError({ NODE_ENV: 'production', JWT_SECRET: SECRET });
    expect(err.message).toMatch(/\bSMTP_URL: is required in production\b/);
    expect(err.message).toMatch(/sent_message/);
    expect(loadConfig({ NODE_ENV: 'development' }).SMTP_URL).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'test' }).SMTP_URL).toBeUndefined();
  });

  test('a JWT_SECRET shorter than 32 characters names JWT_SECRET', () => {
    const err = configError({ JWT_SECRET: 'x'.repeat(31) });
    expect(err.message).toMatch(/\bJWT_SECRET\b/);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32) }).JWT_SECRET).toBe('x'.repeat(32));
  });

  test('ADMIN_EMAIL without ADMIN_PASSWORD (and the reverse) names ADMIN_PASSWORD', () => {
    expect(configError({ ADMIN_EMAIL: 'admin@example.com' }).message).toMatch(/\bADMIN_PASSWORD\b/);
    expect(configError({ ADMIN_PASSWORD: 'long enough password' }).message).toMatch(/\bADMIN_EMAIL\b/);
  });

  test('an ADMIN_EMAIL that is not an e-mail names ADMIN_EMAIL', () => {
    expect(configError({ ADMIN_EMAIL: 'nobody', ADMIN_PASSWORD: 'long enough password' }).message).toMatch(/\bADMIN_EMAIL\b/);
  });

  test('defaults: PORT 4000, DATA_DIR ./data, integer limits, a random secret outside production', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(4000);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.NODE_ENV).toBe('development');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.inMemory).toBe(false);
    expect(c.DB_POOL_MAX).toBe(10);
    expect(c.DB_POOL_IDLE_SECONDS).toBe(600);
    expect(c.DB_WORK_MEM).toBe('server');
    expect(c.LOGIN_LIMIT_PER_LOGIN).toBe(5);
    expect(c.LOGIN_LIMIT_PER_ADDRESS).toBe(30);
    expect(c.LOGIN_LIMIT_WINDOW_SECONDS).toBe(900);
    expect(c.SHUTDOWN_TIMEOUT_MS).toBe(10000);
    expect(c.TRUST_PROXY).toBe(false);
    expect(c.EXPOSE_SQL_STATEMENTS).toBe(false);
    expect(c.GRAPHQL_INTROSPECTION).toBe(true);
    expect(c.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({}).JWT_SECRET).not.toBe(c.JWT_SECRET);
  });

  test('integers are read from strings; empty values count as unset', () => {
    const c = loadConfig({ PORT: '8080', DB_POOL_MAX: '3', LOGIN_LIMIT_PER_LOGIN: '7', DATA_DIR: '', TRUST_PROXY: '1', NODE_ENV: 'production', JWT_SECRET: SECRET, SMTP_URL: SMTP });
    expect(c.PORT).toBe(8080);
    expect(c.DB_POOL_MAX).toBe(3);
    expect(c.LOGIN_LIMIT_PER_LOGIN).toBe(7);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.TRUST_PROXY).toBe(true);
    expect(c.GRAPHQL_INTROSPECTION).toBe(false);
    expect(loadConfig({ DB_WORK_MEM: '16MB' }).DB_WORK_MEM).toBe('16MB');
    expect(loadConfig({ DB_WORK_MEM: 'server' }).DB_WORK_MEM).toBe('server');
    expect(configError({ DB_WORK_MEM: '64 MB; drop' }).message).toMatch(/\bDB_WORK_MEM\b/);
    expect(configError({ DB_POOL_MAX: '2.5' }).message).toMatch(/\bDB_POOL_MAX\b/);
    expect(configError({ LOGIN_LIMIT_PER_LOGIN: '0' }).message).toMatch(/\bLOGIN_LIMIT_PER_LOGIN\b/);
  });

  test('DATA_DIR :memory: keeps PGlite in memory', () => {
    expect(loadConfig({ DATA_DIR: ':memory:' }).inMemory).toBe(true);
  });

  test('PGLITE_IMAGE only for an in-memory PGlite', () => {
    expect(loadConfig({ DATA_DIR: ':memory:', PGLITE_IMAGE: '/tmp/image.tar' }).PGLITE_IMAGE).toBe('/tmp/image.tar');
    expect(configError({ DATA_DIR: ':memory:', PGLITE_IMAGE: '/tmp/image.tar', DATABASE_URL: 'postgres://127.0.0.1/x' }).message).toMatch(/\bPGLITE_IMAGE\b/);
    expect(configError({ DATA_DIR: './data', PGLITE_IMAGE: '/tmp/image.tar' }).message).toMatch(/\bPGLITE_IMAGE\b/);
  });
});

describe('first start', () => {
  let existing: TestApp;
  beforeAll(async () => {
    existing = await startApp();
  });
  afterAll(() => existing.close());

  test('ADMIN_EMAIL + ADMIN_PASSWORD create the administrator only when no user exists', async () => {
    // On PostgreSQL the suite's database is shared: make sure it holds a user before the start.
    await makeUser(existing);
    const adminEmail = email('admin');
    const adminPassword = 'first start password';
    const app = await startApp({ ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: adminPassword });
    try {
      const count = await app.service.orm.em.fork().count(User, { str_email: adminEmail });
      const login = await app.call('POST', '/api/login', { body: { str_email: adminEmail, str_password: adminPassword } });
      if (app.config.DATABASE_URL) {
        // PostgreSQL: the database already had users, so no administrator is made.
        expect(count).toBe(0);
        expect(login.status).toBe(401);
        expect(login.body).toEqual({ error: 'INVALID_CREDENTIALS', detail: expect.anything() });
      } else {
        // PGlite in memory: every start is a fresh database, so the administrator is made.
        expect(count).toBe(1);
        expect(login.status).toBe(200);
        expect(login.body.data.user.str_email).toBe(adminEmail);
        expect(login.body.data.user.bl_admin).toBe(true);
        expect(await app.service.orm.em.fork().count(User, {})).toBe(1);
      }
    } finally {
      await app.close();
    }
  });

  // The image is PGlite's own data directory: nothing to dump on PostgreSQL.
  (process.env.DATABASE_URL ? test.skip : test)("PGlite in memory from PGLITE_IMAGE: the image's data, every migration recorded", async () => {
    const marked = await makeUser(existing);
    const file = join(tmpdir(), `image-${randomUUID()}.tar`);
    await dumpImage(existing.service, file);
    try {
      const app = await startApp({ PGLITE_IMAGE: file });
      try {
        const em = app.service.orm.em.fork();
        expect(await em.count(User, { id: marked.user.id })).toBe(1);
        expect(await app.service.orm.migrator.getPending()).toEqual([]);
        const login = await app.call('POST', '/api/login', { body: { str_email: marked.email, str_password: marked.password } });
        expect(login.status).toBe(200);
      } finally {
        await app.close();
      }
    } finally {
      rmSync(file, { force: true });
    }
  });

  test('PGlite on disk: a second start with other ADMIN_* values makes no second administrator', async () => {
    if (existing.config.DATABASE_URL) return; // PostgreSQL: covered above.
    const dir = mkdtempSync(join(tmpdir(), 'first-start-'));
    try {
      const first = { ADMIN_EMAIL: email('admin'), ADMIN_PASSWORD: 'first start password' };
      const app1 = await startApp({ DATA_DIR: dir, ...first });
      try {
        expect(await app1.service.orm.em.fork().count(User, { str_email: first.ADMIN_EMAIL, bl_admin: true })).toBe(1);
      } finally {
        await app1.close();
      }
      const second = { ADMIN_EMAIL: email('admin'), ADMIN_PASSWORD: 'second start password' };
      const app2 = await startApp({ DATA_DIR: dir, ...second });
      try {
        const em = app2.service.orm.em.fork();
        expect(await em.count(User, { str_email: second.ADMIN_EMAIL })).toBe(0);
        expect(await em.count(User, {})).toBe(1);
        const login = await app2.call('POST', '/api/login', { body: { str_email: first.ADMIN_EMAIL, str_password: first.ADMIN_PASSWORD } });
        expect(login.status).toBe(200);
      } finally {
        await app2.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
