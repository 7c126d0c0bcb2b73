import { STATUS_CODES, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { drainBody } from './http/drain.js';
import type { Duplex } from 'node:stream';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import helmet from 'koa-helmet';
import type { GraphQLSchema, ValidationRule } from 'graphql';
import { createContext } from '../graphql/context.js';
import { describeError, hideSuggestions, toFormatted } from '../graphql/errors.js';
import { createExecutor, localGateway } from '../graphql/execute.js';
import { legacyJsonStatus } from '../graphql/http-status.js';
import { createReplay } from '../graphql/create-replay.js';
import { inputBoundary } from '../graphql/input-boundary.js';
import { getSchema } from '../graphql/schema.js';
import { buildOpenApi } from '../rest/openapi.js';
import { loadExamples } from '../rest/examples.js';
import { STATUS_OF } from '../rest/errors.js';
import { buildRestRouter, isUploadRoute, routes } from '../rest/router.js';
import type { Config } from './config.js';
import { createCore, type Core } from './core.js';
import { TraceGraph } from './trace/graph/trace-graph.js';
import { MemoryTraceGraph } from './trace/graph/trace-graph.memory.js';
import { openGraphSource } from './trace/graph/trace-graph.open.js';
import { TraceGraphStore } from './trace/graph/trace-graph.store.js';
import { startEventsOut } from './outbox/events-out.js';
import { LiveHub } from './outbox/live.js';
import { TRACE_CHANNEL } from './trace/trace-progress.js';
import { liveDoors } from '../graphql/live-doors.js';
import { apolloKoa } from './http/apollo-koa.js';
import { corsMiddleware } from './http/cors.js';
import { createMetrics } from './http/metrics.js';
import { browserPages } from './http/browser-pages.js';
import { migrate, openDb, openOrm, pgliteOf, sharedPool, type Orm } from './db/orm.js';
import { listenOnPglite, listenOnPostgres, type ActorListener } from './identity/actor-listener.js';
import type { Db } from './db/sql.js';
import { lsnHeader, lsnText, openReplicas, type Replicas } from './db/replicas.js';
import { ensureAdministrator } from './identity/bootstrap.js';
import { loadCountiesIfEmpty } from './places/county.autoload.js';
import type { Actor } from './identity/actor.js';
import { systemClock, type Clock } from './shared/clock.js';
import { DomainError } from './shared/errors.js';
import { checkInput } from './shared/input.js';
import { callerOf, checkKey, idempotent, releaseDeadClaims } from './shared/idempotency.js';
import { claimConnections } from './db/claims.js';
import { oneStartAtATime } from './db/start-lock.js';
import { clientIdOf, storeCreate, storedCreate } from './shared/create-replay.js';
import { newId } from './shared/ids.js';
import { createLogger, type Logger } from './shared/logger.js';
import { requestScope, type RequestScope } from './shared/request-scope.js';

export interface Service {
  app: Koa;
  orm: Orm;
  db: Db;
  /** The readers' replicas (DATABASE_REPLICA_URLS), null without any. */
  replicas: Replicas | null;
  core: Core;
  schema: GraphQLSchema;
  /** GraphQL subscriptions' reader of the committed log (src/outbox/live.ts). */
  live: LiveHub;
  log: Logger;
  listen(port?: number): Promise<Server>;
  close(): Promise<void>;
}

const REQUEST_ID = /^[\w.-]{1,128}$/;
const GRAPHQL_PATH = /^\/graphql\/?$/i;
const BODY_LIMIT = '1mb';
/** Longer than a client's or a proxy's idle keep-alive limit (ALB: 60 s; undici: 4 s). */
const KEEP_ALIVE_MS = 65_000;
/** How often live subscriptions' sessions are checked: a revoked one is closed within about this long. */
const LIVE_SESSION_CHECK_MS = 1000;

/** `clock`: the core's time (src/shared/clock.ts); tests pass one they hold. */
export async function createService(config: Config, log: Logger = createLogger(config.LOG_LEVEL), clock: Clock = systemClock): Promise<Service> {
  const orm = await openOrm(config);
  const primary = await openDb(orm, config);
  const pool = await sharedPool(orm, config);
  const replicas = await openReplicas(config, primary, pool, log);
  // Readers through the replicas when there are any; the primary otherwise.
  const db = replicas?.db ?? primary;
  const core = createCore(config, log, pool, clock);
  await oneStartAtATime(config.DATABASE_URL, async () => {
    await migrate(orm);
    await loadCountiesIfEmpty(orm.em.fork(), log);
    await ensureAdministrator(orm.em.fork(), core, config, log);
  });
  // After the migrations (the change log's triggers): the trace's graph loads in the background.
  if (config.TRACE_GRAPH) core.trace.useGraph(new MemoryTraceGraph(new TraceGraphStore(await openGraphSource(orm, config), () => new TraceGraph(), { retention: config.TRACE_CHANGE_RETENTION, purgeEveryMs: config.TRACE_CHANGE_PURGE_EVERY_MS }), log));
  // After the migrations (their triggers say what changed): the actor cache is on while this listens.
  const pglite = await pgliteOf(orm, config);
  const actorListener: ActorListener | null = !config.ACTOR_CACHE
    ? null
    : pglite
      ? await listenOnPglite(pglite, core.auth.actors)
      : listenOnPostgres(config.DATABASE_URL!, core.auth.actors, log);
  const metrics = createMetrics(config, db, pool, replicas);
  await core.mailer.useDatabase((sql, params) => orm.em.fork().execute(sql, params));
  const claims = claimConnections(config);
  // PGlite belongs to this one process: no claim of an earlier run can still be running.
  if (!claims) await releaseDeadClaims(orm.em.fork());
  const schema = await getSchema();
  const eventsOut = config.EVENTS_OUT
    ? await startEventsOut(() => orm.em.fork(), {
        pollMs: config.EVENTS_OUT_POLL_MS,
        webhooks: { backoffMs: config.WEBHOOK_BACKOFF_MS, retryHours: config.WEBHOOK_RETRY_HOURS, timeoutMs: config.WEBHOOK_TIMEOUT_MS, batch: 100, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
        nats: config.NATS_URL ? { url: config.NATS_URL, stream: config.NATS_STREAM, prefix: config.NATS_SUBJECT_PREFIX } : null,
      }, log)
    : null;

  // Depth, cost, aliases, tokens and directives as a well-kept library counts them; no field
  // suggestions where introspection is off (production).
  const armor = new ApolloArmor({
    maxDepth: { n: config.GRAPHQL_MAX_DEPTH },
    maxAliases: { n: config.GRAPHQL_MAX_ALIASES },
    costLimit: { maxCost: config.GRAPHQL_MAX_COST },
    // graphql-js counts tokens itself (parseOptions below); armor's parser would turn a syntax error into a 500.
    maxTokens: { enabled: false },
    maxDirectives: { n: config.GRAPHQL_MAX_DIRECTIVES },
    blockFieldSuggestion: { enabled: !config.GRAPHQL_INTROSPECTION },
  }).protect();
  // One executor for both doors: queries compiled (graphql/execute.ts), answers as graphql-js gives them.
  const run = createExecutor(schema);
  const apollo = new ApolloServer({
    gateway: localGateway(schema, run),
    validationRules: armor.validationRules,
    // The parser stops at the token limit before its recursion can overflow the stack.
    parseOptions: { maxTokens: config.GRAPHQL_MAX_TOKENS },
    allowBatchedHttpRequests: false,
    csrfPrevention: true,
    // Shutdown is ours (main.ts): in-flight requests finish, then Apollo, then the pool.
    stopOnTerminationSignals: false,
    introspection: config.GRAPHQL_INTROSPECTION,
    includeStacktraceInErrorResponses: false,
    // No cache hints are set: the cache-control plugin would only walk every field of every answer.
    // graphql-armor's types name Apollo's CommonJS build; the plugins are the same objects.
    // Apollo's landing page loads its code from a CDN: the IDE at GET /graphql is ours (src/http/browser-pages.ts).
    plugins: [metrics.graphql, legacyJsonStatus, inputBoundary, createReplay(log), ...(armor.plugins as unknown as ApolloServerPlugin[]), ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled(),
      // Apollo's own plugins this service does not use, off rather than left to the environment: the
      // federation inline trace (installed by default and asked on every request, though this schema
      // is no subgraph), usage and schema reporting to Apollo's cloud (an APOLLO_KEY would turn them on).
      ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginUsageReportingDisabled(), ApolloServerPluginSchemaReportingDisabled()],
    formatError: (formatted, error) => {
      const requestId = requestScope.getStore()?.requestId ?? 'unknown';
      const described = describeError(error, requestId);
      if (described.unexpected) log.error({ err: described.unexpected, requestId }, 'unexpected error');
      const shown = toFormatted(described, formatted);
      return config.GRAPHQL_INTROSPECTION ? shown : hideSuggestions(shown);
    },
  });
  await apollo.start();
  const live = new LiveHub(() => orm.em.fork(), { pollMs: config.EVENTS_OUT_POLL_MS, sessionCheckMs: LIVE_SESSION_CHECK_MS }, log);
  // A trace's phases: NOTIFY through the pool, heard by a connection of its own (PostgreSQL); in process on PGlite.
  if (pool) core.traceProgress.usePostgres(config.DATABASE_URL!, (payload) => pool.query('select pg_notify($1, $2)', [TRACE_CHANNEL, payload]));
  core.traceProgress.checkSessions(() => orm.em.fork(), LIVE_SESSION_CHECK_MS);
  const doors = liveDoors({
    schema, core, primary, db, fork: () => orm.em.fork(), hub: live,
    validationRules: armor.validationRules as unknown as ValidationRule[], maxTokens: config.GRAPHQL_MAX_TOKENS, showSuggestions: config.GRAPHQL_INTROSPECTION, log,
  });

  const app = new Koa();
  app.proxy = config.TRUST_PROXY;

  // Set by close(): responses then end their keep-alive connection, so shutdown does not wait on idle clients.
  let shuttingDown = false;

  const rest = buildRestRouter(schema, log, run);
  /** A request's route for metrics: the template it matched (a replayed or refused REST request by the route it names), never the raw path. */
  const routeOf = (ctx: Koa.ParameterizedContext): string => {
    const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
    if (typeof matched === 'string') return matched;
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) return '(preflight)';
    const layer = rest.match(ctx.path, ctx.method).pathAndMethod.at(-1);
    return typeof layer?.path === 'string' ? layer.path : '(unmatched)';
  };

  // Request id, structured access log, SQL statement count, metrics.
  app.use(async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const after: (() => void)[] = [];
    const scope: RequestScope = { requestId: REQUEST_ID.test(incoming) ? incoming : newId(), statements: 0, afterResponse: (work) => after.push(work) };
    // Koa writes the body once every middleware has returned: the work left for later runs when it is out.
    ctx.res.once('close', () => {
      for (const work of after.splice(0)) work();
    });
    ctx.set('X-Request-Id', scope.requestId);
    const started = performance.now();
    await requestScope.run(scope, async () => {
      try {
        await next();
      } finally {
        if (config.METRICS_ENABLED) metrics.request(ctx.method, routeOf(ctx), ctx.status, (performance.now() - started) / 1000, scope.statements);
        // Answers name a caller's records or carry its tokens: no cache, shared or private, keeps them.
        if ((ctx.path.startsWith('/api/') && !ctx.path.startsWith('/api/docs/assets/')) || ctx.path === '/graphql') ctx.set('Cache-Control', 'no-store');
        if (config.EXPOSE_SQL_STATEMENTS) ctx.set('X-SQL-Statements', String(scope.statements));
        if (shuttingDown) ctx.set('Connection', 'close');
      }
    });
    log.info({ requestId: scope.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started), sql: scope.statements }, 'request');
  });

  // Every error leaves in the contract's shape; nothing unexpected shows a stack or SQL.
  const answerError = (ctx: Koa.Context, err: unknown) => {
    const requestId = requestScope.getStore()?.requestId ?? 'unknown';
    const e = toDomainError(err, requestId);
    if (e.code === 'INTERNAL') log.error({ err, requestId }, 'unexpected error');
    ctx.status = STATUS_OF[e.code];
    if (e.retryAfter) ctx.set('Retry-After', String(e.retryAfter));
    ctx.body = { error: e.code, detail: e.detail };
  };
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      answerError(ctx, err);
      // A refusal before the body was read whole (413 above all): the rest is read first, so the
      // client still sending gets its answer rather than a reset.
      if (ctx.status === 413) await drainBody(ctx.req);
    }
  });

  // Before anything reads the body or the token: a preflight carries neither.
  app.use(corsMiddleware(config));

  // Helmet's default CSP everywhere; the IDE and docs pages set their own (own assets, Monaco's workers).
  app.use(await staticHelmet());

  // Plain functions where nothing is awaited after `next`: an async one is one more promise per request.
  app.use((ctx, next) => {
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(ctx.method) && (ctx.request.length ?? 0) > 0;
    // Uploads stream their multipart body to the route (rest/multipart.ts), past the JSON parser.
    if (hasBody && !isJson(ctx) && !(isUploadRoute(ctx.method, ctx.path) && ctx.is('multipart/form-data'))) throw new DomainError('BAD_REQUEST', 'the request body must be application/json');
    return next();
  });
  // detectJSON: the usual header is JSON without the parser's type-is pass (any other still gets it).
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT, encoding: 'utf-8', detectJSON: usualJson }));
  // REST bodies' shape, before anything (the idempotency hash included) walks them; their values
  // are checked by the router, /graphql's by its plugin (graphql/input-boundary.ts).
  app.use((ctx, next) => {
    if (ctx.path !== '/graphql') checkInput((ctx.request as { body?: unknown }).body ?? null, 'body', true);
    return next();
  });

  const probes = new Router();
  probes.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  probes.get('/ready', async (ctx) => {
    try {
      await orm.em.fork().execute('select 1');
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { error: 'NOT_READY', detail: 'database unreachable' };
    }
  });
  const openapi = buildOpenApi(routes, schema, { publicUrl: config.PUBLIC_URL, examples: loadExamples() });
  probes.get('/api/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  if (config.METRICS_ENABLED) probes.get('/metrics', metrics.endpoint);
  app.use(routesOf(probes));
  app.use(routesOf(browserPages(config)));

  // Per request: the actor (from the bearer token), a fresh entity manager when one is needed, the loaders.
  app.use(async (ctx, next) => {
    let actor: Actor | null = null;
    let authError: DomainError | null = null;
    const header = ctx.get('Authorization');
    if (header) {
      const [scheme, token] = header.split(' ');
      try {
        if (scheme?.toLowerCase() !== 'bearer' || !token) throw DomainError.unauthenticated('Authorization must be "Bearer <token>"');
        // On the primary: a revoked session is refused at once, whatever a replica has replayed.
        actor = await core.auth.authenticate(primary, token);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        authError = err;
      }
    }
    ctx.state.gql = createContext({ core, db, actor, authError, requestId: requestScope.getStore()!.requestId, address: ctx.ip }, () => orm.em.fork());
    if (!replicas) return next();
    // Read-your-writes: a user's writes by user; an anonymous write (a sign-up, a login) by client
    // address, which the user's first requests then also wait for.
    const address = `address:${ctx.ip}`;
    // Across instances: the client sends back the X-Read-After of its last write's answer, and
    // whichever instance it reaches reads at least that far (docs/decisions/replicas.md).
    const reader: NonNullable<RequestScope['reader']> = {
      keys: actor ? [`user:${actor.userId}`, address] : [address],
      writeKeys: actor ? [`user:${actor.userId}`] : [address],
      wrote: false,
      after: lsnHeader(ctx.get('x-read-after')),
    };
    requestScope.getStore()!.reader = reader;
    try {
      await next();
    } finally {
      if (reader.wrote) await replicas.noteWrite(reader.writeKeys);
      if (reader.written !== undefined && !ctx.headerSent) ctx.set('X-Read-After', lsnText(reader.written));
    }
  });

  // graphql-sse (GraphQL subscriptions over server-sent events), the request's actor known.
  app.use(doors.sse);

  // /graphql, any method: nothing after Apollo runs. A path test where a router matched its one route
  // (as @koa/router matched it: any case, an optional trailing slash); named for metrics as it named it.
  const graphqlHandler = apolloKoa(apollo, async (ctx) => ctx.state.gql);
  app.use((ctx, next) => {
    if (!GRAPHQL_PATH.test(ctx.path)) return next();
    (ctx as { _matchedRoute?: string })._matchedRoute = '/graphql';
    return graphqlHandler(ctx);
  });

  // Idempotency-Key on REST POSTs (GraphQL is not covered): runs the rest of the chain at most once per caller and key.
  app.use(async (ctx, next) => {
    const header = ctx.headers['idempotency-key'];
    if (ctx.method !== 'POST' || !ctx.path.startsWith('/api/') || header === undefined) return next();
    const key = checkKey(Array.isArray(header) ? header.join(', ') : header);
    const gql = ctx.state.gql as { actor: Actor | null; address: string };
    const request = { caller: callerOf(gql.actor?.userId, gql.address), key, method: ctx.method, path: ctx.path, body: (ctx.request as { body?: unknown }).body ?? null };
    const { response, replayed } = await idempotent(
      orm.em.fork(),
      request,
      async () => {
        try {
          await next();
        } catch (err) {
          answerError(ctx, err);
        }
        return { status: ctx.status, body: ctx.body ?? null };
      },
      claims?.connect,
    );
    if (!replayed) return;
    ctx.status = response.status;
    if (response.body !== null) ctx.body = response.body;
    ctx.set('Idempotent-Replayed', 'true');
  });

  // A REST create retried with its client id and the same body answers what the first one answered.
  app.use(async (ctx, next) => {
    const gql = ctx.state.gql as { actor: Actor | null };
    const body = (ctx.request as { body?: unknown }).body;
    const id = ctx.method === 'POST' && ctx.path.startsWith('/api/') && gql.actor ? clientIdOf(body) : null;
    if (!id) return next();
    const request = { caller: callerOf(gql.actor!.userId, ''), path: ctx.path, body };
    const stored = await storedCreate(orm.em.fork(), request, id);
    if (stored) {
      ctx.status = stored.status;
      ctx.body = stored.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    await next();
    // Kept: a 201 that carries the created record's id.
    if (ctx.status === 201 && (ctx.body as { data?: { id?: unknown } } | null)?.data?.id === id) await storeCreate(orm.em.fork(), request, id, { status: ctx.status, body: ctx.body });
  });

  app.use(rest.routes());
  app.use(rest.allowedMethods());
  app.use((ctx) => {
    throw new DomainError('NOT_FOUND', `no route ${ctx.method} ${ctx.path}`);
  });

  let server: Server | null = null;
  return {
    app,
    orm,
    db,
    replicas,
    core,
    schema,
    live,
    log,
    listen(port = config.PORT) {
      return new Promise((resolve) => {
        server = app.listen(port, config.HOST, () => resolve(server!));
        // An idle keep-alive connection is closed by the client (or the proxy in front: 60 s is the
        // usual idle limit) before the server: with Node's 5 s the server could close a connection
        // the instant a client sent on it, and that request met ECONNRESET.
        server.keepAliveTimeout = KEEP_ALIVE_MS;
        server.headersTimeout = KEEP_ALIVE_MS + 1000;
        server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, log));
        // graphql-ws on the upgrades to /graphql.
        doors.attach(server);
      });
    },
    async close() {
      // In-flight requests finish, and so do requests a client sent on an idle keep-alive connection
      // at this instant (each answered with Connection: close); then the idle ones close, then the pool.
      shuttingDown = true;
      // Subscriptions end first (their sockets and streams would hold the server open).
      await live.stop();
      await core.traceProgress.close();
      await doors.close();
      if (server) {
        const s = server;
        // Stop accepting connections only: http.Server#close would drop the idle keep-alive ones at
        // once, and a request already on its way over one met ECONNRESET.
        const closing = new Promise<void>((resolve) => NetServer.prototype.close.call(s, () => resolve()));
        const grace = setTimeout(() => s.closeIdleConnections(), Math.min(config.SHUTDOWN_GRACE_MS, config.SHUTDOWN_TIMEOUT_MS));
        const timer = setTimeout(() => s.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS);
        await closing;
        clearTimeout(grace);
        clearTimeout(timer);
      }
      await apollo.stop();
      await claims?.close();
      await replicas?.close();
      core.mailer.stop();
      await eventsOut?.stop();
      await actorListener?.close();
      await orm.close();
    },
  };
}

/**
 * What Node's HTTP parser refuses before Koa sees it (a request line and headers over its 16 KiB, a
 * malformed request, one that does not arrive in time) is answered in the contract's shape, 400
 * BAD_REQUEST, where Node would send a bare 431 or 400 without a body.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const detail =
    err.code === 'HPE_HEADER_OVERFLOW' ? 'the request line and headers are over 16 KiB' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'the request did not arrive in time' : 'malformed HTTP request';
  const requestId = newId();
  log.info({ requestId, status: STATUS_OF.BAD_REQUEST, code: err.code }, 'request refused by the HTTP parser');
  const body = JSON.stringify({ error: 'BAD_REQUEST', detail });
  socket.end(
    `HTTP/1.1 ${STATUS_OF.BAD_REQUEST} ${STATUS_CODES[STATUS_OF.BAD_REQUEST]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Helmet's default headers, which name nothing of the request: read once from helmet at start and
 * set on every answer as helmet sets them (its twelve middlewares and their callbacks were 1.5% of
 * a point read's CPU). Whatever helmet's defaults become, this sets the same.
 */
async function staticHelmet(): Promise<Koa.Middleware> {
  const set: [string, number | string | readonly string[]][] = [];
  const removed: string[] = [];
  const res = {
    setHeader: (name: string, value: number | string | readonly string[]) => void set.push([name, value]),
    removeHeader: (name: string) => void removed.push(name),
  };
  await helmet()({ req: { headers: {} }, res } as unknown as Koa.Context, async () => undefined);
  return (ctx, next) => {
    for (const name of removed) ctx.res.removeHeader(name);
    for (const [name, value] of set) ctx.res.setHeader(name, value);
    return next();
  };
}

/**
 * A router's middleware that passes a request by at once when none of its routes has its method:
 * the probes and the browser pages serve GET (and HEAD) only, and matching a POST /graphql against
 * every one of their routes was 4-5% of a point read's CPU (measured). A router with a middleware
 * for every method (`router.use`) is always asked.
 */
function routesOf(router: Router): Koa.Middleware {
  const dispatch = router.routes() as unknown as Koa.Middleware;
  if (router.stack.some((layer) => layer.methods.length === 0)) return dispatch;
  const methods = new Set(router.stack.flatMap((layer) => layer.methods));
  return (ctx, next) => (methods.has(ctx.method) ? dispatch(ctx, next) : next());
}

/** A JSON body's Content-Type as clients send it: what `ctx.is('application/json')` would say yes to, without type-is's parsing. */
const USUAL_JSON = new Set(['application/json', 'application/json; charset=utf-8']);
const usualJson = (ctx: Koa.Context): boolean => USUAL_JSON.has(ctx.get('Content-Type'));

/** `ctx.is('application/json')`, the usual header answered at once. */
function isJson(ctx: Koa.Context): boolean {
  return usualJson(ctx) || Boolean(ctx.is('application/json'));
}

function toDomainError(err: unknown, requestId: string): DomainError {
  if (err instanceof DomainError) return err;
  const status = (err as { status?: number; statusCode?: number })?.status ?? (err as { statusCode?: number })?.statusCode;
  if (status === 413) return new DomainError('PAYLOAD_TOO_LARGE', `the body is over ${BODY_LIMIT}`);
  if (status === 400 || status === 415) return new DomainError('BAD_REQUEST', 'malformed JSON body');
  if (status === 405 || status === 501) return new DomainError('NOT_FOUND', 'no such method on this path');
  const described = describeError(err, requestId);
  return new DomainError(described.code, described.detail, described.retryAfter);
}
