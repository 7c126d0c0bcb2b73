import { DomainError } from '../shared/errors.js';

export const EGRESS_STATUSES = ['OPEN', 'FINISHED', 'RECEIVED', 'CANCELLED'] as const;
export type EgressStatus = (typeof EGRESS_STATUSES)[number];
export const INGRESS_STATUSES = ['OPEN', 'RECEIVED', 'RECEIVED_WITH_DIVERGENCE', 'CANCELLED'] as const;
export type IngressStatus = (typeof INGRESS_STATUSES)[number];

/** DOMAIN.md, "Animal movements": the transitions a request may ask for; anything else is INVALID_STATE. */
export const EGRESS_TRANSITIONS = {
  read: { from: ['OPEN'], to: 'OPEN' },
  finish: { from: ['OPEN'], to: 'FINISHED' },
  cancel: { from: ['OPEN', 'FINISHED'], to: 'CANCELLED' },
} as const;

export const INGRESS_TRANSITIONS = {
  read: { from: ['OPEN'], to: 'OPEN' },
  finish: { from: ['OPEN'], to: 'RECEIVED' },
  cancel: { from: ['OPEN'], to: 'CANCELLED' },
} as const;

/** INVALID_STATE naming the record's state and what the action needs. */
export function movementStateError(noun: string, action: string, status: string, from: readonly string[]): DomainError {
  return new DomainError('INVALID_STATE', { str_status: status, message: `${noun} ${status} cannot ${action}: only ${from.join(' or ')}` });
}

/** Most animals one request may read (a truck carries fewer; a corral's batch fits). */
export const MAX_READS_PER_BATCH = 1000;

/** DOMAIN.md: NON_COMPLIANT > UNDER_REVIEW > NOT_EVALUATED > COMPLIANT. */
export const SOCIO_ORDER = ['COMPLIANT', 'NOT_EVALUATED', 'UNDER_REVIEW', 'NON_COMPLIANT'] as const;
export type SocioStatus = (typeof SOCIO_ORDER)[number];

/** SQL: the rank of a status expression (1 best … 4 worst). */
export const socioRank = (expr: string): string => `array_position(array['COMPLIANT','NOT_EVALUATED','UNDER_REVIEW','NON_COMPLIANT']::text[], ${expr})`;
/** SQL: the status of a rank expression. */
export const socioOfRank = (expr: string): string => `(array['COMPLIANT','NOT_EVALUATED','UNDER_REVIEW','NON_COMPLIANT']::text[])[${expr}]`;

export function worstSocio(statuses: Iterable<string | null | undefined>): SocioStatus | null {
  let worst = -1;
  for (const s of statuses) worst = Math.max(worst, SOCIO_ORDER.indexOf((s ?? '') as SocioStatus));
  return worst < 0 ? null : SOCIO_ORDER[worst]!;
}

/** A RULE_VIOLATED refusal naming the rule and, where there are any, the animals (by id and code). */
export function ruleViolated(rule: string, message: string, extra: Record<string, unknown> = {}): DomainError {
  return new DomainError('RULE_VIOLATED', { rule, message, ...extra });
}
