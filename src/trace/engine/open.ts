import type { Config } from '../../config.js';
import { pgliteOf, sessionOptions, sharedPool, type Orm } from '../../db/orm.js';
import type { Logger } from '../../shared/logger.js';
import { pgliteGraphSource } from '../graph/trace-graph.source.js';
import { TraceEngine } from './trace-engine.js';

/**
 * The trace's engine on the service's own database: on PostgreSQL it reads the stays on connections
 * of its own; on PGlite (one session, in this thread) through the service's thread, a chunk at a time.
 */
export async function openTraceEngine(orm: Orm, config: Config, log: Logger): Promise<TraceEngine> {
  const graph = { retention: config.TRACE_CHANGE_RETENTION, purgeEveryMs: config.TRACE_CHANGE_PURGE_EVERY_MS, checkEveryMs: config.TRACE_GRAPH_CHECK_EVERY_MS };
  const pool = await sharedPool(orm, config);
  if (pool) {
    const url = config.DATABASE_URL!;
    return new TraceEngine({ database: { kind: 'postgres', url, sessionOptions: sessionOptions(url, config.DB_WORK_MEM) }, nice: config.TRACE_ENGINE_NICE, graph }, log);
  }
  const pglite = await pgliteOf(orm, config);
  if (!pglite) throw new Error('no database for the trace engine');
  return new TraceEngine({ database: { kind: 'service' }, nice: config.TRACE_ENGINE_NICE, graph }, log, pgliteGraphSource(pglite));
}
