import pg from 'pg';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * An empty database of its own on the suite's PostgreSQL (DATABASE_URL), for what only a fresh
 * database shows (a first start); `drop` removes it. Named after the process, so parallel runs
 * on one server never meet.
 */
export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('scratchDatabase needs PostgreSQL (DATABASE_URL)');
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
