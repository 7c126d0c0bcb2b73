import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound.js';
import type { Actor } from './actor.js';

/** A long-lived subscription of one actor (the log's live events, a trace's progress). */
export interface SessionBound {
  actor: Actor;
  end(reason: 'TOKEN_EXPIRED' | 'SESSION_REVOKED'): void;
}

/**
 * Ends the subscriptions whose token expired or whose session was revoked since they began (logout,
 * password change, refresh-token reuse): one statement for all their sessions.
 */
export async function endLapsedSubscriptions(em: EntityManager, subscribers: Iterable<SessionBound>): Promise<void> {
  const now = Date.now() / 1000;
  const live = [...subscribers];
  for (const s of live) if (s.actor.tokenExpiresAt && s.actor.tokenExpiresAt < now) s.end('TOKEN_EXPIRED');
  const sessions = [...new Set(live.map((s) => s.actor.sessionId))];
  if (!sessions.length) return;
  const revoked = await executeBound<{ id: string }>(em, 'select id from auth_session where id = any(?::uuid[]) and ts_revoked_at is not null', [sessions]);
  if (!revoked.length) return;
  const gone = new Set(revoked.map((r) => r.id));
  for (const s of live) if (gone.has(s.actor.sessionId)) s.end('SESSION_REVOKED');
}
