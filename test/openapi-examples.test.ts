import { useApp } from './helpers/app.js';

const app = useApp();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document read as it comes
type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The API documentation's examples are the test suite's own exchanges (rest/operations/examples.json,
 * `npm run docs:examples`): every operation answering JSON shows an answer, and every one taking a
 * JSON body shows a body. A route no test calls successfully has none, and is named here.
 */
test('every REST operation documents a request and an answer recorded from the tests', async () => {
  const doc: Json = (await app.call('GET', '/api/openapi.json')).body;
  const missing: string[] = [];
  let examples = 0;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      const success = Object.entries<Json>(op.responses).find(([status]) => status.startsWith('2'));
      const answer = success?.[1].content?.['application/json'];
      if (answer) {
        if (answer.example === undefined) missing.push(`${method.toUpperCase()} ${path}: answer`);
        else examples++;
      }
      const body = op.requestBody?.content?.['application/json'];
      if (body && op.requestBody.required && body.example === undefined) missing.push(`${method.toUpperCase()} ${path}: request body`);
    }
  }
  expect(missing).toEqual([]);
  expect(examples).toBeGreaterThan(100);
});

test('an example is a real answer in the documented shape: a record under data, a page with its meta', async () => {
  const doc: Json = (await app.call('GET', '/api/openapi.json')).body;
  const index = doc.paths['/api/establishments'].get.responses['200'].content['application/json'].example;
  expect(Object.keys(index).sort()).toEqual(['data', 'meta']);
  expect(index.meta).toEqual(expect.objectContaining({ int_current_page: expect.any(Number), int_total_results: expect.any(Number) }));
  const login = doc.paths['/api/login'].post;
  expect(login.requestBody.content['application/json'].example).toEqual(expect.objectContaining({ str_password: expect.any(String) }));
  // Tokens are not published, even the test suite's.
  expect(login.responses['200'].content['application/json'].example.data.str_access_token).toBe('<JWT>');
});
