/**
 * The Dockerfile and docker-compose.yml. Where a Docker engine answers (DOCKER_BUILD_TEST=1 and
 * `docker info` succeeds) the image is built; everywhere else the files are read and held to what
 * they must do: a build stage with the dev dependencies, a runtime with the production ones as a
 * non-root user, and a compose file that builds that image and runs it against PostgreSQL 15 with
 * healthchecks and a volume.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');
/** Instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages: { name: string; from: string; lines: string[] }[] = [];
for (const line of instructions) {
  const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
  if (from) stages.push({ from: from[1]!, name: from[2] ?? '', lines: [] });
  else stages.at(-1)?.lines.push(line);
}

describe('Dockerfile', () => {
  test('builds with the dev dependencies and the pinned Node', () => {
    const build = stages.find((s) => s.name === 'build')!;
    expect(build).toBeDefined();
    const pinned = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).devDependencies.node as string;
    expect(dockerfile).toContain(`ARG NODE_VERSION=${pinned}`);
    expect(build.from).toBe('node:${NODE_VERSION}-bookworm-slim');
    const install = build.lines.find((l) => /^RUN npm install\b/.test(l))!;
    expect(install).not.toMatch(/--omit=dev|--production|--ignore-scripts/); // TypeScript, esbuild and the IDE's packages are dev dependencies; prepare bundles the IDE
    expect(build.lines.some((l) => /^RUN npm run build(:ts)?\b/.test(l))).toBe(true);
    expect(build.lines.some((l) => /^COPY web\b/.test(l))).toBe(true); // prepare runs web/build.mjs during the install
    // ...and compiles what tsconfig.build.json includes: every folder of it is there before the install.
    const beforeInstall = build.lines.slice(0, build.lines.indexOf(install)).filter((l) => l.startsWith('COPY ')).map((l) => l.split(/\s+/)[1]);
    const compiled = (JSON.parse(readFileSync(`${ROOT}tsconfig.build.json`, 'utf8')) as { include: string[] }).include;
    expect(beforeInstall).toEqual(expect.arrayContaining(['tsconfig.json', ...compiled]));
  });

  test('runs with the production dependencies as a non-root user, with what it reads at run time', () => {
    const runtime = stages.at(-1)!;
    expect(runtime.name).toBe('runtime');
    expect(runtime.lines.some((l) => /^RUN npm install .*--omit=dev/.test(l))).toBe(true);
    expect(runtime.lines).toContain('USER node');
    expect(runtime.lines.some((l) => /^ENV NODE_ENV=production/.test(l))).toBe(true);
    const copied = runtime.lines.filter((l) => l.startsWith('COPY --from=build')).map((l) => l.split(/\s+/)[2]);
    // dist (the code), public (the IDE and docs), rest/operations (read by rest/operations.ts at start).
    expect(copied).toEqual(expect.arrayContaining(['/app/dist', '/app/public', '/app/rest/operations']));
    expect(runtime.lines.some((l) => l.startsWith('HEALTHCHECK') && l.includes('/ready'))).toBe(true);
    expect(runtime.lines.at(-1)).toBe('CMD ["node", "dist/src/main.js"]');
  });

  test('every file the runtime reads from the source tree is copied', () => {
    // rest/operations.ts reads its documents beside the build, the migrations the trace's SQL functions (src/trace/sql/trace-sql.ts); nothing else in src, graphql or rest reads the tree.
    for (const path of ['rest/operations', 'docs/data', 'src/trace/sql']) {
      expect(existsSync(`${ROOT}${path}`)).toBe(true);
      expect(dockerfile).toContain(`/app/${path} ./${path}`);
    }
  });

  const engine = (() => {
    if (process.env.DOCKER_BUILD_TEST !== '1') return false;
    try {
      execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
      return true;
    } catch {
      return false;
    }
  })();
  (engine ? test : test.skip)(`the image builds (${engine ? 'Docker engine found' : 'skipped: set DOCKER_BUILD_TEST=1 where a Docker engine runs'})`, () => {
    execFileSync('docker', ['build', '--target', 'runtime', '-t', 'livestock-traceability:test', ROOT], { stdio: 'inherit', timeout: 1_500_000 });
  }, 1_600_000);
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(`${ROOT}docker-compose.yml`, 'utf8')) as {
    services: Record<string, { image?: string; build?: { context: string; target?: string } | string; environment?: Record<string, string>; healthcheck?: { test: string[] }; depends_on?: Record<string, { condition: string }>; volumes?: string[]; ports?: string[] }>;
    volumes: Record<string, unknown>;
  };

  test('PostgreSQL 15 with a healthcheck and a named volume', () => {
    const db = compose.services.db!;
    expect(db.image).toBe('postgres:15');
    expect(db.healthcheck?.test.join(' ')).toContain('pg_isready');
    const volume = db.volumes?.[0]?.split(':')[0];
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  test('the service is built from the Dockerfile (no install inside a stock node image), waits for the database, and has a healthcheck', () => {
    const app = compose.services.app!;
    expect(app.image).toBeUndefined();
    expect(app.build).toEqual({ context: '.', target: 'runtime' });
    expect(app.depends_on?.db?.condition).toBe('service_healthy');
    expect(app.healthcheck?.test.join(' ')).toContain('/ready');
    expect(app.environment?.DATABASE_URL).toMatch(/@db:5432\//);
    expect(app.environment?.NODE_ENV).toBe('production');
    // production needs a JWT_SECRET of 32+ characters: the default one must pass the config's check.
    const secret = /:-(.*)\}$/.exec(app.environment!.JWT_SECRET!)?.[1] ?? '';
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(app.ports).toContain('4000:4000');
  });

  test('production needs a mailer: the trial sends to its own Mailpit, whose page shows the mails', () => {
    const app = compose.services.app!;
    expect(app.environment?.SMTP_URL).toBe('${SMTP_URL:-smtp://mail:1025}');
    expect(compose.services.mail?.image).toMatch(/^axllent\/mailpit:/);
    expect(compose.services.mail?.ports).toContain('8025:8025');
    expect(app.depends_on?.mail).toBeDefined();
  });

  test("attachments outlive the container: the service's DATA_DIR on a named volume", () => {
    const app = compose.services.app!;
    const dataDir = /ENV[^\n]*DATA_DIR=(\S+)/.exec(dockerfile.replace(/\\\n/g, ' '))?.[1];
    expect(dataDir).toBe('/app/data');
    const mount = app.volumes?.find((v) => v.split(':')[1] === dataDir);
    expect(mount).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(mount!.split(':')[0]);
    expect(app.environment?.ATTACHMENTS_DIR).toBeUndefined(); // so it stays <DATA_DIR>/attachments
  });
});
