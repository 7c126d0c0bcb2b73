/**
 * The subscribers of bench:events-out's subscriptions figure, in a process of their own (so the
 * service's memory is measured alone): argv[2] the ws URL, stdin a JSON list of {token, record,
 * n}: n graphql-ws connections, one subscription each, to the record's events. Prints `ready`
 * once every connection is acknowledged, then for each round (the payload's `round`) a JSON line
 * {round, first, last} (Date.now() at its first and last subscriber) once all got it.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

interface Group {
  token: string;
  record: string;
  n: number;
}

async function main(): Promise<void> {
  const url = process.argv[2]!;
  const groups = JSON.parse(await new Promise<string>((resolve) => {
    let text = '';
    process.stdin.on('data', (c: Buffer) => (text += c.toString()));
    process.stdin.on('end', () => resolve(text));
  })) as Group[];
  const total = groups.reduce((n, g) => n + g.n, 0);
  const rounds = new Map<number, { first: number; last: number; count: number }>();
  let acknowledged = 0;
  for (const g of groups) {
    for (let i = 0; i < g.n; i++) {
      const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${g.token}` }, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined, on: { connected: () => void (++acknowledged === total && console.log('ready')) } });
      client.subscribe<{ recordEvents: { payload: { round: number } } }>(
        { query: 'subscription ($ids: [UUID!]) { recordEvents(record_ids: $ids) { id payload } }', variables: { ids: [g.record] } },
        {
          next: (r) => {
            const round = r.data?.recordEvents.payload.round;
            if (round === undefined) return;
            const at = Date.now();
            const seen = rounds.get(round) ?? { first: at, last: at, count: 0 };
            seen.last = at;
            rounds.set(round, seen);
            if (++seen.count === total) console.log(JSON.stringify({ round, first: seen.first, last: seen.last }));
          },
          error: (e) => console.error('subscription error', e),
          complete: () => undefined,
        },
      );
    }
  }
}

void main();
