/**
 * The README's first hour, run as written: its start line's settings on an empty database (a
 * scratch database on PostgreSQL, a fresh in-memory PGlite otherwise: no test image, so the
 * migrations and the county list load as on a fresh clone), then its shell block pasted into bash
 * with `localhost:4000` pointed at this service. Editing the README's commands edits this test.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';
import { startApp, type Reply, type TestApp } from './helpers/app.js';
import { scratchDatabase, type ScratchDatabase } from './helpers/scratch-db.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');

/** The fenced `sh` blocks of the section under `## <title>`. */
function shellBlocks(title: string): string[] {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

test('the two commands are the whole set-up, and npm has them', () => {
  const [commands] = shellBlocks('The two commands');
  expect(commands).toMatch(/^npm install && npm start\b/m);
  expect(commands).toMatch(/^npm install && npm test\b/m);
  const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.start).toBeDefined();
  expect(scripts.test).toBeDefined();
});

test('no command of the README or operations runs the machine\'s node: npm, or the pinned node_modules/.bin/node', () => {
  // Node 20 crashes importing argon2 (exit 139): a pasted `node ...` must not reach it.
  const bare: string[] = [];
  for (const file of ['README.md', 'docs/operations.md']) {
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      for (const line of block!.split('\n')) if (/(^|[\s|;&(])node\s/.test(line.replace(/#.*$/, ''))) bare.push(`${file}: ${line.trim()}`);
    }
  }
  expect(bare).toEqual([]);
  const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.cli).toMatch(/build:ts && node dist\/src\/cli\.js$/);
});

test('the configuration table names every variable src/config.ts reads, with its default', () => {
  const start = README.indexOf('\n## Configuration (environment)\n');
  const rows = README.slice(start, README.indexOf('\n## ', start + 1)).split('\n').filter((l) => l.startsWith('| `'));
  const defaults = loadConfig({});
  const named: string[] = [];
  const wrong: string[] = [];
  for (const row of rows) {
    const [names, given] = row.split(' | ').map((c) => c.replace(/^\| /, ''));
    const variables = [...names!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!);
    named.push(...variables);
    // "`a` / `b`": one default per variable; a backticked one must be what the code defaults to.
    const values = variables.length > 1 ? given!.split(' / ') : [given!];
    variables.forEach((v, i) => {
      const literal = /^`([^`]*)`$/.exec(values[i]?.trim() ?? '')?.[1];
      if (literal !== undefined && String((defaults as Record<string, unknown>)[v]) !== literal) wrong.push(`${v}: README ${literal}, code ${String((defaults as Record<string, unknown>)[v])}`);
    });
  }
  expect([...named].sort()).toEqual([...CONFIG_VARIABLES].sort());
  expect(wrong).toEqual([]);
});

describe('the first hour', () => {
  const [start, calls] = shellBlocks('The first hour');
  let app: TestApp;
  let scratch: ScratchDatabase | undefined;

  beforeAll(async () => {
    // `VAR=value ... npm start`: the settings the README starts the service with.
    const startLine = start!.split('\n').find((l) => /\bnpm start$/.test(l.trim()))!;
    expect(startLine).toBeDefined();
    const env = Object.fromEntries([...startLine.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(env)).toEqual(['ADMIN_EMAIL', 'ADMIN_PASSWORD']);
    if (process.env.DATABASE_URL) scratch = await scratchDatabase('readme_first_hour');
    // ADMIN_EMAIL keeps the helper from starting this one from its migrated image: an empty database.
    app = await startApp({ ...env, ...(scratch ? { DATABASE_URL: scratch.url } : {}) });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await scratch?.drop();
  });

  test('the start block is the install and the start, nothing else to run before', () => {
    const commands = start!.split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter(Boolean);
    expect(commands).toEqual(['npm install', expect.stringMatching(/^ADMIN_EMAIL=\S+ ADMIN_PASSWORD=\S+ npm start$/)]);
  });

  (has('curl') && has('bash') ? test : test.skip)(
    'every command of the shell block runs, in order, and each answer is the one the README promises',
    async () => {
      expect(calls).toBeDefined();
      // Every call goes to the service the README started: all of them are redirected here.
      expect(calls!.match(/\bcurl\b/g)!.length).toBe(calls!.match(/\bcurl [^\n]*localhost:4000\//g)!.length);
      const script = `set -euo pipefail\n${calls!.replaceAll('localhost:4000', app.url.replace(/^http:\/\//, ''))}\nprintf 'ORG_ID=%s ESTABLISHMENT_ID=%s\\n' "$ORG_ID" "$ESTABLISHMENT_ID"\n`;
      // Not execFileSync: the service answers from this process's event loop.
      const { stdout: out } = await promisify(execFile)('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
      // Apollo ends its answer with a newline and the README's `; echo` adds one: blank lines are no answer.
      const lines = out.trim().split('\n').filter((l) => l.trim() !== '');
      const ids = Object.fromEntries([...lines.pop()!.matchAll(/(\w+)=(\S*)/g)].map((m) => [m[1]!, m[2]!]));
      expect(ids.ORG_ID).toMatch(/^[0-9a-f-]{36}$/);
      expect(ids.ESTABLISHMENT_ID).toMatch(/^[0-9a-f-]{36}$/);
      const answers = lines.map((l) => JSON.parse(l) as Reply['body']);
      for (const a of answers) expect(a).not.toHaveProperty('error');
      expect(answers.find((a) => a.data?.str_email)?.data.str_email).toBe('admin@example.com');
      // The county list loaded by itself at the first start.
      const counties = answers.find((a) => Array.isArray(a.data) && a.data[0]?.str_ibge_code);
      expect(counties?.data.map((c: { str_ibge_code: string; str_name: string }) => [c.str_ibge_code, c.str_name])).toContainEqual(['3550308', 'São Paulo']);
      expect(counties?.meta.int_total_results).toBeGreaterThan(0);
      const establishment = answers.find((a) => a.data?.id === ids.ESTABLISHMENT_ID);
      expect(establishment?.data).toMatchObject({ str_name: 'Fazenda Boa Vista', str_type: 'FARM', organization_id: ids.ORG_ID });
      const graphql = answers.find((a) => a.data?.establishment);
      expect(graphql?.data.establishment).toMatchObject({ id: ids.ESTABLISHMENT_ID, county: { str_name: 'São Paulo', str_federative_unit: 'SP' } });
    },
    120_000,
  );
});
