/** A subscriber's events read as an async iterator: what is pushed goes to a waiting reader or waits in a queue. */
export interface PushIterator<T> {
  push(value: T): void;
  /** Ends the iteration (a waiting reader is told it is done); false if it had ended already. */
  end(): boolean;
  iterator: AsyncIterableIterator<T>;
}

export interface PushIteratorHooks {
  /** More than the queue's bound waits unread: a client that stopped reading. */
  overflow(): void;
  /** The iteration ended, by `end` or by the reader returning the iterator (unsubscribing). */
  finished(): void;
  /** The source is shut: a reader with nothing queued is done. */
  closed(): boolean;
}

export function pushIterator<T>(maxQueued: number, hooks: PushIteratorHooks): PushIterator<T> {
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let done = false;
  const end = (): boolean => {
    if (done) return false;
    done = true;
    hooks.finished();
    waiting?.({ value: undefined, done: true });
    waiting = null;
    return true;
  };
  const push = (value: T): void => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w({ value, done: false });
    } else if (queue.push(value) > maxQueued) hooks.overflow();
  };
  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done || hooks.closed()) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: () => {
      end();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return { push, end, iterator };
}
