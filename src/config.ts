import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { FEATURE_NAME } from './identity/user-features.rules.js';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const INTERVAL_UNITS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };
/** A PostgreSQL interval written as whole units ('24 hours', '1 day 12 hours') in ms; undefined for anything else. */
export function intervalMs(text: string): number | undefined {
  const parts = text.trim().toLowerCase().split(/\s+/);
  if (parts.length < 2 || parts.length % 2) return undefined;
  let ms = 0;
  for (let i = 0; i < parts.length; i += 2) {
    const unit = INTERVAL_UNITS[parts[i + 1]!.replace(/s$/, '')];
    if (!/^\d{1,6}$/.test(parts[i]!) || unit === undefined) return undefined;
    ms += Number(parts[i]) * unit;
  }
  return ms;
}

/**
 * CORS_ORIGINS: origins a browser frontend may call from, comma-separated, each exactly an origin
 * (`https://app.example.org`, `http://localhost:5173`: scheme, host, optional port; no path, no
 * trailing slash), or `*` alone for any origin. Unset or empty: no cross-origin access.
 */
const origins = z.string().transform((value, ctx) => {
  const list = value.split(',').map((o) => o.trim()).filter((o) => o !== '');
  if (list.length === 1 && list[0] === '*') return ['*'];
  for (const o of list) {
    let url: URL | null = null;
    try {
      url = new URL(o);
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== o) {
      ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin (scheme://host[:port], no path or trailing slash; or "*" alone)` });
      return z.NEVER;
    }
  }
  return [...new Set(list)];
});

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  /** With DATA_DIR :memory:, a PGlite data directory image (`dumpDataDir`'s tarball) the database starts from; migrations still run on top. */
  PGLITE_IMAGE: z.string().optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * How long a pooled connection may sit idle before it is closed (0: never). Long: a new connection
   * starts with cold catalog caches and prepares and plans every statement again (a scoped nested
   * page's first five plans took 20 ms each), where pg's default of 10 s closed them after every lull.
   */
  DB_POOL_IDLE_SECONDS: z.coerce.number().int().min(0).max(86400).default(600),
  /**
   * work_mem of the service's PostgreSQL sessions (docs/operations.md#configuration-details): a
   * PostgreSQL memory size (`64MB`, `65536kB`, `1GB`), or `server` to keep the server's (role, database) setting.
   */
  DB_WORK_MEM: z.string().trim().regex(/^(\d+(kB|MB|GB)|server)$/, 'a PostgreSQL memory size (a whole number with kB, MB or GB), or "server" for the server\'s setting').default('server'),
  /** A trace's CSV is read in parts of about this many traced animals (docs/operations.md#configuration-details). */
  TRACE_CSV_PART_ANIMALS: z.coerce.number().int().min(1).max(1_000_000).default(5000),
  /** How many of a trace CSV's parts run at once, each on a connection of the pool (1: one at a time). */
  TRACE_CSV_PARALLEL: z.coerce.number().int().min(1).max(16).default(2),
  /** Streaming replicas of DATABASE_URL, comma-separated: readers go to them (docs/decisions/replicas.md). */
  DATABASE_REPLICA_URLS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((u) => u.trim()).filter(Boolean))
    .refine((urls) => urls.every((u) => /^postgres(ql)?:\/\/[^\s]+$/.test(u) && URL.canParse(u)), 'each must be a postgres:// URL'),
  /** A replica further behind the primary than this (ms) is skipped; a bulk read waits at most this for its caller's write to be replayed. */
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(600000).default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_ISSUER: z.string().default('livestock-traceability'),
  JWT_AUDIENCE: z.string().default('livestock-traceability-api'),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(8).max(128).optional(),
  ADMIN_NAME: z.string().default('Administrator'),
  ADMIN_DOCUMENT: z.string().optional(),
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('no-reply@livestock.local'),
  PUBLIC_URL: z.string().url().default('http://localhost:4000'),
  TRUST_PROXY: bool.default(false),
  /**
   * The trace walks a graph of every stay held by its engine, a thread of this process
   * (docs/decisions/trace.md, "The trace as an engine"; about 70 bytes a stay with its ids: 350 MB at a
   * million animals), loaded in the background and refreshed before each walk, the walk in SQL until
   * it is current; false: the walk runs in PostgreSQL (`trace_runs`), with no memory held.
   */
  TRACE_GRAPH: bool.default(true),
  /** How often the trace engine compares its graph with the database (a fingerprint of the stays; ms; 0: never): a mismatch reloads it. */
  TRACE_GRAPH_CHECK_EVERY_MS: z.coerce.number().int().min(0).default(3_600_000),
  /** The trace engine's thread's nice value (0-19; Linux keeps one per thread): it yields the cores to the requests' thread. */
  TRACE_ENGINE_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * How long the trace graph's change rows are kept (a PostgreSQL interval of whole units: '24 hours',
   * '90 minutes', '2 days'; at least 1 minute). A graph that falls further behind reads every stay
   * again: keep it well above a full load's time (docs/operations.md, "The trace graph").
   */
  TRACE_CHANGE_RETENTION: z
    .string()
    .default('24 hours')
    .refine((v) => intervalMs(v) !== undefined, "an interval of whole units, e.g. '24 hours', '90 minutes', '2 days'")
    .refine((v) => (intervalMs(v) ?? 0) >= 60_000, 'at least 1 minute'),
  /** How often a refresh of the graph also purges the change rows past the retention (ms; 0: never, leave it to `cli trace:changes-purge`). */
  TRACE_CHANGE_PURGE_EVERY_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  /** Adds X-SQL-Statements to every response: for tests and benchmarks, not for production. */
  EXPOSE_SQL_STATEMENTS: bool.default(false),
  /** Keeps authenticated actors per process, forgotten on every instance when they change (src/identity/actor-cache.ts). */
  ACTOR_CACHE: bool.default(true),
  GRAPHQL_INTROSPECTION: bool.optional(),
  /** The GraphQL IDE (GraphiQL) at GET /graphql from a browser: on where introspection is (it needs the schema). */
  GRAPHQL_IDE: bool.optional(),
  /** The API documentation page at GET /api/docs (the OpenAPI document itself is always served). */
  API_DOCS: bool.default(true),
  LOGIN_LIMIT_PER_LOGIN: z.coerce.number().int().min(1).default(5),
  LOGIN_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(30),
  LOGIN_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10000),
  /** At shutdown, how long idle keep-alive connections stay open for a request a client sent on one at that instant (answered with Connection: close). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(1000),
  /** GraphQL limits on /graphql (REST runs only its own checked-in documents): far above what a frontend's queries reach. */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(12),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(30),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(20000),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(10).default(5000),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(50),
  /** The longest a travel may last before it raises TRANSIT_TIME_EXCEEDED (hours; fractions allowed). */
  TRAVEL_MAX_HOURS: z.coerce.number().positive().max(24 * 365).default(48),
  /** The largest EUDR statement file (bytes) the EU information system takes: a lot's GeoJSON past it is a 422. */
  EUDR_STATEMENT_MAX_BYTES: z.coerce.number().int().min(1000).default(25_000_000),
  /** Feature flags on for everyone unless a user's or organization's setting turns them off (comma list). */
  USER_FEATURES_DEFAULT: z
    .string()
    .default('')
    .transform((v) => [...new Set(v.split(',').map((f) => f.trim()).filter(Boolean))].sort())
    .refine((flags) => flags.every((f) => FEATURE_NAME.test(f)), 'each flag is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit'),
  /** Every authenticated call but the terms, login, refresh, logout and whoami answers 428 until the caller accepts the current terms. */
  TERMS_REQUIRED: bool.default(false),
  /** The shortest wait between two verification codes sent to one user (seconds). */
  VERIFICATION_SEND_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Key of the verification codes' HMAC; derived from JWT_SECRET when unset. */
  VERIFICATION_PEPPER: z.string().min(32, 'must be at least 32 characters').optional(),
  CORS_ORIGINS: origins.default([]),
  /** GET /metrics (Prometheus text format): on unless `false`; behind `Authorization: Bearer <METRICS_TOKEN>` when that is set. */
  METRICS_ENABLED: bool.default(true),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(4096).optional(),
  CORS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(86400).default(600),
  /** Where attachments are kept on disk (unset: `<DATA_DIR>/attachments`; with DATA_DIR :memory:, a folder in the system's temporary directory). */
  ATTACHMENTS_DIR: z.string().optional(),
  /** An S3-compatible bucket for attachments instead of the disk: set S3_BUCKET (and the others as the store needs). */
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z.string().max(200).default('attachments/'),
  /** Issue 24: the relay of the committed log and the webhook sender run in this instance (off: the embedded default). */
  EVENTS_OUT: bool.default(false),
  EVENTS_OUT_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  WEBHOOK_RETRY_HOURS: z.coerce.number().positive().max(24 * 30).default(24),
  WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Webhook URLs may point to private, loopback and link-local addresses (refused by default: SSRF). */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** With EVENTS_OUT: every committed event also goes to this NATS server's JetStream. */
  NATS_URL: z.string().min(1).optional(),
  NATS_STREAM: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default('LIVESTOCK'),
  NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default('livestock'),
});

/** Every variable the configuration reads (the README's configuration table lists each; test/readme.test.ts holds it so). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

export type Config = Omit<z.infer<typeof schema>, 'JWT_SECRET' | 'GRAPHQL_INTROSPECTION' | 'VERIFICATION_PEPPER' | 'GRAPHQL_IDE' | 'ATTACHMENTS_DIR'> & {
  ATTACHMENTS_DIR: string;
  JWT_SECRET: string;
  VERIFICATION_PEPPER: string;
  GRAPHQL_INTROSPECTION: boolean;
  GRAPHQL_IDE: boolean;
  /** PGlite without a data directory keeps everything in memory. */
  inMemory: boolean;
  /** Development without CORS_ORIGINS: any `http://localhost:*` or `http://127.0.0.1:*` origin is let in (a local frontend's dev server). */
  corsLoopback: boolean;
};

export class ConfigError extends Error {}

/** The one place the environment is read. A bad value stops the start with a message naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const c = parsed.data;
  if (c.NODE_ENV === 'production' && !c.JWT_SECRET) {
    throw new ConfigError('Invalid configuration:\n  JWT_SECRET: is required in production');
  }
  if (c.NODE_ENV === 'production' && !c.SMTP_URL) {
    // The outbox keeps every confirmation and recovery code in clear until it expires: a developer's tool, not a production store.
    throw new ConfigError(
      'Invalid configuration:\n  SMTP_URL: is required in production (without a mailer, confirmation and recovery codes would wait in clear in sent_message, the development outbox); set SMTP_URL=smtp://user:pass@host:587, or run with NODE_ENV=development',
    );
  }
  if ((c.ADMIN_EMAIL && !c.ADMIN_PASSWORD) || (!c.ADMIN_EMAIL && c.ADMIN_PASSWORD)) {
    throw new ConfigError('Invalid configuration:\n  ADMIN_EMAIL/ADMIN_PASSWORD: set both or neither');
  }
  const introspection = c.GRAPHQL_INTROSPECTION ?? c.NODE_ENV !== 'production';
  if (c.EVENTS_OUT && !c.DATABASE_URL) {
    // The relay holds a transaction per window and reads the other sessions' transactions: the embedded PGlite has one session.
    throw new ConfigError('Invalid configuration:\n  EVENTS_OUT: needs PostgreSQL (DATABASE_URL)');
  }
  if (!c.S3_BUCKET && (c.S3_ENDPOINT || c.S3_ACCESS_KEY_ID || c.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  S3_BUCKET: is required when any other S3_* setting is given');
  }
  if (!c.S3_ACCESS_KEY_ID !== !c.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError('Invalid configuration:\n  S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: set both or neither (neither: the AWS SDK\'s default credentials)');
  }
  if (c.GRAPHQL_IDE && !introspection) {
    throw new ConfigError('Invalid configuration:\n  GRAPHQL_IDE: needs GRAPHQL_INTROSPECTION (the IDE reads the schema by introspection)');
  }
  if (c.DATABASE_REPLICA_URLS.length && !c.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_REPLICA_URLS: replicas need DATABASE_URL (PGlite has none)');
  }
  const inMemory = c.DATA_DIR === ':memory:' || c.DATA_DIR === 'memory://';
  if (c.PGLITE_IMAGE && (c.DATABASE_URL || !inMemory)) {
    throw new ConfigError('Invalid configuration:\n  PGLITE_IMAGE: only an in-memory PGlite (DATA_DIR=:memory:, no DATABASE_URL) starts from an image');
  }
  // Outside production a missing secret gets a random one: tokens then die with the process.
  const jwtSecret = c.JWT_SECRET ?? randomBytes(32).toString('hex');
  return {
    ...c,
    JWT_SECRET: jwtSecret,
    VERIFICATION_PEPPER: c.VERIFICATION_PEPPER ?? createHash('sha256').update(`verification-code:${jwtSecret}`).digest('hex'),
    GRAPHQL_INTROSPECTION: introspection,
    GRAPHQL_IDE: c.GRAPHQL_IDE ?? introspection,
    inMemory,
    corsLoopback: c.NODE_ENV === 'development' && c.CORS_ORIGINS.length === 0,
    ATTACHMENTS_DIR: c.ATTACHMENTS_DIR ?? (inMemory ? join(tmpdir(), 'livestock-attachments') : join(c.DATA_DIR, 'attachments')),
  };
}
