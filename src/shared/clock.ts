/**
 * The core's time for what is judged at an instant rather than stored (a sharing is ACTIVE from its
 * ts_scheduled_to until its ts_expires_at). One source, read once per request into the actor, so a
 * test can hold it and move it past a boundary instead of waiting for the wall clock.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
