/**
 * An entry point started with a Node older than the project's says so and exits 1, where it used
 * to crash with a segmentation fault (exit 139) and no message. Needs an older `node` on the PATH
 * (the machines' system Node); skipped, saying so, where there is none.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const guard = fileURLToPath(new URL('../src/require-node.ts', import.meta.url));

/** A `node` on the PATH (outside node_modules) older than 24, if any. */
function olderNode(): string | null {
  const path = (process.env.PATH ?? '').split(':').filter((d) => d && !d.includes('node_modules'));
  for (const dir of path) {
    const candidate = join(dir, 'node');
    try {
      const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
      if (Number(version.replace(/^v/, '').split('.')[0]) < 24) return candidate;
    } catch {
      /* none here */
    }
  }
  return null;
}

const old = olderNode();

test('the entry points import the guard first', () => {
  for (const entry of ['main.ts', 'cli.ts']) {
    const first = readFileSync(fileURLToPath(new URL(`../src/${entry}`, import.meta.url)), 'utf8').split('\n')[0];
    expect(first).toBe("import './require-node.js';");
  }
});

(old ? test : test.skip)(`an older Node is told which Node to use and exits 1 (${old ? old : 'skipped: no Node older than 24 on the PATH'})`, () => {
  // The guard is plain JavaScript in a .ts file: run it as a module with the older Node.
  const dir = mkdtempSync(join(tmpdir(), 'require-node-'));
  try {
    copyFileSync(guard, join(dir, 'require-node.mjs'));
    const run = spawnSync(old!, [join(dir, 'require-node.mjs')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/needs Node 24/);
    expect(run.stderr).toContain('node_modules/.bin/node');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the pinned Node passes the guard', () => {
  const run = spawnSync(process.execPath, ['--experimental-strip-types', guard], { encoding: 'utf8' });
  expect({ status: run.status, stderr: run.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '') }).toEqual({ status: 0, stderr: '' });
});
