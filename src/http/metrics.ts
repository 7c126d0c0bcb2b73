import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import type { Middleware } from 'koa';
import { Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config.js';
import type { Db } from '../db/sql.js';
import type { Replicas } from '../db/replicas.js';
import { DomainError } from '../shared/errors.js';
import { engineMetrics } from '../trace/engine/engine-status.js';
import type { EngineStatus } from '../trace/engine/trace-engine.js';

/** Seconds: from a cached read (a few ms) to a bulk write of thousands of tags. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STATEMENT_BUCKETS = [0, 1, 2, 3, 5, 8, 13, 21, 50, 100, 500];
/** Operation names come from clients: past this many distinct ones, the rest count as `other`. */
const MAX_OPERATION_NAMES = 500;
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

const soleOperationName = (document: DocumentNode | undefined): string | undefined => {
  const operations = document?.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION) ?? [];
  return operations.length === 1 ? operations[0]!.name?.value : undefined;
};

export interface Metrics {
  registry: Registry;
  /**
   * Every request, as it ends: its time, count and SQL statements under its route template, method
   * and status. Called by the outermost middleware (src/server.ts), which times the request anyway:
   * a middleware of its own wrapping the rest was one more async layer per request.
   */
  request(method: string, route: string, status: number, seconds: number, statements: number): void;
  /** Per GraphQL operation on /graphql: its name, type and outcome (REST runs its documents in-process and is counted per route). */
  graphql: ApolloServerPlugin;
  /** GET /metrics in Prometheus's text format, behind METRICS_TOKEN when set. */
  endpoint: Middleware;
}

/**
 * One registry per service (tests run several services in one process). Process metrics are
 * prom-client's defaults; the pool and the event log are read when Prometheus scrapes.
 */
export function createMetrics(config: Config, db: Db, pool: pg.Pool | undefined, replicas: Replicas | null = null, traceEngine: () => EngineStatus | null = () => null): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  engineMetrics(registry, traceEngine);

  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route template, method and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const duration = new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request latency, by route template, method and status', labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const statements = new Histogram({ name: 'http_request_sql_statements', help: 'SQL statements one HTTP request ran, by route template and method (the sum is every statement requests ran)', labelNames: ['method', 'route'], buckets: STATEMENT_BUCKETS, registers: [registry] });
  const operations = new Counter({ name: 'graphql_operations_total', help: 'GraphQL operations on /graphql, by operation name, type and outcome (OK or the first error code)', labelNames: ['operation', 'type', 'code'], registers: [registry] });
  const operationDuration = new Histogram({ name: 'graphql_operation_duration_seconds', help: 'GraphQL operation latency on /graphql, by operation name, type and outcome', labelNames: ['operation', 'type', 'code'], buckets: LATENCY_BUCKETS, registers: [registry] });

  if (pool) {
    const p = pool;
    new Gauge({ name: 'db_pool_connections', help: 'PostgreSQL pool connections by state (idle, in use)', labelNames: ['state'], registers: [registry], collect() {
      this.set({ state: 'idle' }, p.idleCount);
      this.set({ state: 'in_use' }, p.totalCount - p.idleCount);
    } });
    new Gauge({ name: 'db_pool_waiting_requests', help: 'Queries waiting for a PostgreSQL pool connection', registers: [registry], collect() {
      this.set(p.waitingCount);
    } });
    new Gauge({ name: 'db_pool_max_connections', help: 'DB_POOL_MAX', registers: [registry] }).set(config.DB_POOL_MAX);
  }
  if (replicas) {
    const r = replicas;
    new Gauge({ name: 'db_replica_up', help: 'Whether a replica of DATABASE_REPLICA_URLS answered its last poll as a standby (1) or not (0)', labelNames: ['replica'], registers: [registry], collect() {
      for (const s of r.status()) this.set({ replica: s.url }, s.up ? 1 : 0);
    } });
    new Gauge({ name: 'db_replica_lag_seconds', help: 'How far behind the primary each replica that is up was at its last poll', labelNames: ['replica'], registers: [registry], collect() {
      this.reset();
      for (const s of r.status()) if (s.up && Number.isFinite(s.lagMs)) this.set({ replica: s.url }, s.lagMs / 1000);
    } });
    new Counter({ name: 'db_reader_statements_total', help: 'Readers\' statements by where they ran (replica, primary: no replica had replayed the caller\'s writes, or none was fresh or up)', labelNames: ['on'], registers: [registry], collect() {
      this.reset();
      const { replica, primary } = r.counts();
      this.inc({ on: 'replica' }, replica);
      this.inc({ on: 'primary' }, primary);
    } });
  }
  new Gauge({
    name: 'event_log_last_seq',
    help: 'Highest sequence number of the event log (append-only; rolled-back writes leave gaps, so the log holds at most this many events)',
    registers: [registry],
    async collect() {
      // One index lookup, where count(*) would read the whole log on every scrape.
      const [row] = await db.rows<{ seq: string | number | null }>({ sql: 'select max(seq) as seq from event', params: [] });
      this.set(Number(row?.seq ?? 0));
    },
  });

  const digest = (s: string) => createHash('sha256').update(s).digest();
  const expected = config.METRICS_TOKEN ? digest(`Bearer ${config.METRICS_TOKEN}`) : null;

  const names = new Set<string>();
  const operationLabel = (name: string | null | undefined): string => {
    if (!name) return 'anonymous';
    if (!NAME.test(name)) return 'invalid';
    if (names.has(name)) return name;
    if (names.size >= MAX_OPERATION_NAMES) return 'other';
    names.add(name);
    return name;
  };

  return {
    registry,
    request(method, route, status, seconds, count) {
      const labels = { method, route, status: String(status) };
      duration.observe(labels, seconds);
      requests.inc(labels);
      statements.observe({ method, route }, count);
    },
    graphql: {
      async requestDidStart() {
        // performance.now() rather than prom-client's startTimer (hrtime, two closures and a merge of labels): the same seconds.
        const started = performance.now();
        return {
          async willSendResponse({ operationName, operation, document, request, response }) {
            const body = response.body;
            const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
            const code = errors?.length ? String(errors[0]!.extensions?.code ?? 'ERROR') : 'OK';
            // A document that parsed but failed validation has no resolved operation: its name is still the client's.
            const named = operationName ?? request.operationName ?? soleOperationName(document);
            const labels = { operation: operationLabel(named), type: operation?.operation ?? 'none', code };
            operationDuration.observe(labels, (performance.now() - started) / 1000);
            operations.inc(labels);
          },
        };
      },
    },
    endpoint: async (ctx) => {
      if (expected && !timingSafeEqual(digest(ctx.get('Authorization')), expected)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw DomainError.unauthenticated('/metrics needs Authorization: Bearer <METRICS_TOKEN>');
      }
      ctx.set('Content-Type', registry.contentType);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await registry.metrics();
    },
  };
}
