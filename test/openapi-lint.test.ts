import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { useApp } from './helpers/app.js';
import { checkAnswer } from './helpers/openapi-check.js';

/**
 * The document the service serves, as an integrator's tools read it: Redocly's linter (recommended
 * rules, examples checked against their schemas) with no error and no warning, and swagger-parser's
 * validation. Both run offline on a copy written to a temporary file.
 */
const app = useApp();
let dir: string;
let file: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  file = join(dir, 'openapi.json');
  const res = await app.call('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  writeFileSync(file, JSON.stringify(res.body));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REDOCLY = new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url).pathname;

test('redocly lint: 0 errors, 0 warnings', async () => {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  // Exits 1 on an error; the JSON report says what either way.
  const out = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', file, '--format=json', '--max-problems=50'], { env, maxBuffer: 64 * 1024 * 1024 }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const report = JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  expect({ ...report.totals, problems }).toEqual({ errors: 0, warnings: 0, ignored: 0, problems: [] });
}, 120_000);

test('swagger-parser validates the document (OpenAPI 3.1 schema and references)', async () => {
  const api = await SwaggerParser.validate(file);
  expect((api as { openapi?: string }).openapi).toMatch(/^3\.1\./);
});

describe('the test helper checks every REST answer against this document', () => {
  test('an answer missing a required field fails, naming the route, the status and the field', async () => {
    const answer = { data: { id: '0b5d7f7e-7a59-4c1c-9b7e-6f3d3c1c1c1c', str_name: 'Org', ts_created_at: '2026-01-01T00:00:00Z', ts_updated_at: '2026-01-01T00:00:00Z' } };
    await expect(checkAnswer(app.url, 'GET', `/api/organizations/${answer.data.id}`, 200, 'application/json', answer)).rejects.toThrow(
      /GET \/api\/organizations\/\{id\} .* answered 200 off its schema: data: must have required property 'str_document'/,
    );
    await expect(checkAnswer(app.url, 'GET', `/api/organizations/${answer.data.id}`, 200, 'application/json', { data: { ...answer.data, str_document: '12345678000195' } })).resolves.toBeUndefined();
  });

  test('a status the operation does not list fails, and so does an error off the error shape', async () => {
    await expect(checkAnswer(app.url, 'GET', '/api/counties', 404, 'application/json', { error: 'NOT_FOUND', detail: 'x' })).rejects.toThrow(/GET \/api\/counties .* answered 404, a status its operation does not list/);
    await expect(checkAnswer(app.url, 'GET', '/api/counties', 422, 'application/json', { error: 'NOT_FOUND', detail: 'x' })).rejects.toThrow(/answered 422 off its schema: error: must be equal to one of the allowed values/);
    await expect(checkAnswer(app.url, 'GET', '/api/counties', 422, 'application/json', { error: 'VALIDATION_FAILED' })).rejects.toThrow(/\(body\): must have required property 'detail'/);
  });
});

test('POST /api/v1/establishments requires str_ibge_code, str_name and str_type (interface.md); the private create marks none', async () => {
  const doc = (await app.call('GET', '/api/openapi.json')).body;
  const bodyOf = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
  expect(bodyOf('/api/v1/establishments').allOf[1]).toEqual({ required: ['str_ibge_code', 'str_name', 'str_type'] });
  expect(bodyOf('/api/establishments')).toEqual({ $ref: '#/components/schemas/EstablishmentCreateInput' });
  expect(doc.components.schemas.EstablishmentCreateInput.required).toEqual([]);
});
