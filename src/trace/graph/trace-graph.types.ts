/**
 * The trace's stays as the in-memory walk reads them (docs/decisions/trace.md, "The walk in
 * memory"): one row per `animal_stay`, times in epoch microseconds (timestamptz's resolution; a
 * JavaScript Date has milliseconds only), with the vehicle the stay was left on already resolved
 * (Migration0067's VEHICLE: the travel of the egress that closed it, its embark not released, or
 * the egress itself; none unless the egress is FINISHED or RECEIVED).
 */
export interface GraphStay {
  /** `animal_stay.id` (a bigint from a sequence; below 2^53). */
  id: number;
  animal: string;
  unit: string;
  establishment: string;
  /** `ts_from`, epoch microseconds. */
  from: number;
  /** `ts_to`, epoch microseconds; null while the animal is still there. */
  to: number | null;
  /** The vehicle (a travel's or an egress's id) the animal rode after this stay; null when none. */
  vehicle: string | null;
  /** The egress that closed the stay, whatever its state (`animal_stay.animals_egress_id`): its GTA is the leg's. */
  egress: string | null;
}

/** The id fields of a stay in a `StayChunk`, in their order there. */
export const CHUNK_IDS = ['animal', 'unit', 'establishment', 'vehicle', 'egress'] as const;

/**
 * Stays as the binary COPY gives them, columnar, with no string per id (an id is its 16 bytes, made
 * into the graph's ints without ever being text): the national herd's hundreds of millions of ids
 * as strings would not fit V8's heap.
 */
export interface StayChunk {
  length: number;
  id: Float64Array;
  from: Float64Array;
  /** NaN: still there. */
  to: Float64Array;
  /** Each stay's ids (CHUNK_IDS), 16 bytes each: 80 bytes a stay. */
  uuids: Uint8Array;
  /** 1 where a stay's id field (CHUNK_IDS) is null: 5 a stay. */
  nulls: Uint8Array;
}

/** A load's chunk: a chunk of the binary COPY, or rows (PGlite's, a refresh's). */
export type StayRows = Iterable<GraphStay> | StayChunk;

export const isStayChunk = (rows: StayRows): rows is StayChunk => (rows as StayChunk).uuids instanceof Uint8Array;

/** A chunk's stays as rows (a sink that keeps rows: tests, benches). */
export function rowsOf(rows: StayRows): Iterable<GraphStay> {
  if (!isStayChunk(rows)) return rows;
  const out: GraphStay[] = [];
  const uuid = (k: number, f: number): string | null => {
    if (rows.nulls[5 * k + f]) return null;
    const at = 80 * k + 16 * f;
    const hex = Buffer.from(rows.uuids.buffer, rows.uuids.byteOffset + at, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  for (let k = 0; k < rows.length; k++) {
    out.push({ id: rows.id[k]!, animal: uuid(k, 0)!, unit: uuid(k, 1)!, establishment: uuid(k, 2)!, from: rows.from[k]!, to: Number.isNaN(rows.to[k]!) ? null : rows.to[k]!, vehicle: uuid(k, 3), egress: uuid(k, 4) });
  }
  return out;
}
