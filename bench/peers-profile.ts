/**
 * The service alone under one of bench:peers' four requests, asked by its owner (of the big organization), on the database a
 * `BENCH_KEEP_DATABASE=1 npm run bench:peers` kept (no data generated): for a CPU profile
 * (`node --cpu-prof dist/bench/peers-profile.js a`) or a quick req/s figure while changing things.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_peers npm run bench:peers-profile -- a|b|c|d [seconds] [owner|authority|admin]
 * Prints req/s and the main thread's CPU per request (steadier than req/s on a busy machine);
 * PROFILE_DUMP=1 also prints the first answer, to compare answers byte for byte across changes;
 * PROFILE_SQL=1 the statements (text and parameters) of the first request, for EXPLAIN in psql.
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/server.js';
import { BENCH_ENV, exitWhenDone, postJson, serve, signIn } from './support.js';

const PASSWORD = 'bench-password-1';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  // bench_peers, or the BENCH_DATABASE a run was given (e.g. wt_<name>_peers).
  if (!databaseUrl || !/\/\w*peers$/.test(databaseUrl)) throw new Error('DATABASE_URL must name the kept bench_peers database (or a kept BENCH_DATABASE ending in peers)');
  const which = process.argv[2] ?? 'a';
  const seconds = Number(process.argv[3] ?? 10);
  const caller = process.argv[4] ?? 'owner';
  if (!['owner', 'authority', 'admin'].includes(caller)) throw new Error(`which caller: owner, authority or admin, not ${caller}`);
  const service = await createService(loadConfig({ ...BENCH_ENV, DATABASE_URL: databaseUrl }));
  try {
    const em = service.orm.em.fork();
    const [owner] = await em.execute<{ email: string; organization_id: string }[]>(
      `select u.str_email as email, m.organization_id from "user" u join membership m on m.user_id = u.id where u.str_name = 'Bench Owner' and m.str_role = 'OWNER'
        order by (select count(*) from establishment e where e.organization_id = m.organization_id) desc limit 1`,
    );
    const [animal] = await em.execute<{ id: string }[]>(
      `select a.id from animal a join control_unit cu on cu.id = a.last_control_unit_id join establishment e on e.id = cu.establishment_id
        where e.organization_id = ? order by a.ts_created_at desc, a.id desc limit 1 offset 1000`,
      [owner!.organization_id],
    );
    const url = await serve(service);
    // The bench's callers: the big organization's owner, the authority of ZA (no organization), the administrator.
    const [other] = await em.execute<{ email: string; organization_id: string | null }[]>(
      caller === 'authority'
        ? `select u.str_email as email, null as organization_id from "user" u where u.str_name = 'Bench Owner' and u.str_type = 'AUTHORITY'`
        : `select u.str_email as email, m.organization_id from "user" u join membership m on m.user_id = u.id where u.str_name = 'Bench Owner' and u.bl_admin`,
    );
    const who = caller === 'owner' ? owner! : other!;
    const token = who.organization_id
      ? await signIn(url, who.email, PASSWORD, who.organization_id)
      : (await postJson<{ data: { str_access_token: string } }>(url, '/api/login', { str_email: who.email, str_password: PASSWORD })).json.data.str_access_token;
    const tree = 'id str_species current_tag { id str_code last_control_unit { id str_name establishment { id str_name county { id str_name } } } }';
    const requests: Record<string, { method: 'GET' | 'POST'; path: string; body?: string }> = {
      a: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: `{ animals(page: {int_max_results: 50}) { data { ${tree} } } }` }) },
      b: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: `query Animal($id: UUID!) { animal(id: $id) { ${tree} } }`, variables: { id: animal!.id } }) },
      c: { method: 'GET', path: '/api/establishments' },
      d: { method: 'POST', path: '/api/animals/search', body: JSON.stringify({ str_species: 'BOVINE', str_gender: 'FEMALE' }) },
    };
    const request = requests[which];
    if (!request) throw new Error(`which request: a, b, c or d, not ${which}`);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const sent: unknown[][] = [];
    const query = pg.Client.prototype.query;
    if (process.env.PROFILE_SQL) {
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const q = args[0] as { text?: string; values?: unknown[] };
        if (q?.text) sent.push([q.text, q.values]);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
    }
    const first = await fetch(url + request.path, { method: request.method, headers, body: request.body });
    pg.Client.prototype.query = query;
    for (const [text, values] of sent) console.log(`-- statement\n${String(text)};\n-- parameters ${JSON.stringify(values)}`);
    const text = await first.text();
    console.log(`${which}: ${first.status}, ${text.length} bytes, ${first.headers.get('x-sql-statements')} statements`);
    if (process.env.PROFILE_DUMP) console.log(text);
    // 0 seconds: the first request alone (with PROFILE_SQL, its statements), no load.
    if (seconds === 0) return;
    const load = (duration: number) => autocannon({ url: url + request.path, method: request.method, headers, body: request.body, connections: 10, duration, workers: 1 });
    await load(2);
    // The main thread's CPU per request: what the service spends, whatever else the machine runs.
    const cpu = process.threadCpuUsage();
    const r = await load(seconds);
    const spent = process.threadCpuUsage(cpu);
    const perRequest = (spent.user + spent.system) / 1000 / r.requests.total;
    console.log(
      `${which}: ${(r.requests.total / r.duration).toFixed(1)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}, ` +
        `main thread ${perRequest.toFixed(2)} ms CPU per request (user ${(spent.user / 1000 / r.requests.total).toFixed(2)})`,
    );
  } finally {
    await service.close();
  }
}

exitWhenDone(main);
