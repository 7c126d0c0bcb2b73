/**
 * A read load on a thread of its own (bench:trace-isolation): `clients` loops, each sending one kind
 * of GraphQL read after another over a keep-alive connection for `ms`, every request timed from its
 * start to its last byte. The service shares the bench's process; a client on its thread would be
 * timed by it.
 */
import { Agent, request } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface ReadKind {
  name: string;
  /** The GraphQL body of each request (`$id` variables drawn from `ids`). */
  query: string;
  ids?: string[];
}

export interface LoadAsk {
  url: string;
  token: string;
  kinds: ReadKind[];
  /** Clients per kind. */
  clients: number;
  ms: number;
}

/** Per kind: each request's milliseconds, and the errors. */
export type LoadResult = Record<string, { ms: number[]; errors: number }>;

function once(agent: Agent, url: string, token: string, body: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/graphql`, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(res.statusCode === 200 && !Buffer.concat(chunks).toString('utf8').includes('"errors"')));
      res.on('error', reject);
    });
    req.end(body);
  });
}

async function load(ask: LoadAsk): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: ask.clients * ask.kinds.length });
  const until = performance.now() + ask.ms;
  const result: LoadResult = {};
  await Promise.all(
    ask.kinds.flatMap((kind) => {
      const r = (result[kind.name] = { ms: [] as number[], errors: 0 });
      return Array.from({ length: ask.clients }, async (_, c) => {
        for (let i = c; performance.now() < until; i += ask.clients) {
          const variables = kind.ids ? { id: kind.ids[i % kind.ids.length] } : {};
          const started = performance.now();
          const ok = await once(agent, ask.url, ask.token, JSON.stringify({ query: kind.query, variables })).catch(() => false);
          r.ms.push(performance.now() - started);
          if (!ok) r.errors++;
        }
      });
    }),
  );
  agent.destroy();
  return result;
}

/** Runs the load on a thread of its own and answers its timings. */
export function readLoad(ask: LoadAsk): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: ask });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (!isMainThread) void load(workerData as LoadAsk).then((r) => parentPort!.postMessage(r));
