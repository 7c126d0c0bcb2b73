import { sameFingerprint, type FingerprintPart } from './trace-graph.fingerprint.js';
import type { GraphSource, Horizon } from './trace-graph.source.js';
import type { GraphSink } from './trace-graph.store.js';

/** A graph that can be compared with the database: TraceGraph. */
export interface FingerprintedGraph extends GraphSink {
  fingerprint(parts: readonly Pick<FingerprintPart, 'name' | 'from'>[]): FingerprintPart[];
}

/**
 * `equal`: the graph holds exactly the stays the database holds; `mismatch`: it does not (a write
 * that reached no trigger: read it again whole); `stale`: the change rows since its horizon were
 * purged, so it could not be brought to the fingerprint's snapshot (read it again whole too).
 */
export type GraphVerdict = 'equal' | 'mismatch' | 'stale';

export interface GraphCheck {
  verdict: GraphVerdict;
  /** The snapshot the fingerprint was read under: the graph's horizon now, when `equal`. */
  horizon: Horizon;
  database: FingerprintPart[];
  graph: FingerprintPart[];
}

/**
 * The periodic check (docs/decisions/trace.md, "Never wrong"): reads the stays' fingerprint and the
 * changes since the graph's horizon `since` under one snapshot, brings the graph to that snapshot
 * (as a refresh would) and compares its fingerprint with the database's. The caller serialises it
 * with its refreshes (the graph changes here) and, unless `equal`, reads the graph again whole.
 */
export async function checkGraph(source: GraphSource, graph: FingerprintedGraph, since: Horizon): Promise<GraphCheck> {
  const read = await source.fingerprint(since);
  if (read.changes === 'stale' || read.changes === undefined) return { verdict: 'stale', horizon: read.horizon, database: read.parts, graph: [] };
  if (read.changes.animals.length) graph.replaceAnimals(read.changes.animals, read.changes.rows);
  const mine = graph.fingerprint(read.parts);
  return { verdict: sameFingerprint(read.parts, mine) ? 'equal' : 'mismatch', horizon: read.horizon, database: read.parts, graph: mine };
}
