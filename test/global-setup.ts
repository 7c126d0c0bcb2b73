import { Socket } from 'node:net';

/** PostgreSQL on 127.0.0.1:5432 when one answers (or DATABASE_URL says where); embedded PGlite otherwise. */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL || process.env.TEST_DATABASE === 'pglite') return;
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.connect(5432, '127.0.0.1');
  });
  if (reachable) process.env.DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
  console.log(`\ntests run on ${process.env.DATABASE_URL ? `PostgreSQL (${process.env.DATABASE_URL})` : 'embedded PGlite'}`);
}
