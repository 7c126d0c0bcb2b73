import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

/**
 * The service built as `npm start` runs it (dist/), once a run (TEST_RUN_ID, global-setup.ts) by
 * the first file that needs it: jest's workers run files side by side, and a second build would
 * rewrite dist/ under a process another file started. The others wait for the first's build.
 */
export async function buildService(): Promise<void> {
  const run = process.env.TEST_RUN_ID;
  const build = () => execFileSync(NODE, ['node_modules/typescript7/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
  if (!run) return void build();
  mkdirSync(`${ROOT}dist`, { recursive: true });
  const stamp = `${ROOT}dist/.test-build`;
  const lock = `${ROOT}dist/.test-build-${run}.lock`;
  const built = () => {
    const said = (() => {
      try {
        return readFileSync(stamp, 'utf8');
      } catch {
        return '';
      }
    })();
    if (said.startsWith(`failed ${run}:`)) throw new Error(`the build of dist/ failed in another file: ${said}`);
    return said === `built ${run}`;
  };
  if (built()) return;
  try {
    mkdirSync(lock);
  } catch {
    for (const until = Date.now() + 180_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) if (built()) return;
    throw new Error('the build of dist/ by another file did not end within 180 s');
  }
  try {
    if (built()) return;
    try {
      build();
    } catch (err) {
      writeFileSync(stamp, `failed ${run}: ${(err as Error).message}`);
      throw err;
    }
    writeFileSync(stamp, `built ${run}`);
  } finally {
    rmdirSync(lock);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ChildService {
  url: string;
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process ended. */
  exited: Promise<number | string>;
}

/** `node dist/src/main.js` in a process of its own, on the suite's database, ready when it logs "listening". */
export async function startChild(env: Record<string, string> = {}): Promise<ChildService> {
  const port = await freePort();
  const child = spawn(NODE, ['dist/src/main.js'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: ':memory:', JWT_SECRET: 'test-secret-test-secret-test-secret-0123', LOGIN_LIMIT_PER_ADDRESS: '100000', LOGIN_LIMIT_PER_LOGIN: '1000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`the service exited (${code}) before listening:\n${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child, exited };
}
