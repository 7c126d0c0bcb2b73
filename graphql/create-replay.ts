import type { ApolloServerPlugin, GraphQLResponse } from '@apollo/server';
import { Kind, getArgumentValues, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { callerOf } from '../src/shared/idempotency.js';
import { clientIdOf, storeCreate, storedCreate, type CreateRequest } from '../src/shared/create-replay.js';
import type { Logger } from '../src/shared/logger.js';
import type { Context } from './context.js';

/** The one mutation field of the operation, and the client id its `input` names; null for anything else. */
function clientCreate(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown>): { field: FieldNode; id: string } | null {
  if (operation.operation !== 'mutation' || operation.selectionSet.selections.length !== 1) return null;
  const field = operation.selectionSet.selections[0]!;
  if (field.kind !== Kind.FIELD || field.directives?.length) return null;
  const definition = schema.getMutationType()?.getFields()[field.name.value];
  if (!definition?.args.some((a) => a.name === 'input')) return null;
  try {
    const id = clientIdOf(getArgumentValues(definition, field, variables).input);
    return id ? { field, id } : null;
  } catch {
    return null; // variables that do not fit: execution answers that
  }
}

/**
 * CONTRACT.md, offline-first writes, at the GraphQL door: a create mutation retried with its client
 * id and the very same request (document, operation name and variables, by the same caller) gets
 * the stored response back, as REST does (src/shared/create-replay.ts), kept per caller, mutation
 * field and id in create_response. Built on Apollo's responseForOperation hook (the one its response
 * cache uses): the lookup runs after validation, before execution. A request that differs in any way
 * (another selection set, say) is not this answer's replay: it runs, and the service answers the
 * record as it is now, or CONFLICT on `id` for another body. Stored: answers without errors whose
 * field is the created record. Cost: one lookup and one insert per create that carries an id.
 */
export function createReplay(log: Logger): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ request }) {
      // A mutation is written with the word `mutation`: a text without it (a query, most requests) has nothing to replay or keep, and no listener.
      if (typeof request.query === 'string' && !request.query.includes('mutation')) return;
      let pending: { request: CreateRequest; id: string; key: string } | null = null;
      return {
        async responseForOperation({ schema, operation, operationName, queryHash, request, contextValue, response }): Promise<GraphQLResponse | null> {
          const actor = contextValue.actor;
          const create = actor ? clientCreate(schema, operation, request.variables ?? {}) : null;
          if (!actor || !create) return null;
          const body = { query: queryHash, operationName: operationName ?? null, variables: request.variables ?? {} };
          const req: CreateRequest = { caller: callerOf(actor.userId, ''), path: `graphql:${create.field.name.value}`, body };
          // Unreadable (the database away, say): the request runs, and answers what running it answers.
          const stored = await storedCreate(contextValue.em, req, create.id).catch(() => undefined);
          if (stored === undefined) return null;
          if (!stored) {
            pending = { request: req, id: create.id, key: create.field.alias?.value ?? create.field.name.value };
            return null;
          }
          response.http.headers.set('Idempotent-Replayed', 'true');
          return { http: response.http, body: { kind: 'single', singleResult: stored.body as { data: Record<string, unknown> } } };
        },
        async willSendResponse({ response, contextValue }) {
          if (!pending || response.body.kind !== 'single') return;
          const { data, errors } = response.body.singleResult;
          const record = data?.[pending.key] as { id?: unknown } | null | undefined;
          if (errors?.length || record?.id !== pending.id) return;
          // The answer is right either way: without its stored copy a retry replays through the service.
          await storeCreate(contextValue.em, pending.request, pending.id, { status: 200, body: { data } }).catch((err: unknown) => log.warn({ err, requestId: contextValue.requestId }, 'create answer not kept for replay'));
        },
      };
    },
  };
}
