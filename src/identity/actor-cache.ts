/**
 * The actors this process authenticated, so that a request whose session it has seen runs no
 * statement to authenticate (issue 23: one round trip of a point read's two). What is kept is
 * what the session statement read (the user's flags and the role in the token's organization);
 * the token itself is still verified on every request (signature, audience, expiry).
 *
 * Correct only while this process hears every change: Migration0048ActorChanges's triggers say
 * on the channel `actor_changed` whose actor changed (a user id, or `*` for all), and the
 * listener (src/identity/actor-listener.ts) forgets them here. While the listener is not
 * connected the cache is off (nothing kept, nothing served); when it connects again it starts
 * empty. A read that began before a change cannot store what it read after that change was
 * heard: every change moves `epoch`, and `store` takes the epoch its read began at.
 */
import { localWrites } from '../db/local-writes.js';

export const ACTOR_CHANNEL = 'actor_changed';

export interface ActorRow {
  bl_admin: boolean;
  str_type: string;
  county_id: string | null;
  str_county_federative_unit?: string | null;
  str_role: string | null;
  ts_revoked_at: Date | null;
  bl_terms_pending?: boolean;
  /** Whether the user may hold a grant (an accepted invite, a sharing naming it or the organization): Actor.mayBeGranted. */
  bl_may_be_granted?: boolean;
}

interface Entry {
  userId: string;
  row: ActorRow;
  at: number;
}

export class ActorCache {
  private readonly entries = new Map<string, Entry>();
  private epoch = 0;
  private live = false;

  constructor(
    /** Past it the oldest entries go (a Map keeps insertion order). */
    private readonly max = 20_000,
    /** A bound on what a missed change could cost even so (the listener's heartbeat is the first guard). */
    private readonly ttlMs = 5 * 60_000,
  ) {}

  /** The listener's round trip (PostgreSQL): once it is back, every change committed before it was heard. None on PGlite, which hears its own at commit. */
  private roundTrip: (() => Promise<void>) | null = null;
  /** localWrites.seq that every heard change covers. */
  private synced = 0;
  private inflight: Promise<boolean> | null = null;

  listenedBy(roundTrip: (() => Promise<void>) | null): void {
    this.roundTrip = roundTrip;
  }

  /**
   * What the cache keeps for `key`, once it has heard every change this process committed before
   * the call (a round trip on the listener's connection after a write of this process, shared by
   * the requests waiting for it; none while no write happened).
   */
  async lookup(key: string): Promise<ActorRow | undefined> {
    if (!this.live) return undefined;
    if (this.roundTrip && this.synced < localWrites.seq && !(await this.catchUp(localWrites.seq))) return undefined;
    return this.get(key);
  }

  private async catchUp(wanted: number): Promise<boolean> {
    while (this.live && this.synced < wanted) {
      if (!this.inflight) {
        const target = localWrites.seq;
        const roundTrip = this.roundTrip!;
        this.inflight = roundTrip()
          .then(() => {
            this.synced = Math.max(this.synced, target);
            return true;
          })
          .catch(() => false)
          .finally(() => {
            this.inflight = null;
          });
      }
      if (!(await this.inflight)) return false;
    }
    return this.live;
  }

  get enabled(): boolean {
    return this.live;
  }

  get size(): number {
    return this.entries.size;
  }

  static key(userId: string, sessionId: string, organizationId: string | null | undefined): string {
    return `${userId} ${sessionId} ${organizationId ?? ''}`;
  }

  /** Where a read begins: the value to hand `store` with what it read. */
  mark(): number {
    return this.epoch;
  }

  get(key: string): ActorRow | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.row;
  }

  /** Keeps what a read found, unless anything changed since `mark` (or the cache is off). */
  store(key: string, userId: string, row: ActorRow, mark: number): void {
    if (!this.live || mark !== this.epoch || row.ts_revoked_at) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { userId, row, at: Date.now() });
  }

  /** A change heard on the channel: the user's id, or `*` for everyone. */
  changed(payload: string): void {
    this.epoch++;
    if (payload === '*') return this.entries.clear();
    for (const [key, entry] of this.entries) if (entry.userId === payload) this.entries.delete(key);
  }

  /** The listener connected (on) or lost its connection (off): either way nothing kept is trusted. */
  setLive(live: boolean): void {
    this.epoch++;
    this.entries.clear();
    this.live = live;
  }
}
