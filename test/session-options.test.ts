import { sessionOptions } from '../src/db/orm.js';
import { startApp } from './helpers/app.js';

describe("the service's PostgreSQL sessions", () => {
  test('run with jit off, keeping the options a DATABASE_URL carries, and its own jit setting', () => {
    expect(sessionOptions('postgres://u@h:5432/db')).toBe('-c jit=off');
    expect(sessionOptions('postgres://u@h:5432/db?options=-c%20statement_timeout%3D5000')).toBe('-c statement_timeout=5000 -c jit=off');
    expect(sessionOptions('postgres://u@h:5432/db?options=-c%20jit%3Don')).toBe('-c jit=on');
    expect(sessionOptions('postgres://u@h:5432/db?options=--jit%3Don')).toBe('--jit=on');
  });

  // PGlite has no JIT to turn off.
  (process.env.DATABASE_URL ? test : test.skip)('a connection of the running service reports jit off', async () => {
    const app = await startApp();
    try {
      const [row] = await app.service.db.rows<{ jit: string }>({ sql: 'show jit', params: [] });
      expect(row!.jit).toBe('off');
    } finally {
      await app.close();
    }
  });
});
