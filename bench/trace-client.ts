/**
 * bench:trace's HTTP client, on a thread of its own: the service shares the bench's process, and a
 * client on the service's thread reads an answer's last bytes only when the service's thread is free
 * (after the work the service leaves for once the answer is out), which a client elsewhere does not
 * wait for. Each request is timed here, from its start to its last byte.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

export interface Posted {
  status: number;
  /** A JSON answer: its totals (an error: the whole body). */
  json: unknown;
  bytes: number;
  lines: number;
  sha: string;
  /** From the request's start to the answer's last byte, on the client's thread. */
  ms: number;
}

interface Ask {
  id: number;
  url: string;
  token: string;
  body: unknown;
  csv: boolean;
}

/**
 * POSTs /api/trace over node:http (no client timeout: a national trace takes minutes here) and reads
 * the answer as it streams, counting bytes and lines without keeping a CSV; a JSON answer is kept and parsed.
 */
function post({ url, token, body, csv }: Ask): Promise<Posted> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/trace${csv ? '' : '?int_max_results=50'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: csv ? 'text/csv' : 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      let lines = 0;
      const sha = createHash('sha256');
      const kept: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        sha.update(chunk);
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        if (!csv) kept.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        const ms = performance.now() - started;
        const status = res.statusCode ?? 0;
        const parsed = csv ? null : (JSON.parse(Buffer.concat(kept).toString('utf8')) as { meta?: unknown; int_total_establishments?: unknown });
        const json = parsed && status === 200 ? { meta: parsed.meta, int_total_establishments: parsed.int_total_establishments } : parsed;
        resolve({ status, json, bytes, lines, sha: sha.digest('hex').slice(0, 16), ms });
      });
    });
    req.end(JSON.stringify(body));
  });
}

/** The client thread: `post` sends a request there and hears its answer. */
export function traceClient(): { post(url: string, token: string, body: unknown, csv: boolean): Promise<Posted>; close(): Promise<number> } {
  const worker = new Worker(new URL(import.meta.url));
  const waiting = new Map<number, { resolve: (p: Posted) => void; reject: (e: Error) => void }>();
  let next = 0;
  worker.on('message', (m: { id: number; posted?: Posted; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.posted) w?.resolve(m.posted);
    else w?.reject(new Error(m.error));
  });
  worker.unref();
  return {
    post: (url, token, body, csv) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, url, token, body, csv } satisfies Ask);
      }),
    close: () => worker.terminate(),
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (ask: Ask) => {
    post(ask).then(
      (posted) => port.postMessage({ id: ask.id, posted }),
      (err: unknown) => port.postMessage({ id: ask.id, error: String(err) }),
    );
  });
}
