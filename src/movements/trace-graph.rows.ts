import type { GraphStay } from './trace-graph.types.js';

/**
 * The stays as `GraphStay` rows, the vehicle resolved as Migration0067TraceStayKey's VEHICLE: the
 * egress that closed the stay, FINISHED or RECEIVED, and its travel when its embark is not released
 * (at most one such embark per egress: travel_embark_egress_once). `times` picks how the times come
 * out: `micros` as epoch microseconds in float8 (exact below 2^53; what a row query parses into a
 * number), `raw` as timestamptz (the binary COPY's int8 microseconds since 2000).
 */
export function staysSelect(times: 'micros' | 'raw', where = ''): string {
  const t = (c: string) => (times === 'raw' ? `s.${c}` : `(extract(epoch from s.${c}) * 1000000)::int8::float8`);
  const id = times === 'raw' ? 's.id' : 's.id::float8';
  return `select ${id}, s.animal_id::text, s.control_unit_id::text, s.establishment_id::text, ${t('ts_from')}, ${t('ts_to')}, coalesce(te.travel_id, e.id)::text
    from animal_stay s
    left join animals_egress e on e.id = s.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED')
    left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
    ${where}`;
}

/**
 * One copy of each id string: a million animals' five million stays name each animal, unit and
 * establishment many times. An open-addressing table keyed by a hash of the characters (FNV-1a),
 * so that the binary COPY's bytes are looked up without making a string first: a known id (most of
 * them) costs no allocation. Twice as fast as a Map of the strings (which needs the string, then
 * hashes it again). Ids are ASCII (uuids), so a byte is a character.
 */
export class Interner {
  /** Each slot's hash (0: empty; a hash is made odd) and string. */
  private hashes = new Int32Array(1024);
  private strings: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
  private size = 0;

  of(s: string): string {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h |= 1;
    const mask = this.hashes.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const kh = this.hashes[slot];
      if (kh === 0) return this.keep(slot, h, s);
      if (kh === h && this.strings[slot] === s) return this.strings[slot]!;
    }
  }

  /** The id written in `buf` from `start` to `end`. */
  ofBytes(buf: Buffer, start: number, end: number): string {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    h |= 1;
    const mask = this.hashes.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const kh = this.hashes[slot];
      if (kh === 0) return this.keep(slot, h, buf.toString('latin1', start, end));
      if (kh === h && sameChars(this.strings[slot]!, buf, start, end)) return this.strings[slot]!;
    }
  }

  private keep(slot: number, h: number, s: string): string {
    this.hashes[slot] = h;
    this.strings[slot] = s;
    if (++this.size * 2 > this.hashes.length) this.grow();
    return s;
  }

  private grow(): void {
    const { hashes, strings } = this;
    this.hashes = new Int32Array(hashes.length * 2);
    this.strings = new Array<string | undefined>(hashes.length * 2).fill(undefined);
    const mask = this.hashes.length - 1;
    for (let i = 0; i < hashes.length; i++) {
      if (hashes[i] === 0) continue;
      let slot = hashes[i]! & mask;
      while (this.hashes[slot] !== 0) slot = (slot + 1) & mask;
      this.hashes[slot] = hashes[i]!;
      this.strings[slot] = strings[i];
    }
  }
}

function sameChars(s: string, buf: Buffer, start: number, end: number): boolean {
  if (s.length !== end - start) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== buf[start + i]) return false;
  return true;
}

/** A row of `staysSelect('micros')` read as an array. */
export function stayOfTuple(r: unknown[], ids: Interner): GraphStay {
  return {
    id: r[0] as number,
    animal: ids.of(r[1] as string),
    unit: ids.of(r[2] as string),
    establishment: ids.of(r[3] as string),
    from: r[4] as number,
    to: (r[5] as number | null) ?? null,
    vehicle: r[6] === null ? null : ids.of(r[6] as string),
  };
}

/**
 * The stays as the in-memory walk reads them (GraphStay), the rows `tail` selects (a where clause,
 * an order, a limit: the caller's placeholders). The vehicle is Migration0067's VEHICLE: the travel of the egress that
 * closed the stay (its embark not released), or the egress itself; none unless the egress is
 * FINISHED or RECEIVED. Times in epoch microseconds (`extract` is exact: numeric).
 */
export const graphStaysSql = (tail: string): string => `
  select s.id::float8 as id, s.animal_id as animal, s.control_unit_id as unit, s.establishment_id as establishment,
         (extract(epoch from s.ts_from) * 1000000)::float8 as "from", (extract(epoch from s.ts_to) * 1000000)::float8 as "to", v.vehicle
    from animal_stay s
    left join lateral (select coalesce(te.travel_id, e.id) as vehicle from animals_egress e
                         left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
                        where e.id = s.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED')) v on true
   ${tail}`;

/** A row of graphStaysSql as it comes from a driver (numbers possibly as strings). */
export interface GraphStayRow {
  id: number | string;
  animal: string;
  unit: string;
  establishment: string;
  from: number | string;
  to: number | string | null;
  vehicle: string | null;
}

export const graphStay = (r: GraphStayRow): GraphStay => ({
  id: Number(r.id),
  animal: r.animal,
  unit: r.unit,
  establishment: r.establishment,
  from: Number(r.from),
  to: r.to === null ? null : Number(r.to),
  vehicle: r.vehicle,
});

/** Every stay after id `after`, page by page (keyset on the id), through a query function with pg's `$n` placeholders. */
export async function* readGraphStays(query: (sql: string, params: unknown[]) => Promise<GraphStayRow[]>, after = 0, page = 50_000): AsyncGenerator<GraphStay[]> {
  let last = after;
  const sql = graphStaysSql('where s.id > $1 order by s.id limit $2');
  for (;;) {
    const rows = await query(sql, [last, page]);
    if (rows.length === 0) return;
    yield rows.map(graphStay);
    last = Number(rows[rows.length - 1]!.id);
  }
}
