import { bulkOf, primaryOf, type Db } from '../db/sql.js';
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
import { UF_READERS } from './gta.policy.js';
import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { TraceProgress, TraceProgressRun } from './trace-progress.js';
import { tracedStays, traceRun, traceRunCsv, traceRunPage, traceRunReused, type TraceDirection, type TracedAnimalRow, type TracedEstablishmentRow, type TracedStayRow, type TraceQuestion, type TraceRun } from './trace.reader.js';

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
  /** `progress`: where each trace's phases are published (the traceProgress subscription); none, none published. */
  constructor(private readonly progress: TraceProgress | null = null) {}

  async trace(db: Db, actor: Actor, input: TraceInput, pageInput: PageInput | null | undefined): Promise<TraceResult> {
    const page = toPage(pageInput, MAX_TRACE_PAGE);
    const { run, visibleUnit, progress } = await this.answer(db, actor, input);
    try {
      const rows = run.total > page.offset ? await traceRunPage(primaryOf(db), run.id, page.size, page.offset) : [];
      const stays = groupedBy(rows.map((r) => r.animal_id), await tracedStays(bulkOf(db), rows.map((r) => r.animal_id), visibleUnit), (s) => s.animal_id);
      const animals = rows.map((r, i): TracedAnimal => ({ ...r, str_reached_by: r.bl_seed ? 'SEED' : 'CONTACT', stays: stays[i]! }));
      const result = { ...paged(animals, run.total, page), establishments: run.establishments, int_total_establishments: run.establishments.length };
      progress?.answered(result.meta.int_total_results);
      return result;
    } catch (e) {
      progress?.failed(e);
      throw e;
    }
  }

  /** The whole answer as CSV, streamed from PostgreSQL (the walk is the one this request already stored for its first page). */
  async csv(db: Db, actor: Actor, input: TraceInput): Promise<Readable> {
    const { run, visibleUnit, progress } = await this.answer(db, actor, input);
    try {
      const stream = await traceRunCsv(primaryOf(db), run.id, visibleUnit);
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
    const { seed, from, to, direction, maxHops, field } = await this.question(db, actor, input);
    const progress = this.progress?.start(actor, {
      str_seed_kind: SEED_KIND[field], seed_id: seed.params[0] as string, str_direction: direction, ts_from: from.toISOString(), ts_to: to.toISOString(), int_max_hops: maxHops,
    }) ?? null;
    const visibleUnit = (column: string, establishmentColumn?: string): Scope => controlUnitPolicy.unitIn(actor, column, 'MOVEMENTS', { establishment: establishmentColumn });
    try {
      // The walk stores its answer in unlogged tables, which no replica has: the walk, its pages and its
      // CSV run on the primary; the traced animals' stays on a replica (docs/decisions/replicas.md).
      const { run, reused } = await this.run(primaryOf(db), actor.userId, { seed, from, to, direction, maxHops, visibleUnit });
      progress?.walked(run.establishments.length, run.total, reused);
      return { run, visibleUnit, progress };
    } catch (e) {
      progress?.failed(e);
      throw e;
    }
  }

  /**
   * The walk once per question and data version: the pages of one request read the answer it
   * stored, and so do the same caller's next requests for the same question (the CSV after a JSON
   * page, the next pages) for a minute while the data version holds (`traceRunReused`). The key is
   * the question, the caller and its visibility (its SQL and parameters, but for the request's
   * instant that the sharings' schedule is read at), so no other caller reads it: the caller named,
   * since two callers without grants (two authorities of a state) have the same visibility's SQL.
   */
  private run(db: Db, callerId: string, q: TraceQuestion): Promise<{ run: TraceRun; reused: boolean }> {
    const scope = requestScope.getStore();
    const visible = q.visibleUnit('u', 'e');
    const key = createHash('sha256').update(JSON.stringify([callerId, q.seed, q.from, q.to, q.direction, q.maxHops, visible.sql, visible.params.map((p) => (p instanceof Date ? null : p))])).digest('hex');
    const known = scope?.memo?.get(`trace ${key}`) as Promise<TraceRun> | undefined;
    if (known) return known.then((run) => ({ run, reused: true }));
    const walked = traceRunReused(db, key).then(async (stored) => (stored ? { run: stored, reused: true } : { run: await traceRun(db, q, newId(), key), reused: false }));
    if (scope) {
      const stored = walked.then((w) => w.run);
      stored.catch(() => undefined); // the caller hears the failure through `walked`
      (scope.memo ??= new Map()).set(`trace ${key}`, stored);
    }
    return walked;
  }

  /** Checks the question; the seed must be a place or animal the caller sees (422 naming the field otherwise). */
  private async question(db: Db, actor: Actor, input: TraceInput): Promise<{ seed: Scope; from: Date; to: Date; direction: TraceDirection; maxHops: number | null; field: SeedField }> {
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
    const seen = await db.rows<{ n: number }>(visibility(actor, field, id));
    if (!seen[0]?.n) throw DomainError.field(field, field === 'animal_id' ? 'no such animal' : field === 'control_unit_id' ? 'no such control unit' : 'no such establishment');
    const column = { establishment_id: 's.establishment_id', control_unit_id: 's.control_unit_id', animal_id: 's.animal_id' }[field];
    return { seed: { sql: `${column} = ?`, params: [id] }, from: from!, to: to!, direction: direction as TraceDirection, maxHops: input.int_max_hops ?? null, field };
  }
}

type SeedField = 'establishment_id' | 'control_unit_id' | 'animal_id';
const SEED_KIND = { establishment_id: 'ESTABLISHMENT', control_unit_id: 'CONTROL_UNIT', animal_id: 'ANIMAL' } as const;

/** One statement: 1 when the caller sees the seed (an animal: one of its stays' units). */
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
