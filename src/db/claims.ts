import pg from 'pg';
import type { Config } from '../config.js';
import type { ConnectClaim } from '../shared/idempotency.js';

/**
 * PostgreSQL connections for Idempotency-Key claims (src/shared/idempotency.ts), each holding one
 * claim's transaction while its request runs. A pool apart from the ORM's: a claim waits for a
 * connection of its own without ever holding one a request's work needs, so keyed requests under
 * load queue here instead of starving each other.
 */
export function claimConnections(config: Config): { connect: ConnectClaim; close(): Promise<void> } | null {
  if (!config.DATABASE_URL) return null;
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: config.DB_POOL_MAX });
  // An idle connection's error (the server restarted) must not end the process; the next claim reconnects.
  pool.on('error', () => undefined);
  return { connect: () => pool.connect(), close: () => pool.end() };
}
