/**
 * An A/B of two builds of the service under one of bench:peers' requests, both in this one process
 * and loaded in turn (A B, then B A, ...), so that both meet the same machine: on the shared 2-core
 * machine the load moves by ×2 between processes run one after the other, and a few percent of CPU
 * per request drowned in it. Each build is a copy of `dist` at the repository's root (its files find
 * rest/ and public/ one level up, as `dist`'s do; `dist-*` is ignored by git and eslint), e.g. `cp -r dist dist-a`, then change, build, and
 * `cp -r dist dist-b`. Both services use the kept bench:peers database (as bench:peers-profile does)
 * and must give the same answer to the request, byte for byte, else it stops.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_peers node_modules/.bin/node dist/bench/peers-ab.js dist-a dist-b [a|b] [rounds] [seconds]
 * Prints each build's main-thread CPU per request (the thread both services share; only one is
 * loaded at a time) and PostgreSQL's (its backends' utime+stime from /proc), medians over rounds,
 * and B's main thread against A's per round: the figure to judge a change by.
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createService as CreateService, Service } from '../src/server.js';
import { BENCH_ENV, exitWhenDone, postJson, serve } from './support.js';
import { costOf, serviceRequests } from './peer-requests.js';
import { medianOf as median } from './peers.bench.js';

const PASSWORD = 'bench-password-1';

interface Arm {
  dir: string;
  service: Service;
  url: string;
  cpu: number[];
  db: number[];
}



async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl || !/\/\w*peers$/.test(databaseUrl)) throw new Error('DATABASE_URL must name the kept bench_peers database (or a kept BENCH_DATABASE ending in peers)');
  const [dirA, dirB] = process.argv.slice(2, 4);
  if (!dirA || !dirB) throw new Error('two builds: node dist/bench/peers-ab.js dist-a dist-b [a|b] [rounds] [seconds]');
  const which = process.argv[4] ?? 'b';
  const rounds = Number(process.argv[5] ?? 10);
  const seconds = Number(process.argv[6] ?? 3);
  const arms: Arm[] = [];
  for (const dir of [dirA, dirB]) {
    const root = pathToFileURL(resolve(dir)).href;
    const { loadConfig } = (await import(`${root}/src/config.js`)) as { loadConfig: typeof LoadConfig };
    const { createService } = (await import(`${root}/src/server.js`)) as { createService: typeof CreateService };
    const service = await createService(loadConfig({ ...BENCH_ENV, DATABASE_URL: databaseUrl }));
    arms.push({ dir, service, url: await serve(service), cpu: [], db: [] });
  }
  try {
    const em = arms[0]!.service.orm.em.fork();
    const [admin] = await em.execute<{ email: string }[]>(`select u.str_email as email from "user" u where u.str_name = 'Bench Owner' and u.bl_admin`);
    const [owner] = await em.execute<{ organization_id: string }[]>(
      `select m.organization_id from "user" u join membership m on m.user_id = u.id where u.str_name = 'Bench Owner' and m.str_role = 'OWNER'
        order by (select count(*) from establishment e where e.organization_id = m.organization_id) desc limit 1`,
    );
    const [animal] = await em.execute<{ id: string }[]>(
      `select a.id from animal a join control_unit cu on cu.id = a.last_control_unit_id join establishment e on e.id = cu.establishment_id
        where e.organization_id = ? order by a.ts_created_at desc, a.id desc limit 1 offset 1000`,
      [owner!.organization_id],
    );
    const token = (await postJson<{ data: { str_access_token: string } }>(arms[0]!.url, '/api/login', { str_email: admin!.email, str_password: PASSWORD })).json.data.str_access_token;
    const requests = serviceRequests(animal!.id);
    const request = requests[which];
    if (!request) throw new Error(`which request: a, b, c or d, not ${which}`);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const answers: string[] = [];
    for (const arm of arms) answers.push(await (await fetch(arm.url + request.path, { method: request.method, headers, body: request.body })).text());
    // The request id and any timing aside, the answers are the data: they must be the same.
    if (answers[0] !== answers[1]) throw new Error(`the two builds answer differently:\n${answers[0]}\n${answers[1]}`);
    const load = (arm: Arm, duration: number) =>
      autocannon({ url: arm.url + request.path, method: request.method, headers, body: request.body, connections: 10, duration, workers: 1 });
    for (const arm of arms) await load(arm, 3);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const arm of round % 2 ? [...arms].reverse() : arms) {
        const { result: r, spent, dbMs: db } = await costOf(em, () => load(arm, seconds));
        if (r.non2xx) throw new Error(`${arm.dir}: non-2xx ${r.non2xx}`);
        arm.cpu.push((spent.user + spent.system) / 1000 / Math.max(1, r.requests.total));
        arm.db.push(db / Math.max(1, r.requests.total));
      }
      loads.push(loadavg()[0]!);
    }
    for (const arm of arms) {
      console.log(
        `${which} ${arm.dir}: main thread median ${median(arm.cpu).toFixed(3)} ms CPU per request [${arm.cpu.map((x) => x.toFixed(3)).join(' ')}], ` +
          `PostgreSQL median ${median(arm.db).toFixed(3)} ms`,
      );
    }
    const ratios = arms[1]!.cpu.map((x, i) => x / arms[0]!.cpu[i]!);
    console.log(`${which} ${dirB}/${dirA}, main thread per round: median ×${median(ratios).toFixed(3)} [${ratios.map((x) => x.toFixed(2)).join(' ')}]; load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
  } finally {
    for (const arm of arms) await arm.service.close();
  }
}

exitWhenDone(main);
