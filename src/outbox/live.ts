import { DomainError } from '../shared/errors.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { endLapsedSubscriptions } from '../identity/session-lapse.js';
import type { Logger } from '../shared/logger.js';
import { pushIterator } from '../shared/push-iterator.js';
import { horizonNow, readWindow, type RelayedEvent } from './relay.js';
import { actorNow, OUTGOING, visibleIds } from './visibility.js';

/** What a subscription follows: record types, records (an event listing one matches too) and event types; an empty list means all. */
export interface LiveFilter {
  recordTypes: string[];
  recordIds: string[];
  eventTypes: string[];
}

/** Why a subscription ended from the server's side. */
export type LiveEnd = 'SESSION_REVOKED' | 'TOKEN_EXPIRED' | 'USER_GONE' | 'TOO_SLOW' | 'SHUTDOWN';

export interface LiveOptions {
  pollMs: number;
  /** How often the subscribers' sessions are checked for revocation and expiry. */
  sessionCheckMs: number;
}

interface Subscriber {
  actor: Actor;
  filter: LiveFilter;
  push(e: RelayedEvent): void;
  end(reason: LiveEnd): void;
}

/** Events a subscriber may hold unread before it is dropped (a client that stopped reading). */
const MAX_QUEUED = 10_000;

function follows(filter: LiveFilter, e: RelayedEvent): boolean {
  if (!OUTGOING[e.str_record_type]) return false;
  if (filter.eventTypes.length && !filter.eventTypes.includes(e.str_type)) return false;
  if (filter.recordTypes.length && !filter.recordTypes.includes(e.str_record_type)) return false;
  if (!filter.recordIds.length) return true;
  return filter.recordIds.includes(e.record_id) || e.listed.some((l) => filter.recordIds.includes(l.id));
}

/**
 * The GraphQL subscriptions' consumer of the committed log, one per instance: while anyone
 * subscribes it reads the log's windows from a position it keeps in memory (taken at the horizon
 * when the first subscriber came: a subscriber gets what commits after it subscribed), so nothing
 * of a rolled-back write is ever seen. Each event reaches a subscriber only when the subscriber's
 * actor, as it is now, may read the event's record through the same SQL scope as `GET`; a revoked
 * session, an expired token or a deleted user ends the subscription.
 */
export class LiveHub {
  private readonly subscribers = new Set<Subscriber>();
  private running: Promise<void> | null = null;
  private position: string | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly fork: () => EntityManager,
    private readonly options: LiveOptions,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** Whether the hub reads the log (a subscriber subscribed now is sent what commits from here on). */
  get reading(): boolean {
    return this.position !== null;
  }

  /** Follows the log for `actor`; `onEnd` hears why the server ended it. Returning the iterator unsubscribes. */
  async subscribe(actor: Actor, filter: LiveFilter, onEnd: (reason: LiveEnd) => void = () => undefined): Promise<AsyncIterableIterator<RelayedEvent>> {
    const events = pushIterator<RelayedEvent>(MAX_QUEUED, {
      overflow: () => sub.end('TOO_SLOW'),
      finished: () => this.subscribers.delete(sub),
      closed: () => this.stopped,
    });
    const sub: Subscriber = {
      actor,
      filter,
      push: events.push,
      end: (reason) => {
        if (events.end()) onEnd(reason);
      },
    };
    this.subscribers.add(sub);
    await this.start();
    return events.iterator;
  }

  /** A subscription to `filter`; naming a record the actor cannot read answers NOT_FOUND, as its GET does. */
  async follow(em: EntityManager, actor: Actor, filter: LiveFilter, record?: { type: string; id: string }, onEnd?: (reason: LiveEnd) => void): Promise<AsyncIterableIterator<RelayedEvent>> {
    if (record && !(await visibleIds(em, actor, record.type, [record.id])).has(record.id)) throw new DomainError('NOT_FOUND', `no ${record.type} ${record.id}`);
    return this.subscribe(actor, filter, onEnd);
  }

  /** Ends every subscription and the reading. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of [...this.subscribers]) s.end('SHUTDOWN');
    this.wake?.();
    await this.running;
  }

  private async start(): Promise<void> {
    if (!this.running) {
      let ready!: () => void;
      const started = new Promise<void>((resolve) => (ready = resolve));
      this.running = this.run(ready).catch((e: unknown) => {
        this.running = null;
        this.position = null;
        this.log.error({ err: e }, 'live events: could not start reading the log');
      });
      await started;
    }
    // A subscriber that came while the reading was starting waits for its position too.
    while ((this.running as Promise<void> | null) && this.position === null && !this.stopped) await new Promise((r) => setTimeout(r, 5));
  }

  private async run(ready: () => void): Promise<void> {
    let checked = Date.now();
    try {
      this.position = await horizonNow(this.fork());
    } finally {
      ready();
    }
    for (;;) {
      // Checked and left in one tick: a subscriber that comes after this starts a new reading.
      if (!this.subscribers.size || this.stopped) {
        this.running = null;
        this.position = null;
        return;
      }
      let work = 0;
      try {
        const { end, events } = await this.fork().transactional((tx) => readWindow(tx, this.position!));
        this.position = end;
        if (events.length) await this.dispatch(events);
        work = events.length;
        if (Date.now() - checked >= this.options.sessionCheckMs) {
          checked = Date.now();
          await this.checkSessions();
        }
      } catch (e) {
        if (!this.stopped) this.log.error({ err: e }, 'live events: a round failed; retrying');
      }
      if (!work && !this.stopped) await new Promise<void>((resolve) => ((this.wake = resolve), setTimeout(resolve, this.options.pollMs)));
    }
  }

  /** Each subscriber gets the window's events it follows and its actor may read now; subscribers of one actor share the statements. */
  private async dispatch(events: RelayedEvent[]): Promise<void> {
    const em = this.fork();
    const groups = new Map<string, Subscriber[]>();
    for (const s of this.subscribers) {
      const key = `${s.actor.userId} ${s.actor.organizationId ?? ''} ${s.actor.sessionId}`;
      groups.set(key, [...(groups.get(key) ?? []), s]);
    }
    for (const group of groups.values()) {
      const followed = events.filter((e) => group.some((s) => follows(s.filter, e)));
      if (!followed.length) continue;
      const first = group[0]!.actor;
      // Its role now (a member removed since it subscribed reads as one): the same actor a request would be.
      const actor = await actorNow(em, first.userId, first.organizationId, first.sessionId);
      if (!actor) {
        for (const s of group) s.end('USER_GONE');
        continue;
      }
      const visible = new Map<string, Set<string>>();
      for (const type of new Set(followed.map((e) => e.str_record_type))) {
        visible.set(type, await visibleIds(em, actor, type, [...new Set(followed.filter((e) => e.str_record_type === type).map((e) => e.record_id))]));
      }
      for (const e of followed) {
        if (!visible.get(e.str_record_type)!.has(e.record_id)) continue;
        for (const s of group) if (follows(s.filter, e)) s.push(e);
      }
    }
  }

  /** Ends the subscriptions of revoked sessions (logout, password change, token revoked) and of expired tokens. */
  private checkSessions(): Promise<void> {
    return endLapsedSubscriptions(this.fork(), this.subscribers);
  }
}
