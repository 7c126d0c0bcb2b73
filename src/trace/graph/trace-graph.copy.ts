import type { GraphStay } from './trace-graph.types.js';
import type { Interner } from './trace-graph.ids.js';

/** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp epoch. */
const PG_EPOCH_MICROS = 946_684_800_000_000;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Reads `COPY (staysSelect('raw')) TO STDOUT (FORMAT binary)` into GraphStay rows: each field is
 * its length and its bytes, so no byte is searched for a delimiter, the times are PostgreSQL's own
 * int8 microseconds and the ids their 16 bytes (no formatting on the server, no parsing here; an
 * id's string is made once, by the Interner, src/trace/graph/trace-graph.ids.ts).
 * Rows that straddle two chunks wait for the next one.
 */
export class StayCopyParser {
  private rest: Buffer | undefined;
  private headerRead = false;
  ended = false;
  private readonly starts = new Int32Array(8);
  private readonly ends = new Int32Array(8);

  constructor(private readonly ids: Interner) {}

  /** The whole rows of `chunk` (with what the previous chunk left). */
  push(chunk: Buffer, out: GraphStay[]): void {
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
      const row = this.row(buf, at, out);
      if (row < 0) {
        this.rest = start < buf.length ? buf.subarray(start) : undefined;
        return;
      }
      at = row;
    }
  }

  /** The offset after the row at `at`, or -1 when the buffer ends inside it. */
  private row(buf: Buffer, at: number, out: GraphStay[]): number {
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
    const ids = this.ids;
    out.push({
      id: int8(buf, starts[0]!),
      animal: ids.ofBytes(buf, starts[1]!),
      unit: ids.ofBytes(buf, starts[2]!),
      establishment: ids.ofBytes(buf, starts[3]!),
      from: micros(int8(buf, starts[4]!)),
      to: starts[5] === -1 ? null : micros(int8(buf, starts[5]!)),
      vehicle: starts[6] === -1 ? null : ids.ofBytes(buf, starts[6]!),
      egress: starts[7] === -1 ? null : ids.ofBytes(buf, starts[7]!),
    });
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
