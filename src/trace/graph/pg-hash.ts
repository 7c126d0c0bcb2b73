/**
 * PostgreSQL's own hash functions (src/common/hashfn.c: Bob Jenkins' lookup3, as `hashint8`,
 * `hashint8extended` and `uuid_hash` compute them), so that the graph in memory and a statement
 * over the stays hash a stay the same way (the fingerprint, trace-graph.fingerprint.ts) without
 * moving the rows. Little-endian word order, as on the x86, ARM and WebAssembly (PGlite) servers
 * PostgreSQL runs on; test/trace-graph-fingerprint.test.ts holds them equal to the server's.
 * All values are uint32 in JavaScript numbers.
 */
const rot = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

const SEED = (0x9e3779b9 + 3923095) >>> 0;

/** lookup3's final(a, b, c): b and c (the only words read after it) into `out`. */
function final(a: number, b: number, c: number, out: Uint32Array): void {
  c ^= b;
  c -= rot(b, 14);
  a ^= c;
  a -= rot(c, 11);
  b ^= a;
  b -= rot(a, 25);
  c ^= b;
  c -= rot(b, 16);
  a ^= c;
  a -= rot(c, 4);
  b ^= a;
  b -= rot(a, 14);
  c ^= b;
  c -= rot(b, 24);
  out[0] = b;
  out[1] = c;
}

const bc = new Uint32Array(2);

/** `hash_bytes_uint32(k)`: what `hashint4`, and `hashint8` of a folded value, return (as uint32). */
export function hashUint32(k: number): number {
  const init = (SEED + 4) >>> 0;
  final((init + k) | 0, init, init, bc);
  return bc[1]!;
}

/** `hash_bytes_uint32_extended(k, 0)`'s high and low words into `out` (the seed 0 skips lookup3's mix; no object per call). */
export function hashUint32Extended(k: number, out: Uint32Array = new Uint32Array(2)): Uint32Array {
  const init = (SEED + 4) >>> 0;
  final((init + k) | 0, init, init, out);
  return out;
}

/** int8's fold to 32 bits before hashing (`hashint8`: equal ints of other widths hash alike). */
export function foldInt8(v: number): number {
  const hi = Math.floor(v / 4294967296);
  const lo = (v - hi * 4294967296) >>> 0;
  return (v >= 0 ? lo ^ hi : lo ^ ~hi) >>> 0;
}

/** `hashint8(v)` as uint32, for an integer below 2^53 in magnitude. */
export const hashInt8 = (v: number): number => hashUint32(foldInt8(v));

/** `uuid_hash(u)` as uint32, the uuid's 16 bytes at `at` (lookup3's hash_bytes over 16 bytes). */
export function hashUuidBytes(bytes: Uint8Array, at: number): number {
  const word = (i: number) => (bytes[at + i]! | (bytes[at + i + 1]! << 8) | (bytes[at + i + 2]! << 16) | (bytes[at + i + 3]! << 24)) | 0;
  let a = (SEED + 16) | 0;
  let b = a;
  let c = a;
  a = (a + word(0)) | 0;
  b = (b + word(4)) | 0;
  c = (c + word(8)) | 0;
  // mix(a, b, c)
  a -= c;
  a ^= rot(c, 4);
  c = (c + b) | 0;
  b -= a;
  b ^= rot(a, 6);
  a = (a + c) | 0;
  c -= b;
  c ^= rot(b, 8);
  b = (b + a) | 0;
  a -= c;
  a ^= rot(c, 16);
  c = (c + b) | 0;
  b -= a;
  b ^= rot(a, 19);
  a = (a + c) | 0;
  c -= b;
  c ^= rot(b, 4);
  b = (b + a) | 0;
  // the last 4 bytes
  a = (a + word(12)) | 0;
  final(a, b, c, bc);
  return bc[1]!;
}
