/**
 * Figures for the foundation: cold start to the first 200 (PGlite and PostgreSQL), login and whoami
 * latency under autocannon. Makes its own data. Run: npm run bench [-- --pg postgres://...]
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { generateCpf } from '@brazilian-utils/brazilian-utils';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/server.js';

const pgUrl = process.argv.includes('--pg') ? process.argv[process.argv.indexOf('--pg') + 1] : process.env.DATABASE_URL;
const node = process.execPath;

async function coldStart(env: Record<string, string>, port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(node, ['dist/src/main.js'], { env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' }, stdio: 'ignore' });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/ready`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        /* not listening yet */
      }
      // A new data directory migrates and loads the county list first: minutes on a loaded 2-core machine.
      if (performance.now() - started > 300_000) throw new Error('no 200 within 300 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function load(title: string, opts: autocannon.Options): Promise<void> {
  const result = await autocannon(opts);
  const non2xx = result.non2xx + result.errors;
  console.log(`${title}: ${result.requests.total} requests, ${result.requests.average.toFixed(0)} req/s, latency median ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx/errors ${non2xx}`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  try {
    console.log(`cold start, PGlite on a new data dir: ${(await coldStart({ DATA_DIR: dir, DATABASE_URL: '' }, 4701)).toFixed(0)} ms`);
    console.log(`cold start, PGlite on the same (migrated) data dir: ${(await coldStart({ DATA_DIR: dir, DATABASE_URL: '' }, 4702)).toFixed(0)} ms`);
    if (pgUrl) console.log(`cold start, PostgreSQL (${pgUrl}): ${(await coldStart({ DATABASE_URL: pgUrl }, 4703)).toFixed(0)} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  for (const target of pgUrl ? ['PGlite', 'PostgreSQL'] : ['PGlite']) {
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: ':memory:', DATABASE_URL: target === 'PostgreSQL' ? pgUrl : undefined, LOGIN_LIMIT_PER_LOGIN: '1000000', LOGIN_LIMIT_PER_ADDRESS: '1000000', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00' });
    const service = await createService(config);
    const server = await service.listen(0);
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const email = `bench.${Date.now()}@example.com`;
    const password = 'bench-password-1';
    await service.core.users.createAdministrator(service.orm.em.fork(), { email, password, name: 'Bench', document: generateCpf() }, await (await import('../src/identity/passwords.js')).hashPassword(password));
    const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ str_email: email, str_password: password }) });
    const token = ((await login.json()) as { data: { str_access_token: string } }).data.str_access_token;
    console.log(`\n${target}:`);
    await load('  POST /api/login (argon2id each)', { url: `${url}/api/login`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ str_email: email, str_password: password }), connections: 4, duration: 5 });
    await load('  GET /api/whoami', { url: `${url}/api/whoami`, headers: { authorization: `Bearer ${token}` }, connections: 10, duration: 5 });
    await service.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
