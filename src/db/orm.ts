import { mkdirSync, readFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { MikroORM as PgORM } from '@mikro-orm/postgresql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { Migrator } from '@mikro-orm/migrations';
import type { EventSubscriber } from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import type { Config } from '../config.js';
import { entities } from './entities.js';
import { migrationsList } from './migrations/index.js';
import { requestScope, unscopedWrites } from '../shared/request-scope.js';
import { escapeLiteral, pgDb, pgliteDb, type Db } from './sql.js';
import { localWrites, statementDone } from './local-writes.js';

export { escapeLiteral };

export type Orm = PgORM;
export type Em = EntityManager;


function common() {
  return {
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    forceUtcTimezone: true,
    allowGlobalContext: false,
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    onQuery: (sql: string) => {
      const scope = requestScope.getStore();
      if (scope) {
        scope.statements++;
        scope.texts?.push(sql);
      }
      return sql;
    },
    debug: false,
  };
}

const commitsMarkTheRequest: EventSubscriber = {
  afterTransactionCommit(args) {
    if (args.transaction?.savepointName) return;
    const scope = requestScope.getStore();
    if (!scope) unscopedWrites.wrote = true;
    else if (scope.reader) scope.reader.wrote = true;
  },
};

/** Commits counted once done (src/db/local-writes.ts). */
const commitsCounted: EventSubscriber = {
  afterTransactionCommit() {
    localWrites.done();
  },
};

/** Statements run outside a transaction counted once done, as commits (src/db/local-writes.ts). */
function countingWrites(orm: Orm): Orm {
  const connection = orm.em.getConnection() as unknown as { execute: (query: unknown, params?: unknown, method?: unknown, ctx?: unknown, ...rest: unknown[]) => Promise<unknown> };
  const execute = connection.execute.bind(connection);
  connection.execute = async (query, params, method, ctx, ...rest) => {
    try {
      return await execute(query, params, method, ctx, ...rest);
    } finally {
      statementDone(query, ctx !== undefined && ctx !== null);
    }
  };
  return orm;
}

function withFastLiterals(orm: Orm): Orm {
  Object.assign(orm.em.getPlatform(), { escapeLiteral });
  return orm;
}

/**
 * The service's sessions run with jit off: its statements are short, and where a plan's estimated
 * cost passed jit_above_cost (a trace's walk) compiling took longer than running (0.9 of 2.2 s).
 * They run with `workMem` (DB_WORK_MEM; `server` or none: the server's): a trace's storing statement
 * sorts and hashes its hundreds of thousands of reached rows, on disk past it (docs/operations.md).
 * They run without parallel workers: a page's statement planned generic (the sixth execution of a
 * prepared one) went parallel for 50 animals' stays, and on a busy 2-core machine its workers' start
 * and wait took 26-140 ms of a 4-6 ms statement (docs/operations.md).
 * Options the URL carries (`?options=-c ...`) are kept, and a jit, work_mem or parallel setting of theirs wins.
 */
export function sessionOptions(databaseUrl: string, workMem = ''): string {
  const given = new URL(databaseUrl).searchParams.get('options')?.trim() ?? '';
  const sets = (name: string) => new RegExp(`(^|\\s)(-c\\s*|--)${name}=`).test(given);
  const ours = [...(sets('jit') ? [] : ['-c jit=off']), ...(sets('max[_-]parallel[_-]workers[_-]per[_-]gather') ? [] : ['-c max_parallel_workers_per_gather=0']), ...(workMem && workMem !== 'server' && !sets('work[_-]mem') ? [`-c work_mem=${workMem}`] : [])];
  return [given, ...ours].filter(Boolean).join(' ');
}

export async function openOrm(config: Config): Promise<Orm> {
  if (config.DATABASE_URL) {
    // With replicas, a commit marks its request: its next read waits for that write (src/db/replicas.ts).
    const subscribers = [commitsCounted, ...(config.DATABASE_REPLICA_URLS.length ? [commitsMarkTheRequest] : [])];
    return countingWrites(withFastLiterals((await PgORM.init({ ...common(), subscribers, clientUrl: config.DATABASE_URL, pool: { max: config.DB_POOL_MAX, idleTimeoutMillis: config.DB_POOL_IDLE_SECONDS * 1000 }, driverOptions: { options: sessionOptions(config.DATABASE_URL, config.DB_WORK_MEM) } })) as Orm));
  }
  let dataDir: string | undefined;
  if (!config.inMemory) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    dataDir = `${config.DATA_DIR}/pglite`;
  }
  // PGlite is one session: one connection, one request at a time.
  const orm = await PgliteORM.init({
    ...common(),
    // Without a data directory PGlite takes dbName as the cluster location: memory:// keeps it off disk.
    dbName: dataDir ? 'traceability' : 'memory://',
    // btree_gist: Migration0024TraceWalk creates it and a GiST index on a stay's unit and span (dropped by Migration0030TraceFast).
    // PGLITE_IMAGE: an in-memory database starts as that image (tests start dozens of services: each
    // would otherwise run every migration, 10-15 s apiece on PGlite).
    driverOptions: { ...(dataDir ? { dataDir } : {}), ...(config.PGLITE_IMAGE ? { loadDataDir: imageOf(config.PGLITE_IMAGE) } : {}), extensions: { btree_gist } },
    pool: { max: 1 },
  } as never);
  return withFastLiterals(orm as unknown as Orm);
}

/**
 * A data directory image as PGlite's `loadDataDir` reads it (an uncompressed tar: its `type` and
 * `arrayBuffer()`). Not a Blob: MikroORM copies driverOptions, and a copied Blob loses the handle
 * to its bytes ("Illegal invocation").
 */
function imageOf(path: string): Blob {
  const bytes = readFileSync(path);
  const image = { type: 'application/x-tar', arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) };
  return image as Pick<Blob, 'type' | 'arrayBuffer'> as Blob;
}

/**
 * Applies the checked-in migrations that have not run yet, then creates the event log's partitions
 * for this year and the next, and the stays' block of five years that holds next year
 * (docs/decisions/partitioning.md): a service restarted at least once a year never reaches a year
 * without its partitions (and if it did, events stay in the last year's range).
 */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
  await orm.em.getConnection().execute('select event_log_partitions(1), (select count(*) from animal_stay_partitions(1))');
}

/** The read side's connection on the ORM's own pool (PostgreSQL) or instance (PGlite), so both share one limit. */
export async function openDb(orm: Orm, config: Config): Promise<Db> {
  const client = await orm.em.getConnection().getNativeClient();
  return config.DATABASE_URL ? pgDb(client as pg.Pool) : pgliteDb(client as unknown as PGlite);
}

/** The embedded database (none on PostgreSQL). */
export async function pgliteOf(orm: Orm, config: Config): Promise<PGlite | undefined> {
  return config.DATABASE_URL ? undefined : ((await orm.em.getConnection().getNativeClient()) as unknown as PGlite);
}

/** PostgreSQL's pool (none on PGlite): for libraries that keep shared state in the database. */
export async function sharedPool(orm: Orm, config: Config): Promise<pg.Pool | undefined> {
  return config.DATABASE_URL ? ((await orm.em.getConnection().getNativeClient()) as pg.Pool) : undefined;
}
