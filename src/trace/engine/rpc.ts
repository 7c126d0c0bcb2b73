import type { MessagePort, Worker } from 'node:worker_threads';

type Port = Pick<MessagePort, 'postMessage' | 'on' | 'off'> | Pick<Worker, 'postMessage' | 'on' | 'off'>;
type Handler = (args: never) => unknown;
type Message = { t: 'call'; id: number; method: string; args: unknown } | { t: 'reply'; id: number; ok: boolean; value?: unknown; error?: WireError };

/** An error as it crosses the thread (its code and field kept: a DomainError's shape). */
export interface WireError {
  name: string;
  message: string;
  code?: string;
  field?: string;
  stack?: string;
}

export class RemoteError extends Error {
  constructor(readonly wire: WireError) {
    super(wire.message);
    this.name = wire.name;
  }
}

function toWire(err: unknown): WireError {
  const e = err as { name?: string; message?: string; code?: string; field?: string; stack?: string };
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code, field: e?.field, stack: e?.stack };
}

/**
 * Calls between the service's thread and the trace engine's (either side calls, either side
 * answers): a call is a message with an id, its answer a message naming it. Structured clone
 * carries the values (typed arrays, Dates, plain rows).
 */
export class Rpc {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private readonly handlers = new Map<string, Handler>();
  private readonly listener = (m: Message) => void this.receive(m);

  constructor(private readonly port: Port) {
    port.on('message', this.listener);
  }

  handle<A, R>(method: string, fn: (args: A) => R | Promise<R>): void {
    this.handlers.set(method, fn as Handler);
  }

  call<R>(method: string, args: unknown = null): Promise<R> {
    const id = this.next++;
    return new Promise<R>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.port.postMessage({ t: 'call', id, method, args } satisfies Message);
    });
  }

  /** Every call still waiting fails (the other side is gone). */
  failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  close(): void {
    this.port.off('message', this.listener);
  }

  private async receive(m: Message): Promise<void> {
    if (m.t === 'reply') {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.value);
      else w.reject(new RemoteError(m.error!));
      return;
    }
    const handler = this.handlers.get(m.method);
    try {
      if (!handler) throw new Error(`no handler for ${m.method}`);
      const value = await handler(m.args as never);
      this.port.postMessage({ t: 'reply', id: m.id, ok: true, value } satisfies Message);
    } catch (err) {
      this.port.postMessage({ t: 'reply', id: m.id, ok: false, error: toWire(err) } satisfies Message);
    }
  }
}
