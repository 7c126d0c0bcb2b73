import { AsyncLocalStorage } from 'node:async_hooks';

/** What the current request carries below the HTTP layer: its id (for error details and logs) and its SQL count. */
export interface RequestScope {
  requestId: string;
  statements: number;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
