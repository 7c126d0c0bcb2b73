import { TraceGraph } from '../graph/trace-graph.js';
import type { GraphSource } from '../graph/trace-graph.source.js';
import { StaleGraph, TraceGraphStore } from '../graph/trace-graph.store.js';

/** Where the graph is: loading (the first load, or a retry after a failed one), current, stale (reloading), failed (waiting to retry). */
export type GraphState = 'loading' | 'current' | 'stale' | 'failed';

/** What the engine tells the service of its graph (`/metrics`, `/health`). */
export interface GraphStatus {
  state: GraphState;
  stays: number;
  /** The records', indexes' and uuid tables' bytes. */
  bytes: number;
  /** When the graph in use was loaded (epoch ms; null before the first). */
  loadedAt: number | null;
  /** The last successful load's seconds. */
  lastLoadSeconds: number | null;
  loads: number;
  loadFailures: number;
  /** Refreshes that found the change rows gone (each a reload). */
  staleReloads: number;
  refreshes: number;
  /** Comparisons of the graph with the database (its fingerprint), and those that differed (each a reload). */
  checks: number;
  mismatches: number;
  lastError: string | null;
}

export interface GraphEngineOptions {
  retention?: string;
  purgeEveryMs?: number;
  /** Retry backoff after a failed load: the first wait, doubled up to `retryMaxMs`. */
  retryFirstMs?: number;
  retryMaxMs?: number;
  chunk?: number;
  /** How often the graph is compared with the database (ms; 0: never). */
  checkEveryMs?: number;
}

/**
 * The trace's graph as an engine (ARCHITECTURE.md, "Derived engines"): loaded in the background and
 * again, with backoff, after a failure or when its change rows were purged; never waited on (a
 * question while it is not current gets null, and is walked in SQL); refreshed to the committed data
 * before each walk when it is current.
 */
export class GraphEngine {
  private readonly store: TraceGraphStore<TraceGraph>;
  private loop: Promise<void> | undefined;
  private closed = false;
  private wake: (() => void) | undefined;
  private firstLoadEnded: Promise<void>;
  private firstEnded!: () => void;
  readonly status: GraphStatus = { state: 'loading', stays: 0, bytes: 0, loadedAt: null, lastLoadSeconds: null, loads: 0, loadFailures: 0, staleReloads: 0, refreshes: 0, checks: 0, mismatches: 0, lastError: null };
  private checkTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: GraphSource,
    private readonly options: GraphEngineOptions = {},
    /** Told each time the status changes. */
    private readonly changed: (status: GraphStatus) => void = () => undefined,
  ) {
    this.store = new TraceGraphStore(source, () => new TraceGraph(), { retention: options.retention, purgeEveryMs: options.purgeEveryMs, chunk: options.chunk, reloadWhenStale: false });
    this.firstLoadEnded = new Promise((resolve) => (this.firstEnded = resolve));
  }

  /** Starts the load loop (once at a time). */
  start(): void {
    this.loop ??= this.loadUntilDone().finally(() => (this.loop = undefined));
  }

  /** Settles once the first load has ended (loaded or failed once). */
  firstLoad(): Promise<void> {
    return this.firstLoadEnded;
  }

  /** The graph refreshed to every change committed before the call, or null when it is not current (the caller walks in SQL). */
  async current(): Promise<TraceGraph | null> {
    if (this.status.state !== 'current') return null;
    try {
      const graph = await this.store.current();
      graph.ensureBuilt();
      this.status.refreshes++;
      this.measure(graph);
      this.changed(this.status);
      return graph;
    } catch (err) {
      if (err instanceof StaleGraph) this.status.staleReloads++;
      this.status.state = err instanceof StaleGraph ? 'stale' : 'failed';
      this.status.lastError = (err as Error).message;
      this.changed(this.status);
      this.start();
      return null;
    }
  }

  /**
   * Compares the graph with the database (docs/decisions/trace.md, "Never wrong"): unless equal, it
   * is stale and reloads in the background. Null when it is not current (nothing to compare).
   */
  async verify(): Promise<'equal' | 'mismatch' | 'stale' | null> {
    if (this.status.state !== 'current') return null;
    const before = this.store.stats.mismatches;
    try {
      const verdict = await this.store.verify();
      this.status.checks++;
      this.changed(this.status);
      return verdict;
    } catch (err) {
      this.status.checks++;
      const mismatch = this.store.stats.mismatches > before;
      if (mismatch) this.status.mismatches++;
      else if (err instanceof StaleGraph) this.status.staleReloads++;
      this.status.state = err instanceof StaleGraph ? 'stale' : 'failed';
      this.status.lastError = mismatch ? 'the graph differed from the database' : (err as Error).message;
      this.changed(this.status);
      this.start();
      return mismatch ? 'mismatch' : 'stale';
    }
  }

  /** Starts the periodic comparison (`checkEveryMs`). */
  checkPeriodically(): void {
    const every = this.options.checkEveryMs ?? 0;
    if (every <= 0 || this.checkTimer) return;
    const tick = () => {
      this.checkTimer = setTimeout(() => void this.verify().finally(() => !this.closed && tick()), every);
      this.checkTimer.unref?.();
    };
    tick();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.checkTimer);
    this.wake?.();
  }

  private async loadUntilDone(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      const started = performance.now();
      try {
        if (this.source.loadable && !(await this.source.loadable())) {
          // Not a failure: a load now would be stale at once. Tried again after the wait.
          this.status.lastError = 'waiting for transactions older than the change cutoff to end';
          this.changed(this.status);
          await this.pause(attempt);
          continue;
        }
        // The store's first load is kept by it (a failed one is forgotten, so this tries it again); later ones are reloads.
        if (this.status.loads === 0) await this.store.load();
        else await this.store.reload();
        const graph = await this.store.current();
        graph.ensureBuilt();
        this.status.loads++;
        this.status.lastLoadSeconds = (performance.now() - started) / 1000;
        this.status.loadedAt = Date.now();
        this.status.state = 'current';
        this.status.lastError = null;
        this.measure(graph);
        this.changed(this.status);
        this.firstEnded();
        return;
      } catch (err) {
        this.status.loadFailures++;
        this.status.state = 'failed';
        this.status.lastError = (err as Error).message;
        this.changed(this.status);
        this.firstEnded();
        await this.pause(attempt);
      }
    }
  }

  /** The wait before the next try: doubled each time, up to retryMaxMs; ended early by `close`. */
  private pause(attempt: number): Promise<void> {
    const wait = Math.min((this.options.retryFirstMs ?? 1000) * 2 ** attempt, this.options.retryMaxMs ?? 60_000);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private measure(graph: TraceGraph): void {
    this.status.stays = graph.stays;
    this.status.bytes = graph.bytes + graph.uuidBytes;
  }
}
