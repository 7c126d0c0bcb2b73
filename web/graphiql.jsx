// The GraphQL IDE at GET /graphql: GraphiQL 5 and its explorer, bundled from npm by web/build.mjs
// (no CDN). The page's settings come from a JSON block the server writes (no inline script).
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';

const settings = JSON.parse(document.getElementById('ide-settings').textContent);
const base = settings.assets;

// Monaco's workers, built beside this file.
globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    const file = label === 'json' ? 'json.worker.js' : label === 'graphql' ? 'graphql.worker.js' : 'editor.worker.js';
    return new Worker(`${base}/${file}`);
  },
};

const TOKEN_KEY = 'livestock-traceability:access-token';
const tokenInput = document.getElementById('token');
tokenInput.value = localStorage.getItem(TOKEN_KEY) ?? '';
const setToken = (token) => {
  tokenInput.value = token;
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
};
tokenInput.addEventListener('change', () => setToken(tokenInput.value.trim()));
document.getElementById('token-clear').addEventListener('click', () => setToken(''));

/**
 * Sends the token of the field above as `Authorization: Bearer …` (a header typed in the Headers
 * tab wins), and keeps the token a login, refresh or organization change answers.
 */
async function fetcher(params, options) {
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...(options?.headers ?? {}) };
  const token = tokenInput.value.trim();
  if (token && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.authorization = `Bearer ${token}`;
  const res = await fetch(settings.endpoint, { method: 'POST', headers, body: JSON.stringify(params) });
  const body = await res.json();
  const data = body?.data;
  for (const field of ['login', 'refresh', 'changeOrg', 'resetProfile']) {
    const pair = data?.[field];
    if (pair && typeof pair.str_access_token === 'string') setToken(pair.str_access_token);
  }
  return body;
}

createRoot(document.getElementById('graphiql')).render(
  <GraphiQL fetcher={fetcher} defaultQuery={settings.defaultQuery} plugins={[explorerPlugin()]} shouldPersistHeaders={false} />,
);
