import { DomainError } from '../shared/errors.js';
import { isBrazilianTagCode, MAX_RANGE, rangeSize, codeAt } from './tag.rules.js';
import type { TagsBoxStatus } from './tag.rules.js';
import type { Checker } from '../shared/validation.js';

/**
 * Boxes between units (DOMAIN.md, "Tags Box", "Tags Ingress", "Tags Egress"): the box, ingress
 * and egress transitions the transfer operations make. Anything else is INVALID_STATE.
 */
export const BOX_TRANSITIONS = {
  /** A tags egress takes a box away: what it was is kept in tags_egress_box.str_box_status. */
  send: { from: ['IN_STOCK', 'OPENED'], to: 'IN_TRANSIT' },
  /** Accepted at the destination or given back to the origin: the status it had before it left. */
  arrive: { from: ['IN_TRANSIT'], to: 'IN_STOCK' },
  /** A rejected supplier box: its codes stay spent, no tag is ever made of them. */
  reject: { from: ['IN_TRANSIT'], to: 'DEPLETED' },
} as const satisfies Record<string, { from: readonly TagsBoxStatus[]; to: TagsBoxStatus }>;
export type BoxOperation = keyof typeof BOX_TRANSITIONS;

export const INGRESS_TRANSITIONS = { evaluate: { from: ['PENDING'], to: ['EVALUATED', 'PARTIALLY_ACCEPTED'] } } as const;
export const EGRESS_TRANSITIONS = {
  cancel: { from: ['SENT'], to: 'CANCELLED' },
  receive: { from: ['SENT'], to: 'RECEIVED' },
} as const;

/** Evaluation decisions a box may get (Tags Ingress Evaluate). */
export const EVALUATIONS = ['ACCEPTED', 'REJECTED'] as const;
export type Evaluation = (typeof EVALUATIONS)[number];

/** Boxes in one ingress or egress: the record lists them all and evaluation names each. */
export const MAX_BOXES = 1_000;

export function boxStateError(op: BoxOperation, offending: { str_code: string; str_status: string }[]): DomainError {
  return new DomainError('INVALID_STATE', {
    message: `${op} needs boxes in ${BOX_TRANSITIONS[op].from.join(' or ')}`,
    allowed: BOX_TRANSITIONS[op].from,
    tags_boxes: offending.slice(0, 50).map((b) => ({ str_code: b.str_code, str_status: b.str_status })),
  });
}

export function recordStateError(record: string, status: string, allowed: readonly string[], message?: string): DomainError {
  return new DomainError('INVALID_STATE', { message: message ?? `${record} is ${status}`, str_status: status, allowed });
}

/** What an ingress ends as: EVALUATED when every box was accepted, else PARTIALLY_ACCEPTED. */
export const ingressOutcome = (evaluations: readonly Evaluation[]): 'EVALUATED' | 'PARTIALLY_ACCEPTED' =>
  evaluations.every((e) => e === 'ACCEPTED') ? 'EVALUATED' : 'PARTIALLY_ACCEPTED';

/** A supplier box before it is stored. */
export interface SupplierBox {
  id: string | null;
  str_code: string;
  str_begin: string;
  str_finish: string;
  int_quantity: number;
  /** Where the box came from in the body (`tags_boxes[2]`, or `str_begin` for a split range). */
  field: string;
}

/** Unique because ranges never overlap, and says what the box holds. */
export const defaultBoxCode = (begin: string, finish: string): string => `${begin}-${finish}`;

/** Checks one supplier range: 076 + 12 digits each, finish not before begin; the size when valid. */
export function checkRange(check: Checker, field: string, begin: unknown, finish: unknown, beginName = 'str_begin', finishName = 'str_finish'): bigint | null {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  check.required(at(beginName), begin).required(at(finishName), finish);
  const badBegin = typeof begin !== 'string' || (begin !== '' && !isBrazilianTagCode(begin));
  const badFinish = typeof finish !== 'string' || (finish !== '' && !isBrazilianTagCode(finish));
  if (typeof begin === 'string' && badBegin) check.add(at(beginName), 'must be 076 followed by 12 digits');
  if (typeof finish === 'string' && badFinish) check.add(at(finishName), 'must be 076 followed by 12 digits');
  if (badBegin || badFinish || !begin || !finish) return null;
  const size = rangeSize(begin as string, finish as string);
  if (size < 1n) {
    check.add(at(finishName), `must not be before ${beginName}`);
    return null;
  }
  if (size > BigInt(MAX_RANGE)) {
    check.add(at(finishName), `a range holds at most ${MAX_RANGE} codes`);
    return null;
  }
  return size;
}

/** One supplier range cut into boxes of `size` codes (the last one may be smaller). */
export function splitRange(begin: string, finish: string, size: number): { str_begin: string; str_finish: string }[] {
  const total = rangeSize(begin, finish);
  const out: { str_begin: string; str_finish: string }[] = [];
  for (let offset = 0n; offset < total; offset += BigInt(size)) {
    const last = offset + BigInt(size) - 1n < total ? offset + BigInt(size) - 1n : total - 1n;
    out.push({ str_begin: codeAt(begin, offset), str_finish: codeAt(begin, last) });
  }
  return out;
}

/** Pairs [earlier, later] of boxes of one request whose ranges overlap (sorted sweep, n log n): one pair per overlapping box. */
export function overlapsWithin(boxes: readonly { str_begin: string; str_finish: string }[]): [number, number][] {
  const order = boxes.map((b, i) => ({ ...b, i })).sort((a, b) => a.str_begin.localeCompare(b.str_begin));
  const pairs: [number, number][] = [];
  let reach = order[0];
  for (const cur of order.slice(1)) {
    if (cur.str_begin <= reach!.str_finish) pairs.push([reach!.i, cur.i]);
    if (cur.str_finish > reach!.str_finish) reach = cur;
  }
  return pairs;
}
