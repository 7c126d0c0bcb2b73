import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Every REST answer the suite receives, held against the OpenAPI document the service serves
 * (`/api/openapi.json`): its status must be one the operation lists, and a JSON body must validate
 * against that status's schema (errors included). Built once per test file's module registry (a jest
 * worker runs one file at a time) from the first service that serves it; the schemas compile on
 * first use. Paths and methods the document does not list (/graphql, /health, an unknown path) are
 * not REST operations of the contract and are not checked.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document read as it comes
type Json = Record<string, any>;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Json;
}

interface Checker {
  operations: Operation[];
  validators: Map<string, ValidateFunction>;
  ajv: Ajv2020;
}

const DOC_ID = 'https://openapi.test/served.json';
let checker: Promise<Checker> | undefined;

async function build(baseUrl: string): Promise<Checker> {
  const res = await fetch(`${baseUrl}/api/openapi.json`);
  if (res.status !== 200) throw new Error(`OpenAPI check: GET /api/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as Json;
  // The OpenAPI 3.1 schema dialect is JSON Schema 2020-12 plus annotations (example, x-...).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries<Json>(item)) operations.push({ method: method.toUpperCase(), template, pattern, responses: op.responses ?? {} });
  }
  // A literal path wins over a template that also matches it (/api/tags/search over /api/tags/{id}).
  operations.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  return { operations, validators: new Map(), ajv };
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Where in the body and what: `data.control_units[0]: must have required property 'establishment_id'`. */
function describe(errors: ErrorObject[] | null | undefined): string {
  const lines = (errors ?? [])
    // anyOf's branches repeat the real error; keep the most specific ones.
    .filter((e) => e.keyword !== 'anyOf')
    .map((e) => {
      const at = e.instancePath.split('/').slice(1).map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') || '(body)';
      const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
      return `${at}: ${e.message}${extra}`;
    });
  return [...new Set(lines)].slice(0, 8).join('; ');
}

/**
 * Throws, naming the route, the status and the field, when an answer is not what the document says.
 * `path` is the request path (query string allowed).
 */
export async function checkAnswer(baseUrl: string, method: string, path: string, status: number, contentType: string | null, body: unknown): Promise<void> {
  checker ??= build(baseUrl);
  const { operations, validators, ajv } = await checker;
  const pathname = path.split('?')[0]!.replace(/\/+$/, '') || '/';
  const op = operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));
  if (!op) return;
  const shown = path.length > 120 ? `${path.slice(0, 120)}…` : path;
  const where = `${op.method} ${op.template} (${method.toUpperCase()} ${shown})`;
  const response = op.responses[String(status)];
  if (!response) throw new Error(`OpenAPI check: ${where} answered ${status}, a status its operation does not list (it lists ${Object.keys(op.responses).join(', ')})`);
  const content: Json | undefined = response.content;
  if (!content) {
    if (body !== undefined && body !== '') throw new Error(`OpenAPI check: ${where} answered ${status} with a body, where the document lists none`);
    return;
  }
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(type in content)) throw new Error(`OpenAPI check: ${where} answered ${status} as "${type}", which the document does not list (${Object.keys(content).join(', ')})`);
  if (type !== 'application/json') return;
  const key = `${op.method} ${op.template} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#/${pointer('paths', op.template, op.method.toLowerCase(), 'responses', String(status), 'content', type, 'schema')}` });
    validators.set(key, validate);
  }
  if (!validate(body)) throw new Error(`OpenAPI check: ${where} answered ${status} off its schema: ${describe(validate.errors)}`);
}
