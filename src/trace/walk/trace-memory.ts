import type { Db } from '../../db/sql.js';
import { storeTraceAnswer, type ReachedNames, type ReachedRows } from '../answer/trace-answer.js';
import type { DataVersion, TraceQuestion, TraceRun } from '../trace.reader.js';

/** One direction's walk over the graph in memory, as `trace_runs` walks it (times in epoch microseconds). */
export interface MemoryWalkQuestion {
  place: TraceQuestion['place'];
  from: number;
  to: number;
  forward: boolean;
  maxHops: number | null;
  now: number;
  /** Whose egress is a row's leg (`ReachedRows.legEgress`): the stay's own (a BACKWARD question), else the last one before it in the path, both walks of BOTH alike. */
  legLeft: boolean;
}

/** The graph of every stay, refreshed to the data committed when `current` was called. */
export interface MemoryGraph extends ReachedNames {
  walk(q: MemoryWalkQuestion): ReachedRows;
}

/** The rows of several walks (BOTH: forward then backward) as one set. */
export function concatReached(parts: ReachedRows[]): ReachedRows {
  if (parts.length === 1) return parts[0]!;
  const length = parts.reduce((n, p) => n + p.length, 0);
  const join = <T extends Int32Array | Float64Array | Uint8Array>(pick: (p: ReachedRows) => T, make: (n: number) => T): T => {
    const out = make(length);
    let at = 0;
    for (const p of parts) {
      out.set(pick(p).subarray(0, p.length), at);
      at += p.length;
    }
    return out;
  };
  const ints = (n: number) => new Int32Array(n);
  const reals = (n: number) => new Float64Array(n);
  return {
    length,
    animal: join((p) => p.animal, ints),
    unit: join((p) => p.unit, ints),
    establishment: join((p) => p.establishment, ints),
    stay: join((p) => Float64Array.from(p.stay.subarray(0, p.length)), reals),
    exposure: join((p) => p.exposure, reals),
    hops: join((p) => p.hops, ints),
    viaAnimal: join((p) => p.viaAnimal, ints),
    viaUnit: join((p) => p.viaUnit, ints),
    viaTime: join((p) => p.viaTime, reals),
    seed: join((p) => p.seed, (n) => new Uint8Array(n)),
    legEgress: join((p) => p.legEgress, ints),
  };
}

/**
 * The trace walked in memory (docs/decisions/trace.md, "The walk in memory"): the same answer as
 * `traceRun` over `trace_runs`, stored the same way. `version`: the data version read before the
 * graph was refreshed; `now`: the database's clock (epoch microseconds), where an open stay ends, as in SQL.
 */
export async function traceRunInMemory(db: Db, graph: MemoryGraph, q: TraceQuestion, version: DataVersion, id: string, key: string, now: number): Promise<TraceRun> {
  const question = { place: q.place, from: q.from.getTime() * 1000, to: q.to.getTime() * 1000, maxHops: q.maxHops, now, legLeft: q.direction === 'BACKWARD' };
  const walks = q.direction === 'BOTH' ? [true, false] : [q.direction === 'FORWARD'];
  const reached = concatReached(walks.map((forward) => graph.walk({ ...question, forward })));
  return storeTraceAnswer(db, q, reached, graph, version, id, key);
}
