import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kind, print, validate } from 'graphql';
import { getSchema } from '../graphql/schema.js';
import { printSchemaSdl } from '../graphql/sdl.js';
import { loadOperations } from '../rest/operations.js';
import { routes } from '../rest/router.js';

const checkedIn = fileURLToPath(new URL('../graphql/schema.graphql', import.meta.url));

test('graphql/schema.graphql matches the schema the code builds', async () => {
  const expected = readFileSync(checkedIn, 'utf8');
  const actual = await printSchemaSdl();
  if (actual !== expected) {
    const a = actual.split('\n');
    const e = expected.split('\n');
    const line = a.findIndex((l, i) => l !== e[i]);
    throw new Error(
      `graphql/schema.graphql is out of date with the code: run \`npm run build && npm run schema:emit\` and check the file in.\n` +
        `first difference at line ${line + 1}:\n  code:       ${a[line] ?? '(end)'}\n  checked in: ${e[line] ?? '(end)'}`,
    );
  }
});

test('every REST operation document loads and validates against the schema', async () => {
  const schema = await getSchema();
  const operations = loadOperations(schema);
  expect(operations.size).toBeGreaterThan(0);
  for (const [name, op] of operations) {
    expect(op.definition.kind).toBe(Kind.OPERATION_DEFINITION);
    expect(op.definition.name?.value).toBe(name);
    // The document carries its operation first and only fragment definitions after it.
    expect(op.document.definitions[0]).toBe(op.definition);
    for (const d of op.document.definitions.slice(1)) expect(d.kind).toBe(Kind.FRAGMENT_DEFINITION);
    expect(print(op.document)).toContain(name);
    expect({ name, errors: validate(schema, op.document).map((e) => e.message) }).toEqual({ name, errors: [] });
  }
});

test('every route names an operation that exists, of the right kind', async () => {
  const operations = loadOperations(await getSchema());
  for (const route of routes) {
    const op = operations.get(route.operation);
    expect({ route: `${route.method} ${route.path}`, found: Boolean(op) }).toEqual({ route: `${route.method} ${route.path}`, found: true });
    expect({ route: `${route.method} ${route.path}`, kind: op!.definition.operation }).toEqual({ route: `${route.method} ${route.path}`, kind: route.method === 'GET' ? 'query' : expect.stringMatching(/^(query|mutation)$/) });
  }
});
