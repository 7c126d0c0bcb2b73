import { AsyncLocalStorage } from 'node:async_hooks';

/** What the current request carries below the HTTP layer: its id (for error details and logs) and its SQL count. */
export interface RequestScope {
  requestId: string;
  statements: number;
  /** When set, the text of each statement as well (tests that compare what two requests ran). */
  texts?: string[];
  /**
   * Leaves work for once the request's answer has been sent (the HTTP layer runs it when the response
   * has finished or closed): work the answer does not wait for, which would otherwise hold up its
   * last bytes on the same thread (the trace's stored answer). Unset outside HTTP requests.
   */
  afterResponse?: (work: () => void) => void;
  /** Work a request would otherwise repeat, by key (the trace's stored answer, read by every page of a CSV export). */
  memo?: Map<string, unknown>;
  /**
   * With replicas (src/db/replicas.ts): whose writes the request's reads must see (`keys`), under
   * which keys its own writes are noted, and whether it committed one since its last read.
   */
  reader?: {
    keys: string[];
    writeKeys: string[];
    wrote: boolean;
    noting?: Promise<void>;
    /** A position the client says it must see (`X-Read-After`, from another instance's answer to its write). */
    after?: bigint;
    /** The position after this request's last commit, answered as `X-Read-After`. */
    written?: bigint;
  };
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * With replicas: a commit made outside any request (a start-up step, the mail relay, a test's
 * factory). Every read then waits for it (src/db/replicas.ts), as a request's reads wait for its caller's.
 */
export const unscopedWrites = { wrote: false };
