import type { PGlite } from '@electric-sql/pglite';
import { Listener } from '../db/listener.js';
import type { Logger } from '../shared/logger.js';
import { ACTOR_CHANNEL, type ActorCache } from './actor-cache.js';

export interface ActorListener {
  close(): Promise<void>;
}

/** The listening connection's application_name, followed by the process id (a test finds and ends it by that name). */
export const LISTENER_NAME = 'livestock-actor-cache';

/**
 * PostgreSQL: a connection of its own (src/db/listener.ts) LISTENing on `actor_changed`. The cache
 * is on only while it is connected and listening: an error, an end or a heartbeat that does not
 * come back (within 2 s of asking, every second) turns it off and empties it, and a new connection
 * is tried at once, then after growing pauses. Notifications of changes made while it was away
 * are lost, which is why the cache starts empty when it is back.
 */
export function listenOnPostgres(databaseUrl: string, cache: ActorCache, log: Logger): ActorListener {
  const listener = new Listener({
    databaseUrl,
    channel: ACTOR_CHANNEL,
    name: LISTENER_NAME,
    heartbeatMs: 1000,
    heartbeatTimeoutMs: 2000,
    retryMs: [100, 500, 1000, 2000, 5000],
    heard: (payload) => cache.changed(payload ?? '*'),
    up: (roundTrip) => {
      cache.listenedBy(roundTrip);
      cache.setLive(true);
    },
    down: (err) => {
      if (cache.enabled) log.warn({ err }, 'actor cache off: its change listener lost the database');
      cache.setLive(false);
    },
  });
  void listener.open().catch(() => undefined);
  return {
    async close() {
      cache.setLive(false);
      await listener.close();
    },
  };
}

/** PGlite is one process and one session: its notifications come back to it after each statement. */
export async function listenOnPglite(pglite: PGlite, cache: ActorCache): Promise<ActorListener> {
  const unlisten = await pglite.listen(ACTOR_CHANNEL, (payload) => cache.changed(payload || '*'));
  cache.setLive(true);
  return {
    async close() {
      cache.setLive(false);
      await unlisten().catch(() => undefined);
    },
  };
}
