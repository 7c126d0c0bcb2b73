import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { boolArrayParam, int4ArrayParam, int8ArrayParam, timestamptzArrayParam, uuidArrayParam } from '../src/db/array-param.js';
import { pgDb, pgliteDb, type Db } from '../src/db/sql.js';

/**
 * The trace's array parameters (src/db/array-param.ts) read back by the database: on PostgreSQL in
 * its binary array format (src/db/binary-array.ts), on PGlite as text literals. Each element is
 * selected back as text PostgreSQL writes itself (instants as epoch microseconds).
 */
const onPostgres = process.env.DATABASE_URL ? it : it.skip;
// A PGlite of its own takes seconds to start (half a minute beside the suite): tried where the suite runs on PGlite.
const onPglite = process.env.DATABASE_URL ? it.skip : it;

const MICROS = 1_000_000;
const instants = [
  Date.UTC(1999, 11, 31, 23, 59, 59) * 1000 + 123_456, // before PostgreSQL's epoch, with microseconds
  NaN,
  Date.UTC(2000, 0, 1) * 1000, // its epoch
  Date.UTC(2000, 0, 1) * 1000 - 1,
  Date.UTC(2024, 1, 29, 12, 0, 0) * 1000 + 1,
  -1, // before the Unix epoch
  Date.UTC(1850, 5, 1, 3, 4, 5) * 1000 + 999_999,
  Date.UTC(2100, 0, 1) * 1000 + 7,
];
const ints = [0, 1, -1, -2_147_483_648, 2_147_483_647, 42, -1000];
const bigs = [0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 32, 2 ** 32 - 1, -(2 ** 32), 9_876_543_210];
const flags = [1, 0, 0, 1, 255];
// Many uuids, every seventh NULL, the extremes of uuid order among them.
const uuids: (string | null)[] = Array.from({ length: 20_000 }, (_, i) => (i % 7 === 3 ? null : randomUUID()));
uuids[1] = '00000000-0000-0000-0000-000000000000';
uuids[2] = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Each element of the array parameter as the database writes it (null for NULL), in order. */
async function readBack(db: Db, type: string, param: unknown, text = 'x::text'): Promise<(string | null)[]> {
  const rows = await db.rows<{ v: string | null }>({ sql: `select ${text} as v from unnest(?::${type}[]) with ordinality as u(x, i) order by i`, params: [param] });
  return rows.map((r) => r.v);
}

async function roundTrips(db: Db): Promise<void> {
  expect(await readBack(db, 'int', int4ArrayParam(db, Int32Array.from(ints)))).toEqual(ints.map(String));
  expect(await readBack(db, 'bigint', int8ArrayParam(db, bigs))).toEqual(bigs.map(String));
  expect(await readBack(db, 'boolean', boolArrayParam(db, Uint8Array.from(flags)))).toEqual(['true', 'false', 'false', 'true', 'true']);
  const micros = await readBack(db, 'timestamptz', timestamptzArrayParam(db, Float64Array.from(instants)), `(extract(epoch from x) * ${MICROS})::bigint::text`);
  expect(micros).toEqual(instants.map((t) => (Number.isNaN(t) ? null : String(t))));
  // Named by text alone, and by bytes (the graph's way) with the text where the bytes are not given.
  const byText = uuidArrayParam(db, uuids.length, (i) => uuids[i]!);
  const byBytes = uuidArrayParam(
    db,
    uuids.length,
    (i) => uuids[i]!,
    (i, out, at) => i % 2 === 0 && uuids[i] !== null && out.write(uuids[i]!.replaceAll('-', ''), at, 'hex') === 16,
  );
  expect(await readBack(db, 'uuid', byText)).toEqual(uuids);
  expect(await readBack(db, 'uuid', byBytes)).toEqual(uuids);
  expect(await readBack(db, 'uuid', uuidArrayParam(db, 0, () => null))).toEqual([]);
}

describe('array parameters', () => {
  onPostgres('PostgreSQL decodes them in binary', async () => {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1, options: '-c timezone=UTC' });
    try {
      const db = pgDb(pool);
      expect(db.binaryParams).toBe(true);
      expect(int4ArrayParam(db, [1])).toBeInstanceOf(Buffer);
      expect(uuidArrayParam(db, 1, () => null)).toBeInstanceOf(Buffer);
      await roundTrips(db);
    } finally {
      await pool.end();
    }
  });

  onPglite('PGlite reads them as text literals', async () => {
    const pglite = await PGlite.create();
    try {
      const db = pgliteDb(pglite);
      expect(db.binaryParams).toBe(false);
      expect(typeof int4ArrayParam(db, [1])).toBe('string');
      await roundTrips(db);
    } finally {
      await pglite.close();
    }
  });
});
