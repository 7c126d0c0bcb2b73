import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import { GraphQLError, Kind, visit, type DocumentNode } from 'graphql';
import { DomainError } from '../src/shared/errors.js';
import { checkInput, valueProblem } from '../src/shared/input.js';

// Apollo keeps a parsed document per query text: a document asked again is checked once.
const checked = new WeakMap<DocumentNode, Record<string, string[]>>();

/** The string literals written into a document, by the argument or input field they are given to. */
function literalProblems(document: DocumentNode): Record<string, string[]> {
  let fields = checked.get(document);
  if (!fields) {
    fields = literalProblemsOf(document);
    checked.set(document, fields);
  }
  return fields;
}

function literalProblemsOf(document: DocumentNode): Record<string, string[]> {
  const fields: Record<string, string[]> = Object.create(null); // user-named keys: `constructor` is a field, not Object's
  const check = (name: string, node: { kind: Kind; value?: unknown }) => {
    if (node.kind !== Kind.STRING) return;
    const problem = valueProblem(name, node.value);
    if (problem) (fields[name] ??= []).push(problem);
  };
  visit(document, {
    Argument: (node) => check(node.name.value, node.value),
    ObjectField: (node) => check(node.name.value, node.value),
  });
  return fields;
}

/**
 * /graphql's side of the one input boundary (src/shared/input.ts): variables and literals pass the
 * same checks as a REST body before the operation runs. REST checks its bodies in the server.
 */
export const inputBoundary: ApolloServerPlugin = {
  // One listener for every request: it keeps nothing of its own.
  async requestDidStart() {
    return checking;
  },
};

const checking: GraphQLRequestListener<BaseContext> = {
  async didResolveOperation({ request, document }) {
    try {
      checkInput(request.variables ?? null, 'variables');
      const fields = literalProblems(document);
      if (Object.keys(fields).length) throw DomainError.validation(fields);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      throw new GraphQLError('input refused', { originalError: err, extensions: { http: { status: 400 } } });
    }
  },
};
