import { Agent, request } from 'node:http';
import { buildService, startChild } from './helpers/child.js';

/**
 * SIGTERM to a real service process (issue 21): requests in flight, and requests a client sent on
 * an idle keep-alive connection at that very instant, all get their answer, with `Connection:
 * close`; then the process exits 0. Closing idle keep-alive connections at once used to reset them.
 */
beforeAll(() => buildService(), 180_000);

interface Answer {
  status: number;
  connection: string | undefined;
}

function get(agent: Agent, url: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SOCKETS = 8;

test('three times: at SIGTERM, every request already sent, or sent on an idle connection that instant, is answered; the process exits 0', async () => {
  const env: Record<string, string> = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {};
  for (let round = 0; round < 3; round++) {
    const child = await startChild(env);
    const agent = new Agent({ keepAlive: true, maxSockets: SOCKETS });
    // Eight keep-alive connections, open and idle.
    const warm = await Promise.all(Array.from({ length: SOCKETS }, () => get(agent, child.url, '/health')));
    expect(warm.map((a) => a.status)).toEqual(Array(SOCKETS).fill(200));
    const inFlight = get(agent, child.url, '/ready');
    child.process.kill('SIGTERM');
    const atTheInstant = Array.from({ length: SOCKETS - 1 }, () => get(agent, child.url, '/health'));
    const answers = await Promise.allSettled([inFlight, ...atTheInstant]);
    const failed = answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason));
    expect({ round, failed }).toEqual({ round, failed: [] });
    // Answered after the signal: Connection: close (one the server answered before it saw the signal may still say keep-alive).
    for (const a of answers) expect((a as PromiseFulfilledResult<Answer>).value).toMatchObject({ status: 200, connection: expect.stringMatching(/^(close|keep-alive)$/) });
    expect(await child.exited).toBe(0);
    agent.destroy();
  }
}, 300_000);
