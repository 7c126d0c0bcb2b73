import './require-node.js';
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './shared/logger.js';
import { createService } from './server.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
const log = createLogger(config.LOG_LEVEL);
const started = performance.now();
const service = await createService(config, log);
await service.listen();
log.info({ port: config.PORT, database: config.DATABASE_URL ? 'postgresql' : config.inMemory ? 'pglite (memory)' : `pglite (${config.DATA_DIR})`, ms: Math.round(performance.now() - started) }, 'listening');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
