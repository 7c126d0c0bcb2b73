import type { EmbeddedServer } from './helpers/embedded-postgres.js';

/**
 * The PostgreSQL global-setup.ts started for this run, if it started one: global-teardown.ts stops
 * it. Both run in jest's main process, each loaded on its own, so the holder lives on globalThis.
 */
const holder = globalThis as typeof globalThis & { __livestockEmbeddedPostgres?: { server: EmbeddedServer | null } };
export const embedded = (holder.__livestockEmbeddedPostgres ??= { server: null });
