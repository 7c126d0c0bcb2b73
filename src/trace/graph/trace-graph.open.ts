import type { Config } from '../../config.js';
import { pgliteOf, sharedPool, type Orm } from '../../db/orm.js';
import { pgGraphSource, pgliteGraphSource, type GraphSource } from './trace-graph.source.js';

/** The graph's source on the service's own database: PostgreSQL's pool, or the embedded PGlite. */
export async function openGraphSource(orm: Orm, config: Config): Promise<GraphSource> {
  const pool = await sharedPool(orm, config);
  if (pool) return pgGraphSource(pool);
  const pglite = await pgliteOf(orm, config);
  if (!pglite) throw new Error('no database for the trace graph');
  return pgliteGraphSource(pglite);
}
