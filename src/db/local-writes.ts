/**
 * How many writes this process has completed (a commit, or a statement other than a SELECT run
 * outside a transaction), counted once they are done. The actor cache (src/identity/actor-cache.ts)
 * hears changes on a connection of its own, a moment after their commit: before it trusts what it
 * keeps after a write of this process, it waits until that connection has heard everything
 * committed so far, so that a request made after this process's own logout is refused at once.
 */
let seq = 0;

export const localWrites = {
  get seq(): number {
    return seq;
  },
  done(): void {
    seq++;
  },
};

const READ = /^\s*(select|show)\b/i;

/** Called with a finished statement's text (or undefined when it was a query builder) and whether it ran in a transaction. */
export function statementDone(sql: unknown, inTransaction: boolean): void {
  if (inTransaction) return;
  if (typeof sql === 'string' && READ.test(sql)) return;
  seq++;
}
