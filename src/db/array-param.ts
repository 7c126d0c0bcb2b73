import { boolArray, int4Array, int8Array, timestamptzArray, uuidArray } from './binary-array.js';
import type { Db } from './sql.js';

/**
 * An array parameter (`?::uuid[]`, `?::int[]`…) in the form the Db takes best: binary where its
 * driver sends a Buffer so (node-pg: no text to build nor to write out, src/db/binary-array.ts),
 * else a text array literal (PGlite). One function per element type, so a statement's call site
 * is the same for both.
 */
export type ArrayParam = Buffer | string;

/** A PostgreSQL array literal of elements that need no quoting (uuids, numbers, ISO times, booleans); null as NULL. */
export const arrayLiteral = (list: readonly (string | number | null)[]): string => {
  let nulls = false;
  for (const x of list) if (x === null) nulls = true;
  return `{${(nulls ? list.map((x) => (x === null ? 'NULL' : x)) : list).join(',')}}`;
};

/** An instant in epoch microseconds as ISO text with its microseconds (timestamptz's resolution). */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const rest = us - ms * 1000;
  const iso = new Date(ms).toISOString();
  return rest ? `${iso.slice(0, -1)}${String(Math.round(rest)).padStart(3, '0')}Z` : iso;
}

/** A uuid's text as its 16 bytes into `out` at `at` (false: null). */
function writeUuidText(name: string | null, out: Buffer, at: number): boolean {
  if (name === null) return false;
  if (out.write(name.replaceAll('-', ''), at, 16, 'hex') !== 16) throw new Error(`not a uuid: ${name}`);
  return true;
}

/**
 * uuid[] of n elements: the i-th named by `name` (null: NULL); `bytes`, where given, writes its 16
 * bytes without a string (false: it cannot, then `name` is asked).
 */
export function uuidArrayParam(db: Db, n: number, name: (i: number) => string | null, bytes?: (i: number, out: Buffer, at: number) => boolean): ArrayParam {
  if (db.binaryParams) return uuidArray(n, (i, out, at) => bytes?.(i, out, at) || writeUuidText(name(i), out, at));
  return arrayLiteral(Array.from({ length: n }, (_, i) => name(i)));
}

/** int4[] (no NULLs). */
export const int4ArrayParam = (db: Db, values: Int32Array | readonly number[]): ArrayParam => (db.binaryParams ? int4Array(values) : `{${values.join(',')}}`);

/** int8[] of safe integers (no NULLs). */
export const int8ArrayParam = (db: Db, values: Float64Array | readonly number[]): ArrayParam => (db.binaryParams ? int8Array(values) : `{${values.join(',')}}`);

/** bool[] of flags (non-zero: true; no NULLs). */
export function boolArrayParam(db: Db, values: Uint8Array | readonly number[]): ArrayParam {
  if (db.binaryParams) return boolArray(values);
  return `{${Array.from(values, (v) => (v ? 't' : 'f')).join(',')}}`;
}

/** timestamptz[] of instants in epoch microseconds (NaN: NULL). */
export function timestamptzArrayParam(db: Db, us: Float64Array | readonly number[]): ArrayParam {
  if (db.binaryParams) return timestamptzArray(us);
  // Runs of one instant (a truck's load) written once.
  let last = NaN;
  let text = 'NULL';
  return `{${Array.from(us, (t) => {
    if (Number.isNaN(t)) return 'NULL';
    if (t !== last) text = isoMicros((last = t));
    return text;
  }).join(',')}}`;
}
