import { DomainError } from '../shared/errors.js';
import { TAG_TRANSITIONS, type TagOperation } from './tag.rules.js';

/** A code that cannot take part in a tag operation at a unit: its status there, or null when it is not at that unit. */
export interface OffendingTag {
  str_code: string;
  str_status: string | null;
  path: string;
}

/**
 * INVALID_STATE naming the offending codes (at most 50, and how many): a tag elsewhere, or that
 * the caller may not see, reads as not at the unit (str_status null) and reveals nothing more.
 */
export function tagsNotReady(op: TagOperation, offending: OffendingTag[], total = offending.length): DomainError {
  return new DomainError('INVALID_STATE', {
    message: `${op} needs tags in ${TAG_TRANSITIONS[op].from.join(' or ')} at the control unit (str_status null: no such tag there)`,
    allowed: TAG_TRANSITIONS[op].from,
    tags: offending.slice(0, 50),
    int_offending: total,
  });
}

/**
 * SQL over a CTE `upd (id, str_code)` of tags one statement changed: per record `id`, how many
 * tags (`n`) and their codes as contiguous runs (`runs`: [[first, last], ...]), so an event
 * names every tag without a row per tag.
 */
export const CODE_RUNS_SQL = `select id, sum(hi::bigint - lo::bigint + 1)::int as n, jsonb_agg(jsonb_build_array(lo, hi) order by lo) as runs
  from (select id, min(str_code) as lo, max(str_code) as hi
          from (select id, str_code, str_code::bigint - row_number() over (partition by id order by str_code) as grp from upd) s
         group by id, grp) r
 group by id`;

export interface CodeRuns {
  id: string;
  n: number;
  runs: [string, string][];
}
