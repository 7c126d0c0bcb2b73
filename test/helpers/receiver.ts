import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  recordId: string;
  body: { type: string; timestamp: string; data: { id: string; str_record_type: string; record_id: string; payload: unknown; listed: { str_record_type: string; id: string }[] } };
  headers: IncomingHttpHeaders;
}

export interface Receiver {
  url: string;
  /** Verified deliveries, in arrival order. */
  received: Received[];
  /** Deliveries whose signature did not verify. */
  refused: number;
  /** The status to answer (200 unless a test makes it fail). */
  status: number;
  /** Resolves once `n` verified deliveries arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver verifying each delivery with the standardwebhooks verifier and the endpoint's secret (set once it is known). */
export async function startReceiver(): Promise<Receiver & { secret: string }> {
  const state = { received: [] as Received[], refused: 0, status: 200, secret: '' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        const body = new Webhook(state.secret).verify(raw, req.headers as Record<string, string>) as Received['body'];
        if (state.status >= 200 && state.status < 300) state.received.push({ id: String(req.headers['webhook-id']), type: body.type, recordId: body.data.record_id, body, headers: req.headers });
        res.writeHead(state.status).end();
      } catch {
        state.refused++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const receiver = Object.assign(state, {
    url,
    async waitFor(n: number, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (state.received.length < n) {
        if (Date.now() > until) throw new Error(`${state.received.length} of ${n} deliveries arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
  return receiver;
}
