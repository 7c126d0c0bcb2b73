import { checkGraph, type FingerprintedGraph, type GraphVerdict } from './trace-graph.check.js';
import type { GraphSource, Horizon } from './trace-graph.source.js';
import type { GraphStay, StayRows } from './trace-graph.types.js';

/** What the store feeds: the trace's in-memory graph (src/trace/graph/trace-graph.ts's TraceGraph implements it). */
export interface GraphSink {
  add(rows: StayRows): void;
  /** The animals' rows replaced by `rows` (an animal of `ids` absent from `rows` has no stay left). */
  replaceAnimals(ids: readonly string[], rows: readonly GraphStay[]): void;
}

export interface TraceGraphStoreOptions {
  /** Change rows older than this are purged (an interval; '1 hour'). */
  retention?: string;
  /** How often a refresh also purges (ms; 5 minutes; 0: never, leave it to `cli trace:changes-purge`). */
  purgeEveryMs?: number;
  /** Rows per chunk of the full load. */
  chunk?: number;
  /**
   * false: a refresh whose change rows were purged throws `StaleGraph` instead of reading the graph
   * again whole (the engine then walks in SQL while it reloads in the background: `reload`).
   */
  reloadWhenStale?: boolean;
}

/** The change rows the graph needs were purged (or the cutoff raised): only a full reload brings it current. */
export class StaleGraph extends Error {
  constructor() {
    super('the trace graph is stale: its change rows are gone');
    this.name = 'StaleGraph';
  }
}

/**
 * Keeps one graph of every stay exactly as committed as of each caller's request
 * (docs/decisions/trace.md, "The graph kept fresh"): `load()` reads every stay once, in the
 * background; `current()` then reads only the animals whose rows changed since the graph's horizon
 * (one small statement when none did) and returns the graph. Callers that arrive while a refresh
 * runs share the next one, never the running one: its snapshot may predate their request.
 * When the change rows it needs were purged, the graph is read again whole, into a new graph.
 */
export class TraceGraphStore<G extends GraphSink> {
  private graph: G | undefined;
  private horizon: Horizon | undefined;
  private loading: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private lastPurge = Date.now();
  /** Counts for operators and tests. */
  readonly stats = { loads: 0, refreshes: 0, unchanged: 0, animalsReread: 0, purged: 0, purgeFailures: 0, checks: 0, mismatches: 0 };
  private checkWanted = false;
  private lastVerdict: GraphVerdict = 'equal';

  constructor(
    private readonly source: GraphSource,
    private readonly newGraph: () => G,
    private readonly options: TraceGraphStoreOptions = {},
  ) {}

  /** Starts the full load (once; again after a failed one). */
  load(): Promise<void> {
    this.loading ??= this.fullLoad().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  /** The first full load done. */
  ready(): Promise<void> {
    return this.load();
  }

  /** The graph as of now: every change committed before this call is in it. */
  async current(): Promise<G> {
    await this.load();
    await this.nextRefresh();
    return this.graph!;
  }

  /**
   * Compares the graph with the database (checkGraph: the fingerprint and the changes read under one
   * snapshot), in turn with the refreshes (it is one: callers of `current()` meanwhile wait for it);
   * unless equal, the graph is read again whole. The verdict of the check this call shared.
   */
  async verify(this: TraceGraphStore<G & FingerprintedGraph>): Promise<GraphVerdict> {
    await this.load();
    this.checkWanted = true;
    await this.nextRefresh();
    return this.lastVerdict;
  }

  /** The horizon the graph was last read under (a pg_snapshot's text). */
  get readUnder(): Horizon | undefined {
    return this.horizon;
  }

  private async fullLoad(): Promise<void> {
    const graph = this.newGraph();
    const horizon = await this.source.load((rows) => graph.add(rows), this.options.chunk);
    this.graph = graph;
    this.horizon = horizon;
    this.stats.loads++;
  }

  private nextRefresh(): Promise<void> {
    if (this.queued) return this.queued;
    const before = this.running ?? Promise.resolve();
    const run: Promise<void> = before
      .catch(() => undefined)
      .then(async () => {
        // From here on, a new caller's request may be later than this refresh's snapshot.
        this.queued = undefined;
        this.running = run;
        try {
          await this.refresh();
        } finally {
          if (this.running === run) this.running = undefined;
        }
      });
    this.queued = run;
    return run;
  }

  private async refresh(): Promise<void> {
    if (this.checkWanted) return this.check();
    const since = this.horizon!;
    const checked = await this.source.check(since);
    if (checked === 'stale') return this.staleFound();
    if (checked !== 'changed') {
      this.horizon = checked.horizon;
      this.stats.unchanged++;
    } else {
      const changes = await this.source.changes(since);
      if (changes === 'stale') return this.staleFound();
      this.graph!.replaceAnimals(changes.animals, changes.rows);
      this.horizon = changes.horizon;
      this.stats.refreshes++;
      this.stats.animalsReread += changes.animals.length;
    }
    await this.purgeWhenDue();
  }

  private async check(): Promise<void> {
    this.checkWanted = false;
    const checked = await checkGraph(this.source, this.graph as unknown as FingerprintedGraph, this.horizon!);
    this.stats.checks++;
    this.lastVerdict = checked.verdict;
    if (checked.verdict !== 'equal') {
      if (checked.verdict === 'mismatch') this.stats.mismatches++;
      return this.staleFound();
    }
    this.horizon = checked.horizon;
    await this.purgeWhenDue();
  }

  /** Reads the graph again whole, into a new graph (the old one serves nobody meanwhile: the caller walks in SQL). */
  async reload(): Promise<void> {
    await this.fullLoad();
  }

  private staleFound(): Promise<void> {
    if (this.options.reloadWhenStale === false) throw new StaleGraph();
    return this.reload();
  }

  private async purgeWhenDue(): Promise<void> {
    const every = this.options.purgeEveryMs ?? 300_000;
    if (every <= 0 || Date.now() - this.lastPurge < every) return;
    this.lastPurge = Date.now();
    // A failed purge fails no trace: the rows stay until the next one (or the CLI's).
    try {
      this.stats.purged += await this.source.purge(this.options.retention ?? '1 hour');
    } catch {
      this.stats.purgeFailures++;
    }
  }
}
