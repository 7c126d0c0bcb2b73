import { DomainError } from './errors.js';
import { isUuid } from './ids.js';
import { MAX_NAMED } from './input.js';

/** A search body or query string: CONTRACT.md's filters, checked by buildSearch. */
export type Filters = Record<string, unknown> | null | undefined;

type Kind = 'text' | 'uuid' | 'boolean' | 'integer' | 'number';

/** What a record's search accepts (CONTRACT.md, "Search bodies"). Column names are the record's field names. */
export interface SearchSpec {
  alias: string;
  exact: Record<string, Kind>;
  /** ts_* fields accepted as `<field>_from` / `<field>_to`. */
  ranges: string[];
  /** Fields `str_query` looks into. */
  query: string[];
  /** Filters on what the record is not stored with (a tag code, an establishment): a condition with one `?`. */
  computed?: Record<string, { kind: Kind; sql: string }>;
}

const ACCENTED = 'áàâãäåéèêëíìîïóòôõöúùûüçñý';
const PLAIN = 'aaaaaaeeeeiiiiooooouuuucny';
const fold = (sql: string) => `translate(lower(${sql}), '${ACCENTED}', '${PLAIN}')`;
export const foldText = (v: string): string => v.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** What `str_order_by` accepts: the exact fields and the ranges. */
export const orderableFields = (spec: SearchSpec): string[] => [...Object.keys(spec.exact), ...spec.ranges];

export function acceptedKeys(spec: SearchSpec): string[] {
  return [...Object.keys(spec.exact), ...Object.keys(spec.computed ?? {}), ...spec.ranges.flatMap((r) => [`${r}_from`, `${r}_to`]), 'str_query', 'str_order_by', 'str_order'];
}

/** Turns a filter object into a parameterised SQL condition and order; unknown keys are a 422 naming the accepted ones. */
export function buildSearch(spec: SearchSpec, filters: Record<string, unknown>): { where: string; params: unknown[]; orderBy: string; orderOn: (alias: string) => string } {
  const a = spec.alias;
  const accepted = acceptedKeys(spec);
  const unknown = Object.keys(filters).filter((k) => !accepted.includes(k));
  if (unknown.length) {
    // Named as the input boundary names fields: at most MAX_NAMED, so a body of 40,000 keys is not answered with 40,000.
    const fields: Record<string, string[]> = Object.create(null);
    for (const k of unknown.slice(0, MAX_NAMED)) fields[k] = ['is not a known filter'];
    throw new DomainError('VALIDATION_FAILED', {
      fields,
      accepted_keys: accepted,
    });
  }
  const conditions: string[] = [];
  const params: unknown[] = [];
  const fields: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    // Own keys only: a `constructor` filter is unknown, not Object's constructor.
    const computed = spec.computed && Object.hasOwn(spec.computed, key) ? spec.computed[key] : undefined;
    const kind = Object.hasOwn(spec.exact, key) ? spec.exact[key] : computed?.kind;
    if (kind) {
      if (value === null) {
        if (computed) fields[key] = ['must not be null'];
        else conditions.push(`${a}.${key} is null`);
        continue;
      }
      const bad =
        (kind === 'text' && typeof value !== 'string') ||
        (kind === 'uuid' && !isUuid(value)) ||
        (kind === 'boolean' && typeof value !== 'boolean') ||
        (kind === 'integer' && !Number.isInteger(value)) ||
        (kind === 'number' && typeof value !== 'number');
      if (bad) fields[key] = [`must be ${kind === 'uuid' ? 'a uuid' : `a ${kind}`}`];
      else {
        conditions.push(computed ? computed.sql : `${a}.${key} = ?`);
        params.push(value);
      }
      continue;
    }
    const range = /^(.*)_(from|to)$/.exec(key);
    if (range && spec.ranges.includes(range[1]!)) {
      const at = typeof value === 'string' ? new Date(value) : null;
      if (!at || Number.isNaN(at.getTime())) fields[key] = ['must be an ISO 8601 date-time'];
      else {
        conditions.push(`${a}.${range[1]} ${range[2] === 'from' ? '>=' : '<='} ?`);
        params.push(at);
      }
    }
  }
  if (filters.str_query !== undefined && filters.str_query !== null) {
    if (typeof filters.str_query !== 'string') fields.str_query = ['must be a string'];
    else if (filters.str_query.trim()) {
      const needle = `%${foldText(filters.str_query.trim()).replace(/[\\%_]/g, '\\$&')}%`;
      conditions.push(`(${spec.query.map((f) => `${fold(`${a}.${f}`)} like ?`).join(' or ')})`);
      spec.query.forEach(() => params.push(needle));
    }
  }
  const orderable = orderableFields(spec);
  const orderField = filters.str_order_by ?? 'ts_created_at';
  if (typeof orderField !== 'string' || !orderable.includes(orderField)) fields.str_order_by = [`must be one of ${orderable.join(', ')}`];
  const direction = filters.str_order ?? 'DESC';
  if (direction !== 'ASC' && direction !== 'DESC') fields.str_order = ['must be ASC or DESC'];
  if (Object.keys(fields).length) throw DomainError.validation(fields);
  const orderOn = (alias: string) => `${alias}.${orderField as string} ${direction as string}, ${alias}.id ${direction as string}`;
  return { where: conditions.length ? conditions.join(' and ') : 'true', params, orderBy: orderOn(a), orderOn };
}
