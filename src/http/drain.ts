import type { IncomingMessage } from 'node:http';

/** What a refused request may still send that is read (and dropped) before its connection closes. */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
const DRAIN_MAX_MS = 5_000;

/**
 * RFC 9112 section 9.6: a server that answers before reading the whole body and then closes should
 * not drop the rest unread, or the client, still sending, meets a reset (EPIPE) before it reads the
 * answer. The rest of the body is read and dropped, up to DRAIN_MAX_BYTES and DRAIN_MAX_MS; a body
 * declared larger than that is not waited for (its client loses the answer, not the service).
 */
export function drainBody(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > DRAIN_MAX_BYTES) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    req.on('data', count);
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
    req.resume();
  });
}
