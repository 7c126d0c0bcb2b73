import { readFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';

/** The four requests of bench:peers in the service's own forms (bench:peers-profile and bench:peers-ab load them one at a time). */
export interface PeerRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/** The nesting of the GraphQL reads: an animal, its tag, the tag's unit, its establishment, its county. */
export const SERVICE_TREE = 'id str_species current_tag { id str_code last_control_unit { id str_name establishment { id str_name county { id str_name } } } }';

/** a. the nested page of 50, b. `animal(id)` of `animalId`, c. the establishments' page, d. the animals' search. */
export function serviceRequests(animalId: string): Record<string, PeerRequest> {
  return {
    a: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: `{ animals(page: {int_max_results: 50}) { data { ${SERVICE_TREE} } } }` }) },
    b: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: `query Animal($id: UUID!) { animal(id: $id) { ${SERVICE_TREE} } }`, variables: { id: animalId } }) },
    c: { method: 'GET', path: '/api/establishments' },
    d: { method: 'POST', path: '/api/animals/search', body: JSON.stringify({ str_species: 'BOVINE', str_gender: 'FEMALE' }) },
  };
}

/** The CPU spent so far by these processes (PostgreSQL's backends on this machine), in clock ticks of 10 ms: utime + stime of /proc/<pid>/stat. */
export async function ticksOf(pids: number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis: utime and stime are the 14th and 15th of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks;
}

/**
 * Runs `load` and returns, with its result, what it cost: this process's main thread
 * (`process.threadCpuUsage`, µs) and the database's client backends (the services' pools and this
 * bench's connection; ms, from /proc on this machine's server).
 */
export async function costOf<R>(em: EntityManager, load: () => Promise<R>): Promise<{ result: R; spent: NodeJS.CpuUsage; dbMs: number }> {
  const pids = (await em.execute<{ pid: number }[]>(`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`)).map((r) => r.pid);
  const ticks = await ticksOf(pids);
  const cpu = process.threadCpuUsage();
  const result = await load();
  const spent = process.threadCpuUsage(cpu);
  // Clock ticks of 10 ms (CLK_TCK 100).
  return { result, spent, dbMs: ((await ticksOf(pids)) - ticks) * 10 };
}
