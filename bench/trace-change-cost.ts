/**
 * What the change log's triggers (Migration0071TraceChanges) add to a 5,000-head move, A/B in
 * backend CPU and wall time: the stays' statements of one (close the herd's open stays with an
 * egress, as src/animals/stays.ts's closeStays; the egress turned FINISHED; their new open stays
 * inserted, as openStays) on a copy of a bench herd, with the triggers `on` or `off` (disabled in the
 * transaction), rolled back. Arms alternated (A B B A …) ROUNDS times, a different herd each round.
 * Run: npm run build:ts && ROUNDS=3 DATABASE_URL=postgres://postgres@127.0.0.1:5432/<copy> node_modules/.bin/node dist/bench/trace-change-cost.js
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { ticksOf } from './peer-requests.js';

const rounds = Number(process.env.ROUNDS ?? 3);
const HEAD = Number(process.env.HEAD ?? 5000);
const TRIGGERS = ['animal_stay:trace_change_stay_insert', 'animal_stay:trace_change_stay_update', 'animals_egress:trace_change_egress_status'];

async function once(arm: 'on' | 'off', round: number): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, options: '-c jit=off' });
  await client.connect();
  try {
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    await client.query('begin');
    if (arm === 'off') for (const t of TRIGGERS) await client.query(`alter table ${t.split(':')[0]} disable trigger ${t.split(':')[1]}`);
    const herd = (await client.query<{ id: string }>(`select animal_id as id from animal_stay_current order by animal_id offset $1 limit $2`, [round * HEAD, HEAD])).rows.map((r) => r.id);
    const egress = (await client.query<{ id: string }>(`select id from animals_egress order by id offset $1 limit 1`, [round])).rows[0]!.id;
    const [to] = (await client.query<{ unit: string; est: string }>(`select id as unit, establishment_id as est from control_unit order by id offset $1 limit 1`, [round])).rows;
    await client.query(`update animals_egress set str_status = 'OPEN' where id = $1`, [egress]);
    const steps: [string, string, unknown[]][] = [
      ['close', `update animal_stay s set ts_to = now(), animals_egress_id = $1 from unnest($2::uuid[]) as a(id) where s.animal_id = a.id and s.ts_to is null and coalesce(s.ts_to, 'infinity'::timestamptz) = 'infinity'`, [egress, herd]],
      ['finish', `update animals_egress set str_status = 'FINISHED' where id = $1`, [egress]],
      ['open', `insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) select a.id, $1, $2, now() from unnest($3::uuid[]) as a(id)`, [to!.unit, to!.est, herd]],
    ];
    const parts: string[] = [];
    let total = 0;
    let wall = 0;
    for (const [name, sql, params] of steps) {
      const t0 = await ticksOf([pid]);
      const start = performance.now();
      const r = await client.query(sql, params);
      const ms = performance.now() - start;
      const cpu = ((await ticksOf([pid])) - t0) * 10;
      total += cpu;
      wall += ms;
      parts.push(`${name} ${r.rowCount} rows ${ms.toFixed(0)} ms (cpu ${cpu})`);
    }
    const logged = (await client.query<{ n: number }>(`select count(*)::int as n from trace_change where xid = pg_current_xact_id()`)).rows[0]!.n;
    console.log(`${arm}: ${wall.toFixed(0)} ms, backend CPU ${total} ms [${parts.join('; ')}] change rows ${logged}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    await client.query('rollback');
  } finally {
    await client.end();
  }
}

for (let round = 0; round < rounds; round++) {
  const arms: ('on' | 'off')[] = round % 2 ? ['off', 'on'] : ['on', 'off'];
  for (const arm of arms) await once(arm, round);
}
