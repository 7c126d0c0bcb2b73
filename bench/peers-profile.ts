/**
 * The service alone under one of bench:peers' four requests, asked by its owner (of the big organization), on the database a
 * `BENCH_KEEP_DATABASE=1 npm run bench:peers` kept (no data generated): for a CPU profile
 * (`node --cpu-prof dist/bench/peers-profile.js a`) or a quick req/s figure while changing things.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_peers npm run bench:peers-profile -- a|b|c|d [seconds] [owner|authority|admin, or several: owner,authority,admin]
 * Several callers take turns, PROFILE_ROUNDS rounds (1) of `seconds` each: their req/s as ratios to the last one's.
 * Prints req/s and the main thread's CPU per request (steadier than req/s on a busy machine), and
 * PostgreSQL's: its backends' CPU (utime + stime of /proc/<pid>/stat, the server on this machine) per request;
 * PROFILE_DUMP=1 also prints the first answer, to compare answers byte for byte across changes;
 * PROFILE_SQL=1 the statements (text and parameters) of the first request, for EXPLAIN in psql.
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/server.js';
import { BENCH_ENV, exitWhenDone, postJson, serve, signIn } from './support.js';
import { costOf, serviceRequests } from './peer-requests.js';

const PASSWORD = 'bench-password-1';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  // bench_peers, or the BENCH_DATABASE a run was given (e.g. wt_<name>_peers).
  if (!databaseUrl || !/\/\w*peers$/.test(databaseUrl)) throw new Error('DATABASE_URL must name the kept bench_peers database (or a kept BENCH_DATABASE ending in peers)');
  const which = process.argv[2] ?? 'a';
  const seconds = Number(process.argv[3] ?? 10);
  // Several callers (`owner,admin`): PROFILE_ROUNDS rounds of `seconds` each, in turn, each round starting one later.
  const callers = (process.argv[4] ?? 'owner').split(',');
  for (const caller of callers) if (!['owner', 'authority', 'admin'].includes(caller)) throw new Error(`which caller: owner, authority or admin, not ${caller}`);
  const rounds = Number(process.env.PROFILE_ROUNDS ?? 1);
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
    const tokenOf = async (caller: string): Promise<string> => {
      const [other] = await em.execute<{ email: string; organization_id: string | null }[]>(
        caller === 'authority'
          ? `select u.str_email as email, null as organization_id from "user" u where u.str_name = 'Bench Owner' and u.str_type = 'AUTHORITY'`
          : `select u.str_email as email, m.organization_id from "user" u join membership m on m.user_id = u.id where u.str_name = 'Bench Owner' and u.bl_admin`,
      );
      const who = caller === 'owner' ? owner! : other!;
      return who.organization_id
        ? signIn(url, who.email, PASSWORD, who.organization_id)
        : (await postJson<{ data: { str_access_token: string } }>(url, '/api/login', { str_email: who.email, str_password: PASSWORD })).json.data.str_access_token;
    };
    const tokens = new Map<string, string>();
    for (const caller of callers) tokens.set(caller, await tokenOf(caller));
    const requests = serviceRequests(animal!.id);
    const request = requests[which];
    if (!request) throw new Error(`which request: a, b, c or d, not ${which}`);
    const headersOf = (caller: string) => ({ authorization: `Bearer ${tokens.get(caller)!}`, 'content-type': 'application/json' });
    const headers = headersOf(callers[0]!);
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
    const load = (caller: string, duration: number) =>
      autocannon({ url: url + request.path, method: request.method, headers: headersOf(caller), body: request.body, connections: 10, duration, workers: 1 });
    for (const caller of callers) await load(caller, 2);
    const totals = new Map(callers.map((c) => [c, { requests: 0, seconds: 0, cpu: 0, user: 0, db: 0, rps: [] as number[], cpus: [] as number[], dbs: [] as number[] }]));
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < callers.length; k++) {
        const caller = callers[(k + round) % callers.length]!;
        // The main thread's CPU per request: what the service spends, whatever else the machine runs.
        const { result: r, spent, dbMs: db } = await costOf(em, () => load(caller, seconds));
        const t = totals.get(caller)!;
        t.requests += r.requests.total;
        t.seconds += r.duration;
        t.cpu += spent.user + spent.system;
        t.user += spent.user;
        t.rps.push(r.requests.total / r.duration);
        t.cpus.push((spent.user + spent.system) / 1000 / Math.max(1, r.requests.total));
        t.db += db;
        t.dbs.push(db / Math.max(1, r.requests.total));
        if (r.non2xx) console.log(`${which} ${caller}: non-2xx ${r.non2xx}`);
      }
    }
    const last = totals.get(callers.at(-1)!)!;
    for (const [caller, t] of totals) {
      const ratio = callers.length > 1 ? `, ×${(t.requests / t.seconds / (last.requests / last.seconds)).toFixed(2)} of ${callers.at(-1)}'s` : '';
      console.log(
        `${which} ${caller}: ${(t.requests / t.seconds).toFixed(1)} req/s [${t.rps.map((x) => x.toFixed(0)).join(', ')}]${ratio}, ` +
          `main thread ${(t.cpu / 1000 / t.requests).toFixed(3)} ms CPU per request (user ${(t.user / 1000 / t.requests).toFixed(3)}; rounds ${t.cpus.map((x) => x.toFixed(3)).join(', ')}; least ${Math.min(...t.cpus).toFixed(3)}), ` +
          `PostgreSQL ${(t.db / t.requests).toFixed(3)} ms CPU per request (rounds ${t.dbs.map((x) => x.toFixed(3)).join(', ')}), load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  } finally {
    await service.close();
  }
}

exitWhenDone(main);
