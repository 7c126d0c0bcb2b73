import { DomainError } from '../shared/errors.js';

export const TRAVEL_STATUSES = ['PLANNED', 'IN_PROGRESS', 'FINISHED', 'CANCELLED'] as const;
export type TravelStatus = (typeof TRAVEL_STATUSES)[number];

/** DOMAIN.md, Travel: the transitions a request may ask for; anything else is INVALID_STATE naming the state. */
export const TRAVEL_TRANSITIONS = {
  start: { from: ['PLANNED'], to: 'IN_PROGRESS' },
  embark: { from: ['PLANNED', 'IN_PROGRESS'], to: null },
  stop: { from: ['IN_PROGRESS'], to: null },
  finish: { from: ['IN_PROGRESS'], to: 'FINISHED' },
  cancel: { from: ['PLANNED', 'IN_PROGRESS'], to: 'CANCELLED' },
} as const satisfies Record<string, { from: readonly TravelStatus[]; to: TravelStatus | null }>;

export type TravelAction = keyof typeof TRAVEL_TRANSITIONS;

const VERBS: Record<TravelAction, string> = { start: 'start', embark: 'take embarks', stop: 'take stops', finish: 'finish', cancel: 'be cancelled' };

/** INVALID_STATE naming the travel's state and the states the action needs. */
export function travelStateError(action: TravelAction, status: string): DomainError {
  const allowed = TRAVEL_TRANSITIONS[action].from;
  return new DomainError('INVALID_STATE', { str_status: status, allowed, message: `a travel ${status} cannot ${VERBS[action]}: only ${allowed.join(' or ')}` });
}

/** A device's clock may run ahead of the server's by this much before a time counts as "in the future". */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Whole minutes from start to end (int_duration). */
export const durationMinutes = (start: Date, end: Date): number => Math.floor((end.getTime() - start.getTime()) / 60_000);

/** Whether a trip from `start` until `at` is over the maximum journey time. */
export const overLimit = (start: Date, at: Date, maxHours: number): boolean => at.getTime() - start.getTime() > maxHours * 3_600_000;
