import type { GraphSource } from '../graph/trace-graph.source.js';
import type { GraphStay } from '../graph/trace-graph.types.js';
import type { Rpc } from './rpc.js';

/**
 * A graph source the service's thread serves (PGlite: its one session lives there): the engine's
 * reads become calls, a load's chunks come back as messages before the load's answer.
 */
export function remoteGraphSource(rpc: Rpc): GraphSource {
  let nextLoad = 1;
  const loads = new Map<number, (rows: GraphStay[]) => void>();
  rpc.handle('source.chunk', ({ load, rows }: { load: number; rows: GraphStay[] }) => {
    loads.get(load)?.(rows);
    return null;
  });
  return {
    async load(onChunk, chunk) {
      const load = nextLoad++;
      loads.set(load, onChunk);
      try {
        return await rpc.call<string>('source.load', { load, chunk });
      } finally {
        loads.delete(load);
      }
    },
    check: (since) => rpc.call('source.check', since),
    changes: (since) => rpc.call('source.changes', since),
    purge: (kept) => rpc.call('source.purge', kept),
    loadable: () => rpc.call('source.loadable'),
    fingerprint: (since) => rpc.call('source.fingerprint', since ?? null),
  };
}

/** The service's side: answers the engine's reads from `source`. */
export function serveGraphSource(rpc: Rpc, source: GraphSource): void {
  rpc.handle('source.load', ({ load, chunk }: { load: number; chunk?: number }) => source.load((rows) => void rpc.call('source.chunk', { load, rows }).catch(() => undefined), chunk));
  rpc.handle('source.check', (since: string) => source.check(since));
  rpc.handle('source.changes', (since: string) => source.changes(since));
  rpc.handle('source.purge', (kept: string) => source.purge(kept));
  rpc.handle('source.loadable', () => source.loadable?.() ?? true);
  rpc.handle('source.fingerprint', (since: string | null) => source.fingerprint(since ?? undefined));
}
