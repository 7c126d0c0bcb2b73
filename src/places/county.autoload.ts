import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../shared/logger.js';
import { importCounties, readCountySource, type ImportReport } from './county.import.js';

/**
 * The IBGE county list the repository ships (docs/data), from src/places (tests, dev) or
 * dist/src/places (a build, the Docker image): null when neither has it.
 */
export function shippedCountyFiles(): [string, string] | null {
  for (const rel of ['../../docs/data/', '../../../docs/data/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    const files: [string, string] = [join(dir, 'municipios.csv'), join(dir, 'estados.csv')];
    if (files.every((f) => existsSync(f))) return files;
  }
  return null;
}

const isEmpty = async (em: EntityManager): Promise<boolean> => (await em.execute<{ empty: boolean }[]>('select not exists (select 1 from county) as empty'))[0]!.empty;

/**
 * A fresh database gets the shipped county list at start, so `npm start` alone is a working
 * set-up (establishments name their county). A database that holds any county is left alone: one
 * statement. Two instances starting at once on an empty database: the second waits on the
 * transaction-level advisory lock (the two-key form: a key space of its own, apart from the event
 * streams' one-key locks) and then finds the table full. The load is the import's own (batched
 * upserts, one COUNTY_CREATED event per county); `counties:import` stays for updates.
 */
export async function loadCountiesIfEmpty(em: EntityManager, log: Logger, files = shippedCountyFiles()): Promise<ImportReport | null> {
  if (!(await isEmpty(em))) return null;
  if (!files) {
    log.warn('the county table is empty and docs/data/municipios.csv + estados.csv were not found: run counties:import');
    return null;
  }
  const started = performance.now();
  const rows = readCountySource(files);
  const report = await em.transactional(async (tx) => {
    await tx.execute("select pg_advisory_xact_lock(hashtext('county:autoload'), 0)");
    return (await isEmpty(tx)) ? importCounties(tx, rows) : null;
  });
  if (report) log.info({ counties: report.inserted, ms: Math.round(performance.now() - started) }, 'county list loaded into an empty database');
  return report;
}
