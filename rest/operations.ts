import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kind, parse, validate, visit, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

export function operationsDir(): string {
  // Source tree (tests) or dist/rest after a build: the .graphql files stay in rest/operations.
  for (const rel of ['./operations/', '../../rest/operations/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error('rest/operations not found');
}

export interface NamedOperation {
  document: DocumentNode;
  definition: OperationDefinitionNode;
}

/** Loads every checked-in operation with the fragments it uses, validated against the schema once at start. */
export function loadOperations(schema: GraphQLSchema): Map<string, NamedOperation> {
  const dir = operationsDir();
  const source = readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => readFileSync(dir + f, 'utf8'))
    .join('\n');
  const all = parse(source);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of all.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const used = (node: OperationDefinitionNode | FragmentDefinitionNode, seen = new Set<string>()): Set<string> => {
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        if (!seen.has(name)) {
          seen.add(name);
          used(fragments.get(name)!, seen);
        }
      },
    });
    return seen;
  };
  const operations = new Map<string, NamedOperation>();
  for (const d of all.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION || !d.name) continue;
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [d, ...[...used(d)].map((n) => fragments.get(n)!)] };
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`rest operation ${d.name.value}: ${errors.map((e) => e.message).join('; ')}`);
    operations.set(d.name.value, { document, definition: d });
  }
  return operations;
}
