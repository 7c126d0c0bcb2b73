import type { Server } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GraphQLError, parse, specifiedRules, validate, type DocumentNode, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema, type ValidationRule } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createHandler } from 'graphql-sse/lib/use/koa';
import type { Middleware } from 'koa';
import { WebSocketServer } from 'ws';
import { createContext, type Context } from './context.js';
import { describeError, hideSuggestions, toFormatted } from './errors.js';
import type { Core } from '../src/core.js';
import type { Db } from '../src/db/sql.js';
import type { Actor } from '../src/identity/actor.js';
import type { LiveEnd, LiveHub } from '../src/outbox/live.js';
import { DomainError } from '../src/shared/errors.js';
import { newId } from '../src/shared/ids.js';
import type { Logger } from '../src/shared/logger.js';

export interface LiveDoorOptions {
  schema: GraphQLSchema;
  core: Core;
  /** Tokens are checked on the primary (a revoked session is refused at once). */
  primary: Db;
  db: Db;
  fork: () => EntityManager;
  hub: LiveHub;
  /** graphql-armor's rules (depth, cost, aliases, directives): a subscription document is held to the same limits as a query. */
  validationRules: readonly ValidationRule[];
  maxTokens: number;
  showSuggestions: boolean;
  log: Logger;
}

/** graphql-ws close codes: the server ended the connection because its session no longer holds. */
const CLOSE_OF: Record<LiveEnd, [number, string]> = {
  SESSION_REVOKED: [4403, 'session revoked'],
  TOKEN_EXPIRED: [4401, 'token expired'],
  USER_GONE: [4403, 'user gone'],
  TOO_SLOW: [4429, 'too many unread events'],
  SHUTDOWN: [1001, 'server shutting down'],
};

/**
 * The two doors of GraphQL subscriptions on the one schema: graphql-ws (GraphQL over WebSocket) on
 * the HTTP server's upgrades at /graphql, the token in `connection_init`'s payload
 * (`{ authorization: 'Bearer …' }`); graphql-sse (distinct connections) at /graphql/stream, the
 * token in the Authorization header. Documents are parsed with the token limit and validated with
 * graphql-armor's rules, as /graphql does; events come from the hub (src/outbox/live.ts).
 */
export function liveDoors(o: LiveDoorOptions) {
  const rules = [...specifiedRules, ...o.validationRules];
  const format = (errors: readonly GraphQLError[], requestId: string): GraphQLFormattedError[] =>
    errors.map((e) => {
      const described = describeError(e, requestId);
      if (described.unexpected) o.log.error({ err: described.unexpected, requestId }, 'unexpected error');
      const shown = toFormatted(described, e.toJSON());
      return o.showSuggestions ? shown : hideSuggestions(shown);
    });
  /** The document, or the errors a client gets for it (syntax, the limits, validation). */
  const check = (query: string): DocumentNode | readonly GraphQLError[] => {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: o.maxTokens });
    } catch (e) {
      return [e instanceof GraphQLError ? e : new GraphQLError(String(e))];
    }
    const errors = validate(o.schema, document, rules);
    return errors.length ? errors : document;
  };
  // A connection outlives what its session statement read: `mayBeGranted` is left out, so its scopes
  // keep judging invites and sharings in SQL on every read (a grant made meanwhile shows).
  const contextOf = (caller: Actor, address: string, requestId: string, onEnd?: (reason: LiveEnd) => void): Context => {
    const actor = { ...caller };
    delete actor.mayBeGranted;
    return createContext({ core: o.core, db: o.db, actor, authError: null, requestId, address, live: { hub: o.hub, onEnd } }, o.fork);
  };
  const authenticate = async (header: unknown): Promise<Actor | DomainError> => {
    const [scheme, token] = typeof header === 'string' ? header.split(' ') : [];
    if (scheme?.toLowerCase() !== 'bearer' || !token) return DomainError.unauthenticated('Authorization must be "Bearer <token>"');
    try {
      return await o.core.auth.authenticate(o.primary, token);
    } catch (e) {
      if (e instanceof DomainError) return e;
      throw e;
    }
  };

  let wss: WebSocketServer | null = null;
  let disposeWs: (() => Promise<void> | void) | null = null;

  return {
    /** graphql-ws on the server's upgrades to /graphql. */
    attach(server: Server): void {
      wss = new WebSocketServer({ server, path: '/graphql', maxPayload: 1024 * 1024 });
      const requests = new WeakMap<object, string>();
      disposeWs = useServer<{ authorization?: string }, { actor: Actor }>(
        {
          onConnect: async (ctx) => {
            const actor = await authenticate(ctx.connectionParams?.authorization);
            if (actor instanceof DomainError) return false;
            (ctx.extra as { actor?: Actor }).actor = actor;
            return true;
          },
          onSubscribe: (ctx, _id, payload) => {
            const requestId = newId();
            const checked = check(payload.query);
            if (!('kind' in checked)) return format(checked, requestId).map((f) => new GraphQLError(f.message, { extensions: f.extensions }));
            const socket = ctx.extra.socket;
            const contextValue = contextOf(ctx.extra.actor!, ctx.extra.request.socket.remoteAddress ?? '', requestId, (reason) => socket.close(...CLOSE_OF[reason]));
            requests.set(contextValue, requestId);
            return { schema: o.schema, document: checked, operationName: payload.operationName ?? null, variableValues: payload.variables ?? null, contextValue };
          },
          onNext: (_ctx, _id, _payload, args, result) => {
            if (!result.errors?.length) return undefined;
            return { ...result, errors: format(result.errors, requests.get(args.contextValue as object) ?? 'unknown') } as unknown as ExecutionResult;
          },
        },
        wss,
      ).dispose;
    },

    /** graphql-sse at /graphql/stream, after the request's actor is known (ctx.state.gql). */
    sse: ((): Middleware => {
      const handler = createHandler<Record<PropertyKey, unknown>>({
        schema: o.schema,
        // Distinct connections only: each request is its own stream, authorized by its own header.
        authenticate: () => null,
        onSubscribe: (req, params) => {
          const gql = (req.context.state as { gql: Context }).gql;
          if (!gql.actor) {
            const e = gql.authError ?? DomainError.unauthenticated();
            return [JSON.stringify({ error: e.code, detail: e.detail }), { status: 401, statusText: 'Unauthorized', headers: { 'content-type': 'application/json; charset=utf-8' } }];
          }
          const checked = check(params.query);
          if (!('kind' in checked)) return { errors: format(checked, gql.requestId) } as unknown as ExecutionResult;
          // The hub ends the subscription's events: graphql-sse then sends `complete` and ends the stream.
          const contextValue = contextOf(gql.actor, gql.address, gql.requestId);
          return { schema: o.schema, document: checked, operationName: params.operationName ?? null, variableValues: params.variables ?? null, contextValue: contextValue as unknown as Record<PropertyKey, unknown> };
        },
        onNext: (ctx, _req, result) => {
          if (!result.errors?.length) return undefined;
          return { ...result, errors: format(result.errors, (ctx as unknown as Context).requestId) } as unknown as ExecutionResult;
        },
      });
      return (ctx, next) => (ctx.path !== '/graphql/stream' ? next() : handler(ctx, next));
    })(),

    async close(): Promise<void> {
      await disposeWs?.();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
    },
  };
}
