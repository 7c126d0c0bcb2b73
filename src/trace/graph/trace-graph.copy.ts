import type { StayChunk } from './trace-graph.types.js';

/** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp epoch. */
const PG_EPOCH_MICROS = 946_684_800_000_000;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Reads `COPY (staysSelect('raw')) TO STDOUT (FORMAT binary)` into chunks of stays (`StayChunk`):
 * each field is its length and its bytes, so no byte is searched for a delimiter, the times are
 * PostgreSQL's own int8 microseconds and the ids their 16 bytes, copied as they are (no string is
 * ever made of an id: the graph interns the bytes). Rows that straddle two buffers wait for the next.
 */
export class StayCopyParser {
  private rest: Buffer | undefined;
  private headerRead = false;
  ended = false;
  private readonly starts = new Int32Array(8);
  private readonly ends = new Int32Array(8);

  private out: StayChunk;

  /** `size`: stays a chunk holds; `full` is given each full chunk (`end` gives the last). */
  constructor(
    private readonly size: number,
    private readonly full: (chunk: StayChunk) => void,
  ) {
    this.out = newChunk(size);
  }

  /** The rest, a chunk of fewer stays (none when empty). */
  end(): void {
    if (this.out.length) this.full(this.out);
    this.out = newChunk(this.size);
  }

  /** The whole rows of `chunk` (with what the previous buffer left). */
  push(chunk: Buffer): void {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    let at = 0;
    if (!this.headerRead) {
      if (buf.length < 19) return void (this.rest = buf);
      if (!buf.subarray(0, 11).equals(SIGNATURE)) throw new Error('not a binary COPY');
      at = 19 + buf.readUInt32BE(15);
      this.headerRead = true;
    }
    for (;;) {
      const start = at;
      const row = this.row(buf, at);
      if (row < 0) {
        this.rest = start < buf.length ? buf.subarray(start) : undefined;
        return;
      }
      at = row;
    }
  }

  /** The offset after the row at `at`, or -1 when the buffer ends inside it. */
  private row(buf: Buffer, at: number): number {
    const end = buf.length;
    if (at + 2 > end) return -1;
    const fields = buf.readInt16BE(at);
    if (fields === -1) {
      this.ended = true;
      return -1;
    }
    if (fields !== 8) throw new Error(`a stay row of ${fields} fields`);
    at += 2;
    // Each field's start (-1: null) and end, read before any string is made: a row cut by the chunk's end makes none.
    const starts = this.starts;
    const ends = this.ends;
    for (let f = 0; f < 8; f++) {
      if (at + 4 > end) return -1;
      const len = buf.readInt32BE(at);
      at += 4;
      if (len === -1) {
        starts[f] = -1;
        continue;
      }
      if (at + len > end) return -1;
      starts[f] = at;
      ends[f] = at += len;
    }
    const out = this.out;
    const k = out.length++;
    out.id[k] = int8(buf, starts[0]!);
    out.from[k] = micros(int8(buf, starts[4]!));
    out.to[k] = starts[5] === -1 ? NaN : micros(int8(buf, starts[5]!));
    // animal, unit, establishment, vehicle, egress: fields 1, 2, 3, 6, 7
    for (let f = 0; f < 5; f++) {
      const start = starts[ID_FIELDS[f]!]!;
      if (start === -1) out.nulls[5 * k + f] = 1;
      else out.uuids.set(buf.subarray(start, start + 16), 80 * k + 16 * f);
    }
    if (out.length === this.size) {
      this.full(out);
      this.out = newChunk(this.size);
    }
    return at;
  }
}

function int8(buf: Buffer, at: number): number {
  const hi = buf.readInt32BE(at);
  const lo = buf.readUInt32BE(at + 4);
  // PostgreSQL's ±infinity timestamps (the int8 extremes).
  if (hi === 0x7fffffff && lo === 0xffffffff) return Infinity;
  if (hi === -0x80000000 && lo === 0) return -Infinity;
  return hi * 4_294_967_296 + lo;
}

const micros = (sincePgEpoch: number): number => (Number.isFinite(sincePgEpoch) ? sincePgEpoch + PG_EPOCH_MICROS : sincePgEpoch);

/** The COPY's fields holding the chunk's ids, in CHUNK_IDS' order. */
const ID_FIELDS = [1, 2, 3, 6, 7];

function newChunk(size: number): StayChunk {
  return { length: 0, id: new Float64Array(size), from: new Float64Array(size), to: new Float64Array(size), uuids: new Uint8Array(80 * size), nulls: new Uint8Array(5 * size) };
}
