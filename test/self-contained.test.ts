/**
 * A plain clone runs, tests and documents itself: nothing reads or links a path outside the
 * repository (the sibling `../shared` the project was started from). Imports of the in-repo
 * `src/shared` and `graphql/shared` (`'../shared/errors.js'`) resolve inside and are fine.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIRS = ['src', 'graphql', 'rest', 'test', 'bench', 'docs'];
const FILES = ['package.json', 'README.md', 'Dockerfile', 'docker-compose.yml', '.ci/run'];

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'artifacts') out.push(...walk(path));
    } else if (/\.(ts|js|md|json|graphql|yml|sh)$/.test(name) || !name.includes('.')) out.push(path);
  }
  return out;
}

/** Every `../`-relative path a file names, and where it lands: from the file's folder, and (for commands in docs) from the root. */
function escapes(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*/g)) {
    const inside = (p: string) => !relative(ROOT, p).startsWith('..');
    // From the file's folder; a source file also from its build in dist/, a document also from the root (commands).
    const other = /\.(ts|js)$/.test(file) ? resolve(ROOT, 'dist', relative(ROOT, dirname(file)), m[0]) : resolve(ROOT, m[0]);
    if (!inside(resolve(dirname(file), m[0])) && !(inside(other) && existsSync(other))) found.push(`${relative(ROOT, file)}: ${m[0]}`);
  }
  return found;
}

test('no file of the repository names a path outside it', () => {
  const files = [...DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => walk(join(ROOT, d))), ...FILES.map((f) => join(ROOT, f)).filter(existsSync)];
  expect(files.length).toBeGreaterThan(100);
  const found = files.filter((f) => f !== fileURLToPath(import.meta.url)).flatMap((f) => escapes(f, readFileSync(f, 'utf8')));
  expect(found).toEqual([]);
});

test('the README links files that exist in the repository', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
  expect(links.length).toBeGreaterThan(0);
  expect(links.filter((l) => !existsSync(join(ROOT, l)))).toEqual([]);
});

test('what the tests and the import read lives in the repository, committed (not only on this disk)', () => {
  const files = ['docs/interface.md', 'docs/data/municipios.csv', 'docs/data/estados.csv', 'docs/data/LICENSE-municipios'];
  for (const f of files) expect(existsSync(join(ROOT, f))).toBe(true);
  // A file .gitignore hides is on the disk that wrote it and in no clone.
  if (existsSync(join(ROOT, '.git'))) expect(execFileSync('git', ['ls-files', '--', ...files], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').sort()).toEqual([...files].sort());
});
