import { readFileSync } from 'node:fs';
import { codegen } from '@graphql-codegen/core';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import { buildSchema, parse, printSchema } from 'graphql';
import ts from 'typescript';

/**
 * What a frontend does with the checked-in SDL: GraphQL Code Generator's TypeScript types for a
 * query, then code using them, type-checked. The filters must come out typed: a known filter with
 * its type compiles, an unknown one or a wrong type does not (each `@ts-expect-error` must find
 * its error, or the compiler reports the directive unused).
 */
const SDL = readFileSync(new URL('../graphql/schema.graphql', import.meta.url), 'utf8');

const DOCUMENT = `query HerdPage($where: AnimalFilter, $orderBy: AnimalOrder) {
  animals(where: $where, orderBy: $orderBy, page: { int_max_results: 50 }) { data { id str_name str_species } meta { int_total_results } }
}`;

const USAGE = `
export const herd: HerdPageQueryVariables = {
  where: { str_species: 'BOVINE', str_gender: null, ts_created_at_from: '2026-01-01T00:00:00Z', last_control_unit_id: 'b9c3...' },
  orderBy: { field: 'str_name', direction: 'ASC' },
};
// @ts-expect-error an unknown filter
export const unknownFilter: HerdPageQueryVariables = { where: { str_colour: 'red' } };
// @ts-expect-error a filter of the wrong type
export const wrongType: HerdPageQueryVariables = { where: { str_species: 5 } };
// @ts-expect-error a field lists cannot be ordered by
export const unknownOrder: HerdPageQueryVariables = { orderBy: { field: 'str_colour' } };
export const names = (q: HerdPageQuery): (string | null | undefined)[] => q.animals.data.map((a) => a.str_name);
`;

async function generated(): Promise<string> {
  const schema = buildSchema(SDL);
  return codegen({
    schema: parse(printSchema(schema)),
    documents: [{ document: parse(DOCUMENT) }],
    filename: 'herd.generated.ts',
    config: { enumsAsTypes: true, strictScalars: true, scalars: { DateTimeISO: 'string', UUID: 'string', JSONObject: 'Record<string, unknown>' } },
    // typescript-operations 6 writes the input types and enums an operation uses itself.
    plugins: [{ typescriptOperations: {} }],
    pluginMap: { typescriptOperations: operationsPlugin },
  });
}

/** The compiler's complaints about one in-memory file, strict. */
function diagnosticsOf(source: string): string[] {
  const name = '/virtual/herd.ts';
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, lib: ['lib.es2022.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, version, onError) => (file === name ? ts.createSourceFile(file, source, version) : read(file, version, onError));
  const program = ts.createProgram([name], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test('a frontend query generated from the SDL has typed filters: known ones compile, unknown ones and wrong types do not', async () => {
  const types = await generated();
  expect(types).toContain('export type AnimalFilter = {');
  expect(diagnosticsOf(types + USAGE)).toEqual([]);
  // The same usage against an untyped filter would leave the expect-error directives unused: the check can fail.
  expect(diagnosticsOf(types.replace(/export type AnimalFilter = \{[^}]*\};/, 'export type AnimalFilter = Record<string, unknown>;') + USAGE)).toContain("Unused '@ts-expect-error' directive.");
}, 60_000);
