import pg from 'pg';

/**
 * What an instance does to a database as it starts (migrations, the first county list, the first
 * administrator) runs under a session advisory lock, so two instances started at once on one
 * database do it one after the other: the second waits, then finds nothing left to do. The lock
 * lives on a connection of its own (the migrator takes the ORM pool's), and ends with it, also
 * when the process dies. The two-key form keeps it apart from the event streams' one-key locks.
 * PGlite (no DATABASE_URL) is one process's database: nothing to wait for.
 */
export async function oneStartAtATime<T>(databaseUrl: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!databaseUrl) return work();
  const client = new pg.Client({ connectionString: databaseUrl });
  // A server restart while this one waits must fail the start, not crash the process on an unhandled event.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query("select pg_advisory_lock(hashtext('service:start'), 0)");
    return await work();
  } finally {
    await client.end();
  }
}
