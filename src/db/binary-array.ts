/**
 * One-dimensional PostgreSQL arrays in their binary wire format (array_recv), written from typed
 * arrays into one Buffer: node-pg sends a Buffer parameter in binary, and `?::uuid[]` gives it its
 * type. A quarter of a million elements as text literals cost about a second of CPU to build and
 * for node-pg to write out; here each element is a few byte writes.
 *
 * The format: int32 ndim (1), int32 has-nulls, int32 element oid, int32 length, int32 lower bound
 * (1), then per element an int32 byte length (-1: NULL) and its bytes, big-endian.
 */
const OID = { bool: 16, int8: 20, int4: 23, timestamptz: 1184, uuid: 2950 } as const;
const HEADER = 20;

function header(out: Buffer, oid: number, length: number, nulls: boolean): void {
  out.writeInt32BE(1, 0);
  out.writeInt32BE(nulls ? 1 : 0, 4);
  out.writeInt32BE(oid, 8);
  out.writeInt32BE(length, 12);
  out.writeInt32BE(1, 16);
}

/** int4[] of these ints (no NULLs). */
export function int4Array(values: ArrayLike<number>): Buffer {
  const n = values.length;
  const out = Buffer.allocUnsafe(HEADER + 8 * n);
  header(out, OID.int4, n, false);
  for (let i = 0, at = HEADER; i < n; i++, at += 8) {
    out.writeInt32BE(4, at);
    out.writeInt32BE(values[i]!, at + 4);
  }
  return out;
}

/** A safe integer as a big-endian int64 (two words: no BigInt per element). */
function writeInt64(out: Buffer, v: number, at: number): void {
  const hi = Math.floor(v / 2 ** 32);
  out.writeInt32BE(hi, at);
  out.writeUInt32BE(v - hi * 2 ** 32, at + 4);
}

/** int8[] of these integers (safe integers, no NULLs). */
export function int8Array(values: ArrayLike<number>): Buffer {
  const n = values.length;
  const out = Buffer.allocUnsafe(HEADER + 12 * n);
  header(out, OID.int8, n, false);
  for (let i = 0, at = HEADER; i < n; i++, at += 12) {
    out.writeInt32BE(8, at);
    writeInt64(out, values[i]!, at + 4);
  }
  return out;
}

/** bool[] of these flags (non-zero: true; no NULLs). */
export function boolArray(values: ArrayLike<number>): Buffer {
  const n = values.length;
  const out = Buffer.allocUnsafe(HEADER + 5 * n);
  header(out, OID.bool, n, false);
  for (let i = 0, at = HEADER; i < n; i++, at += 5) {
    out.writeInt32BE(1, at);
    out[at + 4] = values[i] ? 1 : 0;
  }
  return out;
}

/** Microseconds between the Unix epoch and PostgreSQL's (2000-01-01 UTC). */
const PG_EPOCH_US = 946_684_800_000_000;

/** timestamptz[] of instants in Unix epoch microseconds (NaN: NULL; whole microseconds, as timestamptz keeps them). */
export function timestamptzArray(us: ArrayLike<number>): Buffer {
  const n = us.length;
  let nulls = 0;
  for (let i = 0; i < n; i++) if (Number.isNaN(us[i])) nulls++;
  const out = Buffer.allocUnsafe(HEADER + 12 * n - 8 * nulls);
  header(out, OID.timestamptz, n, nulls > 0);
  let at = HEADER;
  for (let i = 0; i < n; i++) {
    const t = us[i]!;
    if (Number.isNaN(t)) {
      out.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    out.writeInt32BE(8, at);
    writeInt64(out, Math.round(t) - PG_EPOCH_US, at + 4);
    at += 12;
  }
  return out;
}

/**
 * uuid[] of n elements, the i-th's 16 bytes written by `write(i, out, at)`, which returns false for
 * NULL (anything it wrote is then dropped).
 */
export function uuidArray(n: number, write: (i: number, out: Buffer, at: number) => boolean): Buffer {
  const out = Buffer.allocUnsafe(HEADER + 20 * n);
  let at = HEADER;
  let nulls = false;
  for (let i = 0; i < n; i++) {
    if (write(i, out, at + 4)) {
      out.writeInt32BE(16, at);
      at += 20;
    } else {
      out.writeInt32BE(-1, at);
      at += 4;
      nulls = true;
    }
  }
  header(out, OID.uuid, n, nulls);
  return out.subarray(0, at);
}
