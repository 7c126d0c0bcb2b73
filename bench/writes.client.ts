/**
 * The clients of bench:writes, in a process of their own (forked, one job per message): their HTTP
 * work (undici, JSON) runs beside the service, not on its event loop, and the service process's CPU
 * time is the service's alone. Each client updates its own establishment as fast as it is answered
 * until the deadline.
 */

export interface ClientJob {
  url: string;
  tenants: { token: string; establishmentId: string }[];
  seconds: number;
  /** Distinguishes names across rounds, so every write changes the record (and appends an event). */
  round: string;
}

export interface ClientResult {
  done: number;
  failed: number;
  firstFailure: string | null;
  /** Sum of X-SQL-Statements over the successful writes. */
  statements: number;
  /** Milliseconds of each successful write, in no particular order. */
  latencies: number[];
  seconds: number;
}

async function run(job: ClientJob): Promise<ClientResult> {
  const started = performance.now();
  const until = started + job.seconds * 1000;
  const result: ClientResult = { done: 0, failed: 0, firstFailure: null, statements: 0, latencies: [], seconds: 0 };
  await Promise.all(
    job.tenants.map(async (t, k) => {
      for (let i = 0; performance.now() < until; i++) {
        const sent = performance.now();
        const res = await fetch(`${job.url}/api/establishments/${t.establishmentId}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
          body: JSON.stringify({ str_name: `Fazenda ${job.round}.${k}.${i}` }),
        });
        const text = await res.text();
        if (res.status === 200) {
          result.done++;
          result.statements += Number(res.headers.get('x-sql-statements') ?? 0);
          result.latencies.push(performance.now() - sent);
        } else {
          result.failed++;
          result.firstFailure ??= `${res.status} ${text.slice(0, 300)}`;
        }
      }
    }),
  );
  // Writes answered after the deadline count, and so does the time they took.
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

process.on('message', (job: ClientJob) => {
  run(job).then(
    (r) => process.send!(r),
    (err: unknown) => process.send!({ error: String(err) }),
  );
});
