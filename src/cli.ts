import './require-node.js';
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { createCore } from './core.js';
import { migrate, openOrm } from './db/orm.js';
import { oneStartAtATime } from './db/start-lock.js';
import { hashPassword } from './identity/passwords.js';
import { CountyImportError, importCountyFiles } from './places/county.import.js';
import { verifyChain } from './shared/events.js';
import { createLogger } from './shared/logger.js';
import { printSchemaSdl } from '../graphql/sdl.js';

const [command, ...args] = process.argv.slice(2);
const usage = `usage:
  cli admin:create <email> <password> [name]   create a platform administrator
  cli events:verify                             check the event log's hash chain
  cli events:partitions [years ahead]           create the event log's partitions (this year + 1)
  cli events:detach <partition>                 detach the event log's oldest partition (cold storage)
  cli stays:partitions [years ahead]            create the stays' blocks of five years (this year + 1)
  cli stays:detach <partition>                  detach the stays' oldest closed block (cold storage)
  cli trace:changes-purge [minutes kept]        drop the trace graph's change rows older than that (60)
  cli trace:stale                               mark every instance's trace graph stale (after a bulk load with the triggers off, a hand ATTACH/DETACH)
  cli schema:emit [file]                        write the GraphQL SDL (default graphql/schema.graphql)
  cli migrate                                   apply pending migrations
  cli counties:import <municipios.csv> <estados.csv> | <municipios.json>
                                                upsert the IBGE municipality list (idempotent)`;

async function main(): Promise<number> {
  if (command === 'schema:emit') {
    writeFileSync(args[0] ?? 'graphql/schema.graphql', await printSchemaSdl());
    return 0;
  }
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const orm = await openOrm(config);
  try {
    await oneStartAtATime(config.DATABASE_URL, () => migrate(orm));
    const em = orm.em.fork();
    switch (command) {
      case 'migrate':
        return 0;
      case 'admin:create': {
        const [email, password, name] = args;
        if (!email || !password) break;
        if (password.length < 8 || password.length > 128) throw new Error('password must be 8 to 128 characters');
        const user = await createCore(config, log).users.createAdministrator(em, { email, password, name: name ?? 'Administrator' }, await hashPassword(password));
        console.log(`administrator ${user.str_email} created (${user.id})`);
        return 0;
      }
      case 'events:verify': {
        const report = await verifyChain(em);
        if (report.ok) console.log(`event chain intact: ${report.checked} events`);
        else console.log(`event chain BROKEN at seq ${report.broken!.seq} (event ${report.broken!.id}): ${report.broken!.reason}; ${report.checked} events before it hold`);
        return report.ok ? 0 : 2;
      }
      case 'events:partitions': {
        const ahead = Number(args[0] ?? 1);
        if (!Number.isInteger(ahead) || ahead < 0 || ahead > 50) break;
        const made = await em.execute<{ event_log_partitions: string }[]>('select event_log_partitions(?)', [ahead]);
        console.log(made.length ? `created ${made.map((r) => r.event_log_partitions).join(', ')}` : 'the partitions exist already');
        return 0;
      }
      case 'events:detach': {
        const [partition] = args;
        if (!partition) break;
        await em.execute('select event_log_detach(?)', [partition]);
        console.log(`${partition} and its subjects detached: dump them, then drop them (docs/decisions/partitioning.md)`);
        return 0;
      }
      case 'stays:partitions': {
        const ahead = Number(args[0] ?? 1);
        if (!Number.isInteger(ahead) || ahead < 0 || ahead > 50) break;
        const made = await em.execute<{ animal_stay_partitions: string }[]>('select animal_stay_partitions(?)', [ahead]);
        console.log(made.length ? `created ${made.map((r) => r.animal_stay_partitions).join(', ')}` : 'the partitions exist already');
        return 0;
      }
      case 'stays:detach': {
        const [partition] = args;
        if (!partition) break;
        await em.execute('select animal_stay_detach(?)', [partition]);
        console.log(`${partition} detached: dump it, then drop it (docs/decisions/partitioning.md)`);
        return 0;
      }
      case 'trace:changes-purge': {
        const minutes = Number(args[0] ?? 60);
        if (!Number.isInteger(minutes) || minutes < 1) break;
        const [r] = await em.execute<{ dropped: number }[]>('select trace_change_purge(make_interval(mins => ?)) as dropped', [minutes]);
        console.log(`${r!.dropped} change rows older than ${minutes} minutes dropped`);
        return 0;
      }
      case 'trace:stale': {
        await em.execute('select trace_graph_stale()');
        console.log('the trace graphs read every stay again at their next refresh');
        return 0;
      }
      case 'counties:import': {
        try {
          const r = await importCountyFiles(em, args);
          console.log(`counties: ${r.read} read, ${r.inserted} inserted, ${r.updated} updated, ${r.unchanged} unchanged`);
          return 0;
        } catch (err) {
          if (!(err instanceof CountyImportError)) throw err;
          console.error(err.message);
          return 65;
        }
      }
    }
    console.error(usage);
    return 64;
  } finally {
    await orm.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : err instanceof Error ? `error: ${err.message}` : err);
    process.exit(1);
  },
);
