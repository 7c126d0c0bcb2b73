import type { Query } from '../../db/sql.js';
import type { DataVersion, TraceDirection, TraceQuestion, TracedEstablishmentRow } from '../trace.reader.js';
import type { GraphEngineOptions } from './graph-engine.js';

/** The engine's start (its workerData). */
export interface EngineOptions {
  /** postgres: the engine reads the stays on connections of its own; service: through the service's thread (PGlite). */
  database: { kind: 'postgres'; url: string; sessionOptions: string } | { kind: 'service' };
  /** The engine thread's nice value (0: the service's). */
  nice: number;
  graph: GraphEngineOptions;
}

/** One question for the graph (times in epoch microseconds but `from`/`to`, epoch ms as Dates carry them). */
export interface WalkJob {
  job: number;
  binaryParams: boolean;
  place: TraceQuestion['place'];
  from: number;
  to: number;
  direction: TraceDirection;
  maxHops: number | null;
  /** The database's clock, epoch microseconds: where an open stay ends. */
  now: number;
  /** The caller's visibility, one scope per argument set the answer asks (`ANSWER_SCOPES`, by `scopeKey`). */
  scopes: Record<string, Query>;
  perRowUpTo: number;
  version: DataVersion;
  id: string;
  key: string;
}

export interface WalkDone {
  id: string;
  total: number;
  establishments: TracedEstablishmentRow[];
  /** Walks run (BOTH: 2). */
  walks: number;
}

export interface PageJob {
  job: number;
  binaryParams: boolean;
  run: string;
  limit: number;
  offset: number;
}

export interface StoreJob {
  job: number;
  binaryParams: boolean;
  run: string;
}
