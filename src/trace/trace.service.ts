import { bulkOf, primaryOf, type Db, type Query } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { MANAGING_ROLES } from '../identity/actor.js';
import { controlUnitPolicy, establishmentPolicy } from '../places/establishment.policy.js';
import { groupedBy } from '../db/reader.js';
import { DomainError } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { paged, toPage, type PageInput, type Paged } from '../shared/pagination.js';
import type { Scope } from '../shared/scoped-query.js';
import { Checker } from '../shared/validation.js';
import { requestScope } from '../shared/request-scope.js';
import type { Logger } from '../shared/logger.js';
import { UF_READERS } from '../movements/gta.policy.js';
import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { TraceProgress, TraceProgressRun } from './trace-progress.js';
import type { TraceEngine } from './engine/trace-engine.js';
import { tracedStays, traceRun, traceRunCsv, traceRunPage, traceRunReused, type TraceDirection, type TracedAnimalRow, type TracedEstablishmentRow, type TracedStayRow, type TraceQuestion, type TraceRun, type DataVersion, type CsvSplit } from './trace.reader.js';

export const TRACE_DIRECTIONS = ['BACKWARD', 'FORWARD', 'BOTH'] as const;

/** The trace question (DOMAIN.md, "Tracing"): one place or animal, a window, a direction, a hop limit. */
export interface TraceInput {
  establishment_id?: string | null;
  control_unit_id?: string | null;
  animal_id?: string | null;
  /** A Date from GraphQL; the ISO text a CSV export's body carries (GraphQL checked it on the first page). */
  ts_from?: Date | string | null;
  ts_to?: Date | string | null;
  str_direction?: string | null;
  int_max_hops?: number | null;
}

export interface TracedAnimal extends TracedAnimalRow {
  str_reached_by: 'SEED' | 'CONTACT';
  stays: TracedStayRow[];
}

export interface TraceResult extends Paged<TracedAnimal> {
  establishments: TracedEstablishmentRow[];
  int_total_establishments: number;
}

/** Most traced animals on one page (the CSV export streams the whole answer from PostgreSQL instead). */
export const MAX_TRACE_PAGE = 5000;

/**
 * Who may ask: authorities and integrations (within their federative unit), administrators, and
 * owners and managers of the active organization (within what it sees). The walk covers every
 * stay; the answer shows only the stays at units the caller sees, and the animals with at least one.
 */
export class TraceService {
  /**
   * The answers walked in memory by this process whose rows are still being written, by key: the same
   * caller's next request (its CSV right after the first page) reads one instead of walking again
   * while its data version holds; once written, `trace_run` has it.
   */
  private readonly writing = new Map<string, { run: TraceRun; version: DataVersion }>();
  /** The answers whose write this service watches (told once if it fails). */
  private readonly storing = new Set<TraceRun>();

  constructor(
    private readonly progress: TraceProgress | null = null,
    /** The trace's engine (src/trace/engine/): the graph of every stay, walked off the request path; none, or while its graph is not current: `trace_runs` in SQL. */
    private engine: TraceEngine | null = null,
    /** Where a walk in memory's answer that could not be written is told (its page was answered; a CSV waiting for it fails). */
    private readonly log: Logger | null = null,
    /** How a CSV is read in parts (config TRACE_CSV_PART_ANIMALS, TRACE_CSV_PARALLEL). */
    private readonly csvSplit: CsvSplit = { animals: 5000, parallel: 2 },
  ) {}

  /** The engine, once the database is open (src/server.ts). */
  useEngine(engine: TraceEngine | null): void {
    this.engine = engine;
  }

  /** The engine's status (null without one): `/metrics`, `/health`. */
  get engineStatus(): TraceEngine['status'] | null {
    return this.engine?.status ?? null;
  }

  /** Compares the engine's graph with the database now (the periodic check's verdict; null without a current graph). */
  async verifyGraph(): Promise<'equal' | 'mismatch' | 'stale' | null> {
    return (await this.engine?.verify()) ?? null;
  }

  /** Stops the engine (the service's close). */
  async close(): Promise<void> {
    await this.engine?.close();
    this.engine = null;
  }

  /** How many walks ran in memory (0 without an engine). */
  get walksInMemory(): number {
    return this.engine?.status.walks ?? 0;
  }

  /** Settles once the engine's first load has ended and its graph holds every change committed before the call (at once without one). */
  async ready(): Promise<void> {
    await this.engine?.ready();
  }

  async trace(db: Db, actor: Actor, input: TraceInput, pageInput: PageInput | null | undefined): Promise<TraceResult> {
    const page = toPage(pageInput, MAX_TRACE_PAGE);
    const { run, visibleUnit, progress } = await this.answer(db, actor, input);
    try {
      const rows = run.total <= page.offset ? [] : run.pending ? await run.pending.page(primaryOf(db), page.size, page.offset) : await traceRunPage(primaryOf(db), run.id, page.size, page.offset);
      const stays = groupedBy(rows.map((r) => r.animal_id), await tracedStays(bulkOf(db), rows.map((r) => r.animal_id), visibleUnit), (s) => s.animal_id);
      const animals = rows.map((r, i): TracedAnimal => ({ ...r, str_reached_by: r.bl_seed ? 'SEED' : 'CONTACT', stays: stays[i]! }));
      const result = { ...paged(animals, run.total, page), establishments: run.establishments, int_total_establishments: run.establishments.length };
      progress?.answered(result.meta.int_total_results);
      return result;
    } catch (e) {
      progress?.failed(e);
      throw e;
    } finally {
      // Written once this page is out (its arrays alone take a tenth of a second at a quarter of a million
      // animals, which held up the page's last bytes), outside the request: not one of its statements.
      const write = () => requestScope.exit(() => this.stored(run).catch(() => undefined));
      const later = requestScope.getStore()?.afterResponse;
      if (later) later(write);
      else setImmediate(write);
    }
  }

  /** Settles once every answer walked in memory by this process so far is written (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writing.values()].map((w) => this.stored(w.run)));
  }

  /** Writes a walk in memory's answer (once), and forgets it as being written once written. */
  private stored(run: TraceRun): Promise<void> {
    if (!run.pending) return Promise.resolve();
    const done = run.pending.store();
    if (!this.storing.has(run)) {
      this.storing.add(run);
      done
        .catch((err: unknown) => this.log?.error({ err, run: run.id }, 'a trace answer walked in memory was not written'))
        .finally(() => {
          this.storing.delete(run);
          for (const [key, w] of this.writing) if (w.run === run) this.writing.delete(key);
        })
        .catch(() => undefined);
    }
    return done;
  }

  /** The whole answer as CSV, streamed from PostgreSQL (the walk is the one this request already stored for its first page). */
  async csv(db: Db, actor: Actor, input: TraceInput): Promise<Readable> {
    const { run, visibleUnit, progress } = await this.answer(db, actor, input);
    try {
      await this.stored(run);
      const stream = await traceRunCsv(primaryOf(db), run, visibleUnit, this.csvSplit);
      progress?.answered(run.total);
      return stream;
    } catch (e) {
      progress?.failed(e);
      throw e;
    }
  }

  /**
   * Who may ask, the checked question, and the answer stored for this request (walked once per
   * request). A question refused (403, 422) publishes nothing; from the checked question on, its
   * phases: STARTED, then WALKED or REUSED (or FAILED).
   */
  private async answer(db: Db, actor: Actor, input: TraceInput): Promise<{ run: TraceRun; visibleUnit: TraceQuestion['visibleUnit']; progress: TraceProgressRun | null }> {
    if (!actor.isAdmin && !UF_READERS.includes(actor.userType) && !(actor.role && MANAGING_ROLES.includes(actor.role))) {
      throw DomainError.forbidden('the trace is for authorities, integrations, administrators and the owners and managers of an organization');
    }
    const { seed, place, from, to, direction, maxHops, field, seen } = this.question(actor, input);
    const visibleUnit: TraceQuestion['visibleUnit'] = (column, on = {}) => controlUnitPolicy.unitIn(actor, column, 'MOVEMENTS', on);
    // Published once the seed is known to be seen (`run`): a refused question publishes nothing.
    const phases: { run: TraceProgressRun | null } = { run: null };
    const started = () => {
      phases.run = this.progress?.start(actor, {
        str_seed_kind: SEED_KIND[field], seed_id: seed.params[0] as string, str_direction: direction, ts_from: from.toISOString(), ts_to: to.toISOString(), int_max_hops: maxHops,
      }) ?? null;
    };
    try {
      // The walk stores its answer in unlogged tables, which no replica has: the walk, its pages and its
      // CSV run on the primary; the traced animals' stays on a replica (docs/decisions/replicas.md).
      const { run, reused } = await this.run(primaryOf(db), actor.userId, { seed, place, from, to, direction, maxHops, visibleUnit }, { sql: seen.sql, params: seen.params, field }, started);
      phases.run?.walked(run.establishments.length, run.total, reused);
      return { run, visibleUnit, progress: phases.run };
    } catch (e) {
      phases.run?.failed(e);
      throw e;
    }
  }

  /**
   * The walk once per question and data version: the pages of one request read the answer it
   * stored, and so do the same caller's next requests for the same question (the CSV after a JSON
   * page, the next pages) for a minute while the data version holds (`traceRunReused`). The key is
   * the caller, the question and its visibility (its SQL and parameters, but for the request's
   * instant that the sharings' schedule is read at): no other caller reads it, even one whose scope
   * is the same SQL (two officials of one state, since a caller without grants reads with its own
   * part alone). The seed's visibility is
   * read in the same statement as the stored answer (one round trip; the request's later calls
   * read neither), and `started` is called once the seed is known to be seen.
   */
  private run(db: Db, caller: string, q: TraceQuestion, seen: Query & { field: SeedField }, started: () => void): Promise<{ run: TraceRun; reused: boolean }> {
    const scope = requestScope.getStore();
    const visible = q.visibleUnit('u', { establishment: 'e' });
    const key = createHash('sha256').update(JSON.stringify([caller, q.seed, q.from, q.to, q.direction, q.maxHops, visible.sql, visible.params.map((p) => (p instanceof Date ? null : p))])).digest('hex');
    const known = scope?.memo?.get(`trace ${key}`) as Promise<TraceRun> | undefined;
    if (known) {
      return known.then((run) => {
        started();
        return { run, reused: true };
      });
    }
    const walked = traceRunReused(db, key, seen).then(async (found) => {
      if (!found.seen) throw DomainError.field(seen.field, seen.field === 'animal_id' ? 'no such animal' : seen.field === 'control_unit_id' ? 'no such control unit' : 'no such establishment');
      started();
      if (found.run) return { run: found.run, reused: true };
      const writing = this.writing.get(key);
      if (writing && writing.version.head === found.version.head && writing.version.recent === found.version.recent) return { run: writing.run, reused: true };
      const run = (await this.engine?.walk(db, q, found.version, newId(), key, found.now)) ?? null;
      if (!run) return { run: await traceRun(db, q, newId(), key), reused: false };
      this.writing.set(key, { run, version: found.version });
      return { run, reused: false };
    });
    if (scope) {
      const stored = walked.then((w) => w.run);
      stored.catch(() => undefined); // the caller hears the failure through `walked`
      (scope.memo ??= new Map()).set(`trace ${key}`, stored);
    }
    return walked;
  }

  /** Checks the question (400 and 422 naming the field); `seen`: one statement's SQL, 1 when the caller sees the seed (422 otherwise, `run`). */
  private question(actor: Actor, input: TraceInput): { seed: Scope; place: TraceQuestion['place']; from: Date; to: Date; direction: TraceDirection; maxHops: number | null; field: SeedField; seen: Query } {
    const check = new Checker();
    const given = (['establishment_id', 'control_unit_id', 'animal_id'] as const).filter((f) => input[f] !== undefined && input[f] !== null);
    if (given.length !== 1) check.add(given.length ? given[1]! : 'establishment_id', 'give exactly one of establishment_id, control_unit_id, animal_id');
    for (const f of given) check.when(!isUuid(input[f]), f, 'must be a uuid');
    const from = input.ts_from == null ? null : new Date(input.ts_from);
    const to = input.ts_to == null ? null : new Date(input.ts_to);
    check.required('ts_from', from).required('ts_to', to);
    if (from && to) check.when(to.getTime() < from.getTime(), 'ts_to', 'must not be before ts_from');
    const direction = input.str_direction ?? 'BOTH';
    check.when(!(TRACE_DIRECTIONS as readonly string[]).includes(direction), 'str_direction', `must be one of ${TRACE_DIRECTIONS.join(', ')}`);
    if (input.int_max_hops !== undefined && input.int_max_hops !== null) check.when(!Number.isInteger(input.int_max_hops) || input.int_max_hops < 0, 'int_max_hops', 'must be an integer of at least 0');
    check.throwIfAny();
    const field = given[0]!;
    const id = input[field]!.toLowerCase();
    // An establishment's stays are read through its units' index (`animal_stay_unit`: unit, start, with the end
    // and the establishment included), the same stays since a stay's unit is one of its establishment's
    // (Migration0033): by `animal_stay_establishment` each of an auction's 7,499 stays was a heap page
    // to read for the 432 that overlap the window (11-40 ms of CPU of a 1-hop first page at 1M, as they were cached or not).
    const seed =
      field === 'establishment_id'
        ? { sql: 's.control_unit_id in (select cu.id from control_unit cu where cu.establishment_id = ?) and s.establishment_id = ?', params: [id, id] }
        : { sql: `${field === 'control_unit_id' ? 's.control_unit_id' : 's.animal_id'} = ?`, params: [id] };
    const place = { kind: SEED_KIND_OF[field], id };
    return { seed, place, from: from!, to: to!, direction: direction as TraceDirection, maxHops: input.int_max_hops ?? null, field, seen: visibility(actor, field, id) };
  }
}

type SeedField = 'establishment_id' | 'control_unit_id' | 'animal_id';
const SEED_KIND = { establishment_id: 'ESTABLISHMENT', control_unit_id: 'CONTROL_UNIT', animal_id: 'ANIMAL' } as const;
const SEED_KIND_OF = { establishment_id: 'establishment', control_unit_id: 'unit', animal_id: 'animal' } as const;

/** The SQL of one count: 1 when the caller sees the seed (an animal: one of its stays' units). */
function visibility(actor: Actor, field: 'establishment_id' | 'control_unit_id' | 'animal_id', id: string): { sql: string; params: unknown[] } {
  if (field === 'establishment_id') {
    const scope = establishmentPolicy.scope(actor);
    return { sql: `select count(*)::int as n from establishment e where e.id = ? and ${scope.sql}`, params: [id, ...scope.params] };
  }
  if (field === 'control_unit_id') {
    const scope = controlUnitPolicy.scope(actor);
    return { sql: `select count(*)::int as n from control_unit cu where cu.id = ? and ${scope.sql}`, params: [id, ...scope.params] };
  }
  const scope = controlUnitPolicy.unitIn(actor, 'vs.control_unit_id', 'MOVEMENTS', { holder: 'vs' });
  return { sql: `select count(*)::int as n from (select 1 from animal_stay vs where vs.animal_id = ? and ${scope.sql} limit 1) x`, params: [id, ...scope.params] };
}
