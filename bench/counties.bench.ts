/**
 * Time to import the full IBGE county list (docs/data): into a fresh in-memory PGlite, and,
 * when DATABASE_URL is set, into a fresh scratch database on that PostgreSQL (dropped afterwards).
 * Each target: the first import (all inserts) and a re-run (all unchanged).
 * Run: npm run bench:counties [-- <municipios.csv> <estados.csv>]
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { migrate, openOrm, type Orm } from '../src/db/orm.js';
import { importCounties, readCountySource } from '../src/places/county.import.js';

const [municipios = 'docs/data/municipios.csv', estados = 'docs/data/estados.csv'] = process.argv.slice(2);
const pgUrl = process.env.DATABASE_URL;

async function run(title: string, orm: Orm): Promise<void> {
  const parsedAt = performance.now();
  const rows = readCountySource([municipios, estados]);
  const parseMs = performance.now() - parsedAt;
  for (const pass of ['first import', 're-run']) {
    const started = performance.now();
    const r = await importCounties(orm.em.fork(), rows);
    const ms = performance.now() - started;
    console.log(`${title}, ${pass}: ${ms.toFixed(0)} ms (${r.inserted} inserted, ${r.updated} updated, ${r.unchanged} unchanged)`);
  }
  console.log(`${title}: reading and checking the ${rows.length} rows took ${parseMs.toFixed(0)} ms (not included above)`);
}

async function main(): Promise<void> {
  if (!existsSync(municipios) || !existsSync(estados)) throw new Error(`no ${municipios} / ${estados}`);
  const base = { LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00' };

  const pglite = await openOrm(loadConfig({ ...base, DATA_DIR: ':memory:', DATABASE_URL: undefined }));
  try {
    await migrate(pglite);
    await run('PGlite (in memory, fresh)', pglite);
  } finally {
    await pglite.close();
  }

  if (!pgUrl) return;
  const scratch = `counties_bench_${process.pid}`;
  const admin = await openOrm(loadConfig({ ...base, DATABASE_URL: pgUrl }));
  try {
    await admin.em.fork().execute(`create database ${scratch}`);
    const url = new URL(pgUrl);
    url.pathname = `/${scratch}`;
    const pg = await openOrm(loadConfig({ ...base, DATABASE_URL: url.toString() }));
    try {
      await migrate(pg);
      await run(`PostgreSQL (fresh database on ${url.host})`, pg);
    } finally {
      await pg.close();
    }
  } finally {
    await admin.em.fork().execute(`drop database if exists ${scratch}`);
    await admin.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
