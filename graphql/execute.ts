import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { BREAK, execute, getOperationAST, visit, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { GatewayInterface } from '@apollo/server-gateway-interface';

export interface Execution {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  /** The request's Context (graphql/context.ts). */
  contextValue: unknown;
}

export type Executor = (args: Execution) => Promise<ExecutionResult>;

/** Whether the document asks for the schema itself (`__schema`, `__type`): left to graphql-js. */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value.startsWith('__') && node.name.value !== '__typename') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Both doors' executor: a query runs compiled (graphql-jit, once per document and operation: the
 * field walk, argument coercion and null checks become straight-line code, plain fields a property
 * read), everything else as graphql-js runs it. Answers are graphql-js's, byte for byte: a
 * compiled run that reports any error is discarded and the query runs again through graphql-js,
 * so every error a client sees (message, path, locations, partial data) is worded and placed as
 * graphql-js does it. Only queries are compiled, so that second run never repeats a write.
 */
export function createExecutor(schema: GraphQLSchema): Executor {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  const compiledFor = (document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null => {
    let byName = compiled.get(document);
    if (!byName) {
      byName = new Map();
      compiled.set(document, byName);
    }
    const key = operationName ?? '';
    let query = byName.get(key);
    if (query === undefined) {
      const operation = getOperationAST(document, operationName);
      query = null;
      if (operation?.operation === 'query' && !introspects(document)) {
        const result = compileQuery(schema, document, operationName ?? undefined);
        if (isCompiledQuery(result)) query = result;
      }
      byName.set(key, query);
    }
    return query;
  };

  return async ({ document, operationName, variableValues, contextValue }) => {
    const query = compiledFor(document, operationName);
    if (query) {
      const result = await query.query(undefined, contextValue, variableValues ?? {});
      if (!result.errors?.length) return result;
    }
    return execute({ schema, document, contextValue, variableValues, operationName });
  };
}

/**
 * Apollo Server executes through a gateway's executor when given one: this "gateway" serves the
 * one local schema and runs operations with `run`. Apollo still parses, validates (graphql-armor's
 * rules included), runs its plugins and formats errors as before.
 */
export function localGateway(schema: GraphQLSchema, run: Executor): GatewayInterface {
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async load() {
      return {
        executor: (requestContext) =>
          run({
            document: requestContext.document,
            operationName: requestContext.operationName,
            variableValues: requestContext.request.variables ?? null,
            contextValue: requestContext.context,
          }),
      };
    },
    async stop() {},
  };
}
