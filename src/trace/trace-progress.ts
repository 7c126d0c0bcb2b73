import type { EntityManager } from '@mikro-orm/postgresql';
import { Listener } from '../db/listener.js';
import type { Actor } from '../identity/actor.js';
import { endLapsedSubscriptions } from '../identity/session-lapse.js';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { pushIterator } from '../shared/push-iterator.js';

/** A trace's phases (docs/decisions/events-out.md, "A trace's progress"): the walk is one statement, so these are its steps, not rounds. */
export type TracePhase = 'STARTED' | 'WALKED' | 'REUSED' | 'ANSWERED' | 'FAILED';

/** One phase of one trace, as it travels (NOTIFY payload) and as a subscriber gets it. */
export interface TraceProgressEvent {
  run_id: string;
  /** Whose trace it is: only subscriptions of this session receive it (never sent to the client). */
  user_id: string;
  session_id: string;
  str_phase: TracePhase;
  str_seed_kind: 'ESTABLISHMENT' | 'CONTROL_UNIT' | 'ANIMAL';
  seed_id: string;
  str_direction: string;
  ts_from: string;
  ts_to: string;
  int_max_hops: number | null;
  /** WALKED and REUSED: the establishments and traced animals of the answer the caller sees. */
  int_establishments: number | null;
  int_animals: number | null;
  /** ANSWERED: the answer's int_total_results. */
  int_total_results: number | null;
  /** FAILED: the error's code (UNPROCESSABLE, INTERNAL, …). */
  str_error_code: string | null;
  ts_started_at: string;
  ts_at: string;
}

export type TraceQuestionOf = Pick<TraceProgressEvent, 'str_seed_kind' | 'seed_id' | 'str_direction' | 'ts_from' | 'ts_to' | 'int_max_hops'>;

/** The channel the phases are NOTIFYed on (PostgreSQL); payloads stay far below NOTIFY's 8,000 bytes (about 600). */
export const TRACE_CHANNEL = 'trace_progress';

/** Why a progress subscription ended from the server's side (the live doors' close codes). */
export type TraceProgressEnd = 'SESSION_REVOKED' | 'TOKEN_EXPIRED' | 'TOO_SLOW' | 'SHUTDOWN';

interface Subscriber {
  actor: Actor;
  push(e: TraceProgressEvent): void;
  end(reason: TraceProgressEnd): void;
}

/** One trace's phases, published in order (each after the previous one was sent), never holding the trace up. */
export interface TraceProgressRun {
  walked(establishments: number, animals: number, reused: boolean): void;
  answered(total: number): void;
  failed(e: unknown): void;
}

const MAX_QUEUED = 1000;

/**
 * A trace's progress for the `traceProgress` subscription. Each phase is published outside any
 * transaction: on PostgreSQL a `pg_notify` on the shared pool (autocommit: delivered at once, to
 * every instance), heard by one LISTENing connection per instance while it has subscribers; on
 * PGlite (one process) handed to the subscribers in process. A subscriber receives the phases of
 * the traces its own session runs.
 */
export class TraceProgress {
  private readonly subscribers = new Set<Subscriber>();
  private notify: ((payload: string) => Promise<unknown>) | null = null;
  private listener: Listener | null = null;
  private sessionTimer: NodeJS.Timeout | null = null;
  private fork: (() => EntityManager) | null = null;
  private closed = false;

  constructor(private readonly log: Logger) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** PostgreSQL: whether this instance's connection is LISTENing now (phases of every instance reach its subscribers). */
  get listeningNow(): boolean {
    return this.listener?.up ?? false;
  }

  /** PostgreSQL: publish through `notify` (the pool) and listen on `databaseUrl` (a connection of its own). Without it: in process. */
  usePostgres(databaseUrl: string, notify: (payload: string) => Promise<unknown>): void {
    this.notify = notify;
    // Opened with the first subscriber and kept; opened again after a loss while anyone subscribes.
    this.listener = new Listener({
      databaseUrl,
      channel: TRACE_CHANNEL,
      name: 'livestock-trace-progress',
      heartbeatMs: 5000,
      heartbeatTimeoutMs: 2000,
      retryMs: [1000],
      heard: (payload) => {
        if (!payload) return;
        try {
          this.deliver(JSON.parse(payload) as TraceProgressEvent);
        } catch (err) {
          this.log.warn({ err }, 'trace progress: an unreadable notification');
        }
      },
      down: (err) => this.log.warn({ err }, 'trace progress: the listening connection was lost; phases published meanwhile are not heard'),
      again: () => this.subscribers.size > 0 && !this.closed,
    });
  }

  /** Subscriptions of a revoked session or an expired token end within `everyMs`. */
  checkSessions(fork: () => EntityManager, everyMs: number): void {
    this.fork = fork;
    this.sessionTimer = setInterval(() => void this.endRevoked(), everyMs);
    this.sessionTimer.unref();
  }

  /** A trace of `actor` begins (its question checked): STARTED now, the later phases through the returned run. */
  start(actor: Actor, question: TraceQuestionOf): TraceProgressRun {
    const started = new Date().toISOString();
    const base = { run_id: newId(), user_id: actor.userId, session_id: actor.sessionId, ...question, ts_started_at: started, int_establishments: null, int_animals: null, int_total_results: null, str_error_code: null };
    let chain: Promise<unknown> = Promise.resolve();
    const send = (phase: TracePhase, more: Partial<TraceProgressEvent> = {}) => {
      const event: TraceProgressEvent = { ...base, str_phase: phase, ...more, ts_at: new Date().toISOString() };
      chain = chain.then(() => this.publish(event)).catch((err: unknown) => this.log.warn({ err, run: base.run_id }, 'trace progress: a phase was not published'));
    };
    send('STARTED');
    return {
      walked: (establishments, animals, reused) => send(reused ? 'REUSED' : 'WALKED', { int_establishments: establishments, int_animals: animals }),
      answered: (total) => send('ANSWERED', { int_total_results: total }),
      failed: (e) => send('FAILED', { str_error_code: e instanceof DomainError ? e.code : 'INTERNAL' }),
    };
  }

  private async publish(e: TraceProgressEvent): Promise<void> {
    if (this.notify) await this.notify(JSON.stringify(e));
    else this.deliver(e);
  }

  private deliver(e: TraceProgressEvent): void {
    for (const s of this.subscribers) if (s.actor.sessionId === e.session_id && s.actor.userId === e.user_id) s.push(e);
  }

  /** The phases of the traces `actor`'s session runs from now on; returning the iterator unsubscribes. */
  async subscribe(actor: Actor, onEnd: (reason: TraceProgressEnd) => void = () => undefined): Promise<AsyncIterableIterator<TraceProgressEvent>> {
    const events = pushIterator<TraceProgressEvent>(MAX_QUEUED, {
      overflow: () => sub.end('TOO_SLOW'),
      finished: () => this.subscribers.delete(sub),
      closed: () => this.closed,
    });
    const sub: Subscriber = {
      actor,
      push: events.push,
      end: (reason) => {
        if (events.end()) onEnd(reason);
      },
    };
    this.subscribers.add(sub);
    // Listening before the subscription answers: a trace run after it is heard.
    if (this.listener) await this.listener.open().catch((err: unknown) => this.log.warn({ err }, 'trace progress: not listening yet; retrying'));
    return events.iterator;
  }

  private async endRevoked(): Promise<void> {
    if (!this.subscribers.size || !this.fork) return;
    try {
      await endLapsedSubscriptions(this.fork(), this.subscribers);
    } catch (err) {
      if (!this.closed) this.log.warn({ err }, 'trace progress: the sessions check failed');
    }
  }

  /** Ends every subscription and the listening connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sessionTimer) clearInterval(this.sessionTimer);
    const listener = this.listener?.close();
    for (const s of [...this.subscribers]) s.end('SHUTDOWN');
    await listener;
  }
}
