import type { Clock } from '../../src/shared/clock.js';

/** A clock the test holds: it reads the wall clock until set, then stays where the test puts it. */
export class TestClock implements Clock {
  private at: Date | null = null;

  now(): Date {
    return this.at ? new Date(this.at) : new Date();
  }

  set(at: Date): void {
    this.at = new Date(at);
  }

  /** Back to the wall clock. */
  release(): void {
    this.at = null;
  }
}
