import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Logger } from '../shared/logger.js';
import { ACTOR_CHANNEL, type ActorCache } from './actor-cache.js';

export interface ActorListener {
  close(): Promise<void>;
}

/** How often the listening connection is asked whether it is still there, and how long it may take to say so. */
const HEARTBEAT_MS = 1000;
const HEARTBEAT_TIMEOUT_MS = 2000;
const RETRY_MS = [100, 500, 1000, 2000, 5000];

/** The listening connection's application_name, followed by the process id (a test finds and ends it by that name). */
export const LISTENER_NAME = 'livestock-actor-cache';

/**
 * PostgreSQL: one connection of its own (not the pool's, whose connections come and go) that
 * LISTENs on `actor_changed`. The cache is on only while it is connected and listening: an error,
 * an end or a heartbeat that does not come back turns it off and empties it, and a new connection
 * is tried at once, then after growing pauses. Notifications of changes made while it was away
 * are lost, which is why the cache starts empty when it is back.
 */
export function listenOnPostgres(databaseUrl: string, cache: ActorCache, log: Logger): ActorListener {
  let client: pg.Client | null = null;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | null = null;
  let heartbeat: NodeJS.Timeout | null = null;

  const drop = (why: unknown) => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
    const lost = client;
    client = null;
    if (cache.enabled) log.warn({ err: why }, 'actor cache off: its change listener lost the database');
    cache.setLive(false);
    lost?.end().catch(() => undefined);
    if (!closed && !retry) retry = setTimeout(connect, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]);
  };

  const connect = async () => {
    retry = null;
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl, application_name: `${LISTENER_NAME} ${process.pid}`, keepAlive: true });
    client = c;
    c.on('error', (err) => client === c && drop(err));
    c.on('end', () => client === c && drop(new Error('connection ended')));
    c.on('notification', (n) => {
      if (client === c && n.channel === ACTOR_CHANNEL) cache.changed(n.payload ?? '*');
    });
    try {
      await c.connect();
      await c.query(`listen ${ACTOR_CHANNEL}`);
    } catch (err) {
      if (client === c) drop(err);
      return;
    }
    if (client !== c || closed) return;
    attempt = 0;
    // Notifications signalled before this round trip's statement reach the client before its answer
    // (PostgreSQL delivers pending ones before ReadyForQuery).
    cache.listenedBy(async () => {
      if (client !== c) throw new Error('not listening');
      await c.query('select 1');
    });
    cache.setLive(true);
    let waiting = false;
    heartbeat = setInterval(() => {
      if (waiting) return;
      waiting = true;
      const timer = setTimeout(() => client === c && drop(new Error('heartbeat timed out')), HEARTBEAT_TIMEOUT_MS);
      c.query('select 1')
        .catch((err: unknown) => client === c && drop(err))
        .finally(() => {
          clearTimeout(timer);
          waiting = false;
        });
    }, HEARTBEAT_MS);
    heartbeat.unref();
  };

  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (heartbeat) clearInterval(heartbeat);
      cache.setLive(false);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
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
