import type { ReachedRows } from '../answer/trace-answer.js';
import { F_ID, FLOATS, I_EGRESS, I_PREVIOUS, INTS, TraceGraph } from './trace-graph.js';
import type { MemoryGraph, MemoryWalkQuestion } from '../walk/trace-memory.js';
import { walkGraph } from '../walk/trace-walk.js';

/**
 * The graph as the answer reads it (docs/decisions/trace.md, "The walk in memory"): its names, and
 * one direction's walk. Valid until the graph's next change (the trace's engine refreshes it, then
 * walks and names the answer before it changes again).
 */
export function memoryGraphOf(graph: TraceGraph): MemoryGraph {
  return {
    animalId: (i) => graph.animalId(i),
    unitId: (i) => graph.unitId(i),
    establishmentId: (i) => graph.establishmentId(i),
    writeAnimalUuid: (i, out, at) => graph.writeAnimalUuid(i, out, at),
    writeUnitUuid: (i, out, at) => graph.writeUnitUuid(i, out, at),
    writeEstablishmentUuid: (i, out, at) => graph.writeEstablishmentUuid(i, out, at),
    egressId: (i) => graph.egressId(i),
    writeEgressUuid: (i, out, at) => graph.writeEgressUuid(i, out, at),
    compareAnimals: (a, b) => graph.compareAnimals(a, b),
    animalSortKey: (a) => graph.animalSortKey(a),
    // The rows carry stay ids, not indexes: a stay's index lasts only until the graph's next change,
    // which another request's refresh may make while this answer is stored.
    stayId: (id) => id,
    walk: (q) => walkOnce(graph, q),
  };
}

/** One direction's walk, its stays named by id at once (synchronously, while their indexes hold). */
function walkOnce(graph: TraceGraph, q: MemoryWalkQuestion): ReachedRows {
  const seeds = graph.seedStays(q.place, q.from, q.to, q.now);
  const rows = walkGraph(graph, { seeds, from: q.from, to: q.to, forward: q.forward, maxHops: q.maxHops, now: q.now });
  const stay = new Float64Array(rows.length);
  const legEgress = new Int32Array(rows.length);
  // The records read directly (a quarter of a million rows backward: method calls cost tens of ms here).
  const I = graph.stayInts;
  const F = graph.stayFloats;
  for (let i = 0; i < rows.length; i++) {
    const s = rows.stay[i]!;
    stay[i] = F[FLOATS * s + F_ID]!;
    if (q.legLeft) legEgress[i] = I[INTS * s + I_EGRESS]!;
    else {
      // the last egress before the stay in its path: a move between units without one (within a holding) kept the GTA it came under
      let b = I[INTS * s + I_PREVIOUS]!;
      while (b >= 0 && I[INTS * b + I_EGRESS]! < 0) b = I[INTS * b + I_PREVIOUS]!;
      legEgress[i] = b < 0 ? -1 : I[INTS * b + I_EGRESS]!;
    }
  }
  return { ...rows, stay, legEgress };
}
