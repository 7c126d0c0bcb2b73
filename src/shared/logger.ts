import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  // Asynchronous: a request never waits on stdout (pino flushes what is buffered when the process exits).
  const destination = pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: { service: 'livestock-traceability' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['req.headers.authorization', '*.password', '*.str_password', '*.refresh_token'], censor: '[redacted]' },
    },
    destination,
  );
}
