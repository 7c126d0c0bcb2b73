import { sessionOptions } from '../src/db/orm.js';
import { startApp } from './helpers/app.js';

describe("the service's PostgreSQL sessions", () => {
  test('run with jit off and no parallel workers, keeping the options a DATABASE_URL carries, and its own jit or parallel setting', () => {
    expect(sessionOptions('postgres://u@h:5432/db')).toBe('-c jit=off -c max_parallel_workers_per_gather=0');
    expect(sessionOptions('postgres://u@h:5432/db?options=-c%20statement_timeout%3D5000')).toBe('-c statement_timeout=5000 -c jit=off -c max_parallel_workers_per_gather=0');
    expect(sessionOptions('postgres://u@h:5432/db?options=-c%20jit%3Don')).toBe('-c jit=on -c max_parallel_workers_per_gather=0');
    expect(sessionOptions('postgres://u@h:5432/db?options=--jit%3Don')).toBe('--jit=on -c max_parallel_workers_per_gather=0');
    expect(sessionOptions('postgres://u@h:5432/db?options=-c%20max_parallel_workers_per_gather%3D2')).toBe('-c max_parallel_workers_per_gather=2 -c jit=off');
  });

  test("run with DB_WORK_MEM unless the URL's options set work_mem; 'server' leaves the server's", () => {
    expect(sessionOptions('postgres://u@h:5432/db', '64MB')).toBe('-c jit=off -c max_parallel_workers_per_gather=0 -c work_mem=64MB');
    expect(sessionOptions('postgres://u@h:5432/db', 'server')).toBe('-c jit=off -c max_parallel_workers_per_gather=0');
    expect(sessionOptions('postgres://u@h:5432/db?options=-c%20work_mem%3D8MB', '64MB')).toBe('-c work_mem=8MB -c jit=off -c max_parallel_workers_per_gather=0');
    expect(sessionOptions('postgres://u@h:5432/db?options=--work-mem%3D8MB%20-c%20jit%3Don', '64MB')).toBe('--work-mem=8MB -c jit=on -c max_parallel_workers_per_gather=0');
  });

  // PGlite has no JIT to turn off, and DB_WORK_MEM is for PostgreSQL's sessions only (docs/operations.md).
  (process.env.DATABASE_URL ? test : test.skip)('a connection of the running service reports jit off, no parallel workers and DB_WORK_MEM', async () => {
    const app = await startApp({ DB_WORK_MEM: '48MB' });
    try {
      const [row] = await app.service.db.rows<{ jit: string; work_mem: string; workers: string }>({
        sql: "select current_setting('jit') as jit, current_setting('work_mem') as work_mem, current_setting('max_parallel_workers_per_gather') as workers",
        params: [],
      });
      expect(row).toEqual({ jit: 'off', work_mem: '48MB', workers: '0' });
    } finally {
      await app.close();
    }
  });

  (process.env.DATABASE_URL ? test.skip : test)("on PGlite the session keeps PGlite's own work_mem", async () => {
    const app = await startApp({ DB_WORK_MEM: '48MB' });
    try {
      const [row] = await app.service.db.rows<{ work_mem: string }>({ sql: "select current_setting('work_mem') as work_mem", params: [] });
      expect(row!.work_mem).toBe('4MB');
    } finally {
      await app.close();
    }
  });
});
