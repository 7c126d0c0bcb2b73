/**
 * One copy of each id string (docs/decisions/trace.md, "The graph kept fresh"): a million animals'
 * five million stays name each animal, unit, establishment and vehicle many times. Every id is a
 * uuid. An open-addressing table keyed by the uuid's 16 bytes as four int32 words kept side by side
 * in one typed array: the binary COPY's bytes are looked up with no string made and no string's
 * characters read (a probe touches the key words and, on a hit, the string's slot), and a string is
 * formatted only the first time an id is met. At 1,000,000 animals (17 million lookups into 1.3
 * million ids) a table of the strings' characters spent 1 µs a lookup in cache misses.
 */
export class Interner {
  /** Slot i's key: words 4i..4i+3. */
  private keys = new Int32Array(4 * 1024);
  /** Slot i's string (undefined: empty). */
  private strings: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
  private size = 0;

  /** The uuid written as 16 bytes in `buf` at `at`. */
  ofBytes(buf: Buffer, at: number): string {
    return this.of4(buf.readInt32BE(at), buf.readInt32BE(at + 4), buf.readInt32BE(at + 8), buf.readInt32BE(at + 12));
  }

  /** A uuid's text (lower-case hex, as PostgreSQL writes it). */
  of(s: string): string {
    if (s.length !== 36) throw new Error(`not a uuid: ${s}`);
    return this.of4(hexWord(s, 0), hexWord(s, 9), hexWord(s, 19), hexWord(s, 28), s);
  }

  /** `text`: the id's string when the caller has one (else it is formatted from the words). */
  private of4(w0: number, w1: number, w2: number, w3: number, text?: string): string {
    let h = Math.imul(w0 ^ Math.imul(w1, 0x9e3779b1) ^ Math.imul(w2, 0x85ebca77) ^ Math.imul(w3, 0xc2b2ae3d), 0x27d4eb2f);
    h ^= h >>> 15;
    const keys = this.keys;
    const mask = this.strings.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const kept = this.strings[slot];
      if (kept === undefined) return this.keep(slot, w0, w1, w2, w3, text ?? formatted(w0, w1, w2, w3));
      const k = slot * 4;
      if (keys[k] === w0 && keys[k + 1] === w1 && keys[k + 2] === w2 && keys[k + 3] === w3) return kept;
    }
  }

  private keep(slot: number, w0: number, w1: number, w2: number, w3: number, s: string): string {
    this.put(slot, w0, w1, w2, w3, s);
    if (++this.size * 2 > this.strings.length) this.grow();
    return s;
  }

  private put(slot: number, w0: number, w1: number, w2: number, w3: number, s: string): void {
    const k = slot * 4;
    this.keys[k] = w0;
    this.keys[k + 1] = w1;
    this.keys[k + 2] = w2;
    this.keys[k + 3] = w3;
    this.strings[slot] = s;
  }

  private grow(): void {
    const { keys, strings } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.strings = new Array<string | undefined>(strings.length * 2).fill(undefined);
    this.size = 0;
    for (let i = 0; i < strings.length; i++) {
      const s = strings[i];
      if (s === undefined) continue;
      const k = i * 4;
      this.reinsert(keys[k]!, keys[k + 1]!, keys[k + 2]!, keys[k + 3]!, s);
    }
  }

  private reinsert(w0: number, w1: number, w2: number, w3: number, s: string): void {
    let h = Math.imul(w0 ^ Math.imul(w1, 0x9e3779b1) ^ Math.imul(w2, 0x85ebca77) ^ Math.imul(w3, 0xc2b2ae3d), 0x27d4eb2f);
    h ^= h >>> 15;
    const mask = this.strings.length - 1;
    let slot = h & mask;
    while (this.strings[slot] !== undefined) slot = (slot + 1) & mask;
    this.put(slot, w0, w1, w2, w3, s);
    this.size++;
  }
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const scratch = Buffer.alloc(36, 0x2d);
/** Where each of the 32 hex digits goes in the 36 characters (the dashes stay). */
const DIGIT_AT = [...Array(36).keys()].filter((i) => i !== 8 && i !== 13 && i !== 18 && i !== 23);

/** The uuid's text, as one flat string (a template's pieces would stay a tree of strings in the heap). */
function formatted(w0: number, w1: number, w2: number, w3: number): string {
  const words = [w0, w1, w2, w3];
  for (let d = 0; d < 32; d++) scratch[DIGIT_AT[d]!] = HEX[(words[d >> 3]! >>> (28 - 4 * (d & 7))) & 15]!;
  return scratch.toString('latin1', 0, 36);
}

/** Eight hex digits of `s` from `at`, skipping a dash, as an int32. */
function hexWord(s: string, at: number): number {
  let w = 0;
  for (let n = 0; n < 8; at++) {
    const c = s.charCodeAt(at);
    if (c === 0x2d) continue;
    w = (w << 4) | (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
    n++;
  }
  return w | 0;
}
