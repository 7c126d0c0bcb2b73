import { AsyncLocalStorage } from 'node:async_hooks';

/** What the current request carries below the HTTP layer: its id (for error details and logs) and its SQL count. */
export interface RequestScope {
  requestId: string;
  statements: number;
  /** When set, the text of each statement as well (tests that compare what two requests ran). */
  texts?: string[];
  /** Work a request would otherwise repeat, by key (the trace's stored answer, read by every page of a CSV export). */
  memo?: Map<string, unknown>;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
