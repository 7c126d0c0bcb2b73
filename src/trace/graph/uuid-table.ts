/**
 * Uuids interned as dense ints (0, 1, 2… in the order first seen), stored as their 16 bytes: the
 * in-memory trace graph holds a million animals, and a Map of strings costs about 150 bytes a uuid
 * and a string hash per lookup; here a lookup parses the 32 hex digits and probes an open-addressing
 * table (24 bytes a uuid, table included). A name that is not a canonical uuid is kept as a string
 * beside them (same numbering). `compare` is uuid order (PostgreSQL's: the bytes, unsigned).
 */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;
const HEX_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** Four hex digits at `at` as a number, negative if one is not a hex digit. */
function hex4(s: string, at: number): number {
  const a = s.charCodeAt(at);
  const b = s.charCodeAt(at + 1);
  const c = s.charCodeAt(at + 2);
  const d = s.charCodeAt(at + 3);
  if ((a | b | c | d) >= 128) return -1;
  const x = HEX[a]!;
  const y = HEX[b]!;
  const z = HEX[c]!;
  const w = HEX[d]!;
  return (x | y | z | w) < 0 ? -1 : (x << 12) | (y << 8) | (z << 4) | w;
}
const NAME = Buffer.alloc(36);

export class UuidTable {
  private words = new Uint32Array(4 * 1024);
  private slots = new Int32Array(2048).fill(-1);
  private count = 0;
  private readonly others = new Map<string, number>();
  private readonly otherNames = new Map<number, string>();
  // The last parse (fields: no array per lookup).
  private w0 = 0;
  private w1 = 0;
  private w2 = 0;
  private w3 = 0;

  get size(): number {
    return this.count;
  }

  // The last name interned: a driver's rows come by id, and one animal's stays often follow each other.
  private lastName = '';
  private lastIndex = -1;

  intern(name: string): number {
    if (name === this.lastName) return this.lastIndex;
    const index = this.internNew(name);
    this.lastName = name;
    this.lastIndex = index;
    return index;
  }

  private internNew(name: string): number {
    const found = this.find(name);
    if (found !== undefined) return found;
    const i = this.count++;
    if (!this.parse(name)) {
      this.others.set(name, i);
      this.otherNames.set(i, name);
      this.store(i, 0, 0, 0, 0);
      return i;
    }
    this.store(i, this.w0, this.w1, this.w2, this.w3);
    if (2 * this.count > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(i);
    return i;
  }

  /** A uuid's 16 bytes at `at` interned (no string made). */
  internBytes(buf: Uint8Array, at: number): number {
    this.w0 = ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
    this.w1 = ((buf[at + 4]! << 24) | (buf[at + 5]! << 16) | (buf[at + 6]! << 8) | buf[at + 7]!) >>> 0;
    this.w2 = ((buf[at + 8]! << 24) | (buf[at + 9]! << 16) | (buf[at + 10]! << 8) | buf[at + 11]!) >>> 0;
    this.w3 = ((buf[at + 12]! << 24) | (buf[at + 13]! << 16) | (buf[at + 14]! << 8) | buf[at + 15]!) >>> 0;
    const found = this.findParsed();
    if (found !== undefined) return found;
    const i = this.count++;
    this.store(i, this.w0, this.w1, this.w2, this.w3);
    if (2 * this.count > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(i);
    return i;
  }

  find(name: string): number | undefined {
    if (!this.parse(name)) return this.others.get(name);
    return this.findParsed();
  }

  /** The index of the uuid last parsed (`w0`..`w3`), if interned. */
  private findParsed(): number | undefined {
    const mask = this.slots.length - 1;
    for (let h = this.hash(this.w0, this.w1, this.w2, this.w3) & mask; ; h = (h + 1) & mask) {
      const i = this.slots[h]!;
      if (i < 0) return undefined;
      const w = this.words;
      if (w[4 * i] === this.w0 && w[4 * i + 1] === this.w1 && w[4 * i + 2] === this.w2 && w[4 * i + 3] === this.w3 && !this.otherNames.has(i)) return i;
    }
  }

  /**
   * Writes a uuid's 36 characters (ASCII) into `out` at `at`, false for a name that is not one: a
   * long list of names made into one text without a string each.
   */
  writeName(i: number, out: Uint8Array, at: number): boolean {
    if (this.otherNames.has(i)) return false;
    const w = this.words;
    let p = at;
    for (let k = 0; k < 16; k++) {
      if (k === 4 || k === 6 || k === 8 || k === 10) out[p++] = 45;
      const b = (w[4 * i + (k >> 2)]! >>> (24 - 8 * (k & 3))) & 0xff;
      out[p++] = HEX_CODES[b >> 4]!;
      out[p++] = HEX_CODES[b & 15]!;
    }
    return true;
  }

  /** Writes a uuid's 16 bytes into `out` at `at` (a binary parameter's element), false for a name that is not one. */
  writeBytes(i: number, out: Uint8Array, at: number): boolean {
    if (this.otherNames.size > 0 && this.otherNames.has(i)) return false;
    const w = this.words;
    for (let k = 0; k < 4; k++, at += 4) {
      const x = w[4 * i + k]!;
      out[at] = x >>> 24;
      out[at + 1] = x >>> 16;
      out[at + 2] = x >>> 8;
      out[at + 3] = x;
    }
    return true;
  }

  name(i: number): string {
    const other = this.otherNames.get(i);
    if (other !== undefined) return other;
    // One flat string from the bytes (built a character at a time it was a rope of 36 pieces: 2-3 µs a name
    // once flattened, which the trace's answer paid for every unit, holding and animal it named).
    this.writeName(i, NAME, 0);
    return NAME.toString('latin1', 0, 36);
  }


  /** Uuid order (negative: i first). */
  /** A number in uuid order (the first 52 bits; equal numbers say nothing: compare then): a sort's cheap first key. */
  sortKey(i: number): number {
    if (this.otherNames.size > 0 && this.otherNames.has(i)) return 0;
    return this.words[4 * i]! * 0x100000 + (this.words[4 * i + 1]! >>> 12);
  }

  compare(i: number, j: number): number {
    if (this.otherNames.size > 0 && (this.otherNames.has(i) || this.otherNames.has(j))) {
      const a = this.name(i);
      const b = this.name(j);
      return a < b ? -1 : a > b ? 1 : 0;
    }
    const w = this.words;
    for (let k = 0; k < 4; k++) {
      const d = w[4 * i + k]! - w[4 * j + k]!;
      if (d !== 0) return d;
    }
    return 0;
  }

  get bytes(): number {
    return this.words.byteLength + this.slots.byteLength;
  }

  /** Parses a canonical uuid (8-4-4-4-12 hex digits, either case) into w0..w3. */
  private parse(name: string): boolean {
    if (name.length !== 36 || name.charCodeAt(8) !== 45 || name.charCodeAt(13) !== 45 || name.charCodeAt(18) !== 45 || name.charCodeAt(23) !== 45) return false;
    // Each word as two 16-bit halves (small integers all the way: no heap numbers).
    const a = hex4(name, 0);
    const b = hex4(name, 4);
    const c = hex4(name, 9);
    const d = hex4(name, 14);
    const e = hex4(name, 19);
    const f = hex4(name, 24);
    const g = hex4(name, 28);
    const h = hex4(name, 32);
    if ((a | b | c | d | e | f | g | h) < 0) return false;
    this.key[0] = (a << 16) | b;
    this.key[1] = (c << 16) | d;
    this.key[2] = (e << 16) | f;
    this.key[3] = (g << 16) | h;
    this.w0 = this.key[0]!;
    this.w1 = this.key[1]!;
    this.w2 = this.key[2]!;
    this.w3 = this.key[3]!;
    return true;
  }
  private readonly key = new Uint32Array(4);

  private hash(a: number, b: number, c: number, d: number): number {
    let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 15) ^ b, 0xc2b2ae35);
    h = Math.imul(h ^ (h >>> 13) ^ c, 0x27d4eb2f);
    h = Math.imul(h ^ (h >>> 16) ^ d, 0x165667b1);
    return (h ^ (h >>> 15)) >>> 0;
  }

  private store(i: number, a: number, b: number, c: number, d: number): void {
    if (4 * i + 4 > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words[4 * i] = a;
    this.words[4 * i + 1] = b;
    this.words[4 * i + 2] = c;
    this.words[4 * i + 3] = d;
  }

  private place(i: number): void {
    const w = this.words;
    const mask = this.slots.length - 1;
    let h = this.hash(w[4 * i]!, w[4 * i + 1]!, w[4 * i + 2]!, w[4 * i + 3]!) & mask;
    while (this.slots[h]! >= 0) h = (h + 1) & mask;
    this.slots[h] = i;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size).fill(-1);
    for (let i = 0; i < this.count; i++) if (!this.otherNames.has(i)) this.place(i);
  }
}
