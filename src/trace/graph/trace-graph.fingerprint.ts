import { hashInt8, hashUint32Extended, hashUuidBytes } from './pg-hash.js';
import { staysSelect } from './trace-graph.rows.js';
import type { Changes, Horizon } from './trace-graph.source.js';

/**
 * A fingerprint of the stays, to compare the graph in memory with the database
 * (docs/decisions/trace.md, "Never wrong"): per partition of `animal_stay` (by its lower bound of
 * the key `coalesce(ts_to, 'infinity')`), the count of stays and the sum, modulo 2^32 in each of two
 * words, of a 64-bit hash of each stay's fields as the graph holds them (id, from, to, animal, unit,
 * establishment, vehicle, egress). A sum is order independent, so the statement and the graph
 * each add their stays up as they come. Each field is hashed by PostgreSQL's own functions
 * (`hashint8`, `uuid_hash`; src/trace/graph/pg-hash.ts computes them the same), the field hashes
 * combined with a distinct odd multiplier each (so two stays swapping a unit do not cancel) and the
 * result hashed again to 64 bits (`hashint8extended`).
 */
export interface FingerprintPart {
  /** The partition's name; null for the stays below every partition's lower bound (a graph holding a detached block's). */
  name: string | null;
  /** The partition's lower bound of the key in epoch microseconds (-Infinity: MINVALUE; Infinity: the open stays'). */
  from: number;
  stays: number;
  /** 16 hex digits: the sums' high word, then the low word. */
  checksum: string;
}

export interface StaysFingerprint {
  /** The snapshot it was read under. */
  horizon: Horizon;
  parts: FingerprintPart[];
  /** With a `since`: the changes since it, read under the same snapshot (the graph brought to this horizon exactly). */
  changes?: Changes | 'stale';
}

/** The multipliers of id, from, to, animal, unit, establishment, vehicle, egress (odd, below 2^31: their products fit an int8). */
export const FIELD_MULTIPLIERS = [0x2545f491, 0x5bd1e995, 0x68e31da5, 0x1b873593, 0x27d4eb2f, 0x165667b1, 0x61c88647, 0x7feb352d] as const;

const M = 4294967295;
const micros = (c: string) => `(extract(epoch from s.${c}) * 1000000)::int8`;
const FIELDS = [
  'hashint8(s.id)',
  `hashint8(${micros('"from"')})`,
  `hashint8(${micros('"to"')})`,
  'uuid_hash(s.animal)',
  'uuid_hash(s.unit)',
  'uuid_hash(s.establishment)',
  'uuid_hash(s.vehicle)',
  'uuid_hash(s.egress)',
];
/** The fields' hashes as uint32 (a null field 0), each times its multiplier, summed modulo 2^32. */
const COMBINED = FIELDS.map((f, k) => `((${FIELD_MULTIPLIERS[k]} * (coalesce(${f}, 0)::int8 & ${M})) & ${M})`).join(' + ');

/**
 * One statement: the horizon, then one row per partition in key order (and bucket 0, below them
 * all, always: empty in the database). Lower bounds read from the catalog (`FROM (MINVALUE)` or a
 * timestamptz literal); each stay counted in the partition whose range holds its key.
 */
export const FINGERPRINT_SQL = `with parts as (
    select row_number() over (order by b.lo) as i, b.name, b.lo from (
      select c.relname::text as name,
             case when f.lo = 'MINVALUE' then '-infinity'::timestamptz else trim(both '''' from f.lo)::timestamptz end as lo
        from pg_inherits h join pg_class c on c.oid = h.inhrelid
        cross join lateral (select substring(pg_get_expr(c.relpartbound, c.oid) from 'FROM \\(([^)]*)\\)') as lo) f
       where h.inhparent = 'animal_stay'::regclass) b
  ), sums as (
    select width_bucket(coalesce(x."to", 'infinity'::timestamptz), array(select p.lo from parts p order by p.i)) as bucket,
           count(*) as stays, sum(x.h & ${M}) % 4294967296 as lo, sum((x.h >> 32) & ${M}) % 4294967296 as hi
      from (select s."to", hashint8extended((${COMBINED}) & ${M}, 0) as h from (${staysSelect('raw')}) s) x
     group by 1
  )
  select pg_current_snapshot()::text as horizon, p.name, (extract(epoch from p.lo) * 1000000)::float8 as "from",
         coalesce(s.stays, 0)::float8 as stays, coalesce(s.hi, 0)::float8 as hi, coalesce(s.lo, 0)::float8 as lo
    from (select i, name, lo from parts union all select 0, null, null) p left join sums s on s.bucket = p.i
   order by p.i`;

/** The statement's rows (`horizon, name, from, stays, hi, lo`, as arrays) as a fingerprint. */
export function fingerprintOfRows(rows: unknown[][]): { horizon: Horizon; parts: FingerprintPart[] } {
  const parts = rows.map((r) => ({
    name: r[1] as string | null,
    from: r[1] === null ? -Infinity : Number(r[2]),
    stays: Number(r[3]),
    checksum: checksumText(Number(r[4]), Number(r[5])),
  }));
  return { horizon: rows[0]![0] as string, parts };
}

const checksumText = (hi: number, lo: number): string => hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');

/** One stay's fields as the graph holds them; uuids as their `uuid_hash` (a null vehicle or egress 0). */
export interface StayHashes {
  id: number;
  from: number;
  /** NaN while open. */
  to: number;
  animal: number;
  unit: number;
  establishment: number;
  vehicle: number;
  egress: number;
}

/** Sums stays into the buckets of `parts` (their lower bounds, from the database's fingerprint). */
export class FingerprintSums {
  private readonly bounds: number[];
  private readonly counts: number[];
  private readonly his: number[];
  private readonly los: number[];
  private readonly hash = new Uint32Array(2);

  constructor(private readonly parts: readonly Pick<FingerprintPart, 'name' | 'from'>[]) {
    this.bounds = parts.filter((p) => p.name !== null).map((p) => p.from);
    this.counts = new Array<number>(this.bounds.length + 1).fill(0);
    this.his = this.counts.slice();
    this.los = this.counts.slice();
  }

  add(s: StayHashes): void {
    const C = FIELD_MULTIPLIERS;
    const to = Number.isNaN(s.to) ? 0 : hashInt8(s.to);
    const combined =
      (Math.imul(C[0], hashInt8(s.id)) + Math.imul(C[1], hashInt8(s.from)) + Math.imul(C[2], to) + Math.imul(C[3], s.animal) +
        Math.imul(C[4], s.unit) + Math.imul(C[5], s.establishment) + Math.imul(C[6], s.vehicle) + Math.imul(C[7], s.egress)) >>>
      0;
    const h = hashUint32Extended(combined, this.hash);
    const b = this.bucket(Number.isNaN(s.to) ? Infinity : s.to);
    this.counts[b]!++;
    this.his[b] = (this.his[b]! + h[0]!) >>> 0;
    this.los[b] = (this.los[b]! + h[1]!) >>> 0;
  }

  /** The parts as the statement lists them: bucket 0 (name null), then each partition. */
  result(): FingerprintPart[] {
    const named = this.parts.filter((p) => p.name !== null);
    return [{ name: null, from: -Infinity }, ...named].map((p, b) => ({ name: p.name, from: p.from, stays: this.counts[b]!, checksum: checksumText(this.his[b]!, this.los[b]!) }));
  }

  /** width_bucket: how many lower bounds are at or below the key. */
  private bucket(key: number): number {
    let lo = 0;
    let hi = this.bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.bounds[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Whether two fingerprints (the database's and the graph's) name the same stays. */
export function sameFingerprint(a: readonly FingerprintPart[], b: readonly FingerprintPart[]): boolean {
  const key = (parts: readonly FingerprintPart[]) =>
    parts
      .filter((p) => p.stays > 0)
      .map((p) => `${p.name}:${p.stays}:${p.checksum}`)
      .join('|');
  return key(a) === key(b);
}

/** Each interned uuid's `uuid_hash` by its index (0 for a name that is not a uuid: the database holds none). */
export function uuidHashes(table: { size: number; writeBytes(i: number, out: Uint8Array, at: number): boolean }): Uint32Array {
  const out = new Uint32Array(table.size);
  const bytes = new Uint8Array(16);
  for (let i = 0; i < table.size; i++) if (table.writeBytes(i, bytes, 0)) out[i] = hashUuidBytes(bytes, 0);
  return out;
}
