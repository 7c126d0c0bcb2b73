import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../config.js';
import { DomainError } from '../shared/errors.js';

/**
 * The pages a person opens in a browser: the GraphQL IDE at GET /graphql (GraphiQL 5 and its
 * explorer) and the API documentation at GET /api/docs (Swagger UI over /api/openapi.json). Their
 * assets are built from npm packages into public/ by web/build.mjs (npm install, npm run build)
 * and served from here: nothing comes from a CDN, so both work offline.
 */

/** public/ at the repository root, from src/http (tests, dev) or dist/src/http (build). */
function publicDir(): string | null {
  for (const rel of ['../../public/', '../../../public/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'versions.json'))) return dir;
  }
  return null;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '': 'text/plain; charset=utf-8',
};

/** Own assets only; Monaco and React set inline styles, Monaco starts its workers from our files. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What the IDE shows first: the path of README's first hour, runnable as it is. */
export const DEFAULT_QUERY = `# The GraphQL IDE of the livestock traceability service (GraphiQL, served by the service itself).
# Run an operation with the ▶ button (it asks which one). The "Explorer" on the left builds queries
# by clicking; the book icon is the schema's documentation.
#
# 1. Login: use your e-mail and password. The token it answers fills the "Access token" field
#    above and is sent as "Authorization: Bearer ..." from then on (paste one there otherwise).
# 2. Me: who you are and your organizations.
# 3. A new administrator has no organization: every establishment call answers 403 (FORBIDDEN)
#    until one is created (CreateOrganization; change its name and a valid CNPJ) and chosen
#    (ChooseOrganization: put the id it answered in Variables below as
#    { "organization_id": "..." }; the new token it answers fills in by itself).
# 4. Establishments: the first page of the active organization's establishments.

mutation Login {
  login(input: { str_email: "admin@example.com", str_password: "change-me-please" }) {
    str_access_token
    user { id str_name }
  }
}

query Me {
  whoami { id str_name str_email bl_admin organization_id organizations { id str_name str_role } }
}

mutation CreateOrganization {
  createOrganization(input: { str_name: "My organization", str_document: "11222333000181" }) { id str_name }
}

mutation ChooseOrganization($organization_id: UUID!) {
  changeOrg(input: { organization_id: $organization_id }) { str_access_token }
}

query Establishments {
  establishments(page: { int_max_results: 10 }) {
    meta { int_total_results }
    data { id str_name str_status }
  }
}
`;

const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function idePage(): string {
  const settings = { endpoint: '/graphql', assets: '/graphql/assets', defaultQuery: DEFAULT_QUERY };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphQL IDE · Livestock traceability</title>
<link rel="stylesheet" href="/graphql/assets/graphiql.css">
<style>
  html, body { height: 100%; margin: 0; font-family: system-ui, sans-serif; }
  body { display: flex; flex-direction: column; }
  #toolbar { display: flex; gap: .5rem; align-items: center; padding: .4rem .8rem; font-size: 13px; border-bottom: 1px solid #ddd; }
  #toolbar input { flex: 1; max-width: 40rem; font-family: monospace; }
  #graphiql { flex: 1; min-height: 0; }
</style>
</head>
<body>
<div id="toolbar">
  <label for="token">Access token</label>
  <input id="token" type="password" autocomplete="off" placeholder="filled by the Login mutation, or paste str_access_token from POST /api/login">
  <button id="token-clear" type="button">Clear</button>
  <a href="/api/docs">REST API documentation</a>
</div>
<div id="graphiql">Loading the GraphQL IDE…</div>
<script type="application/json" id="ide-settings">${json(settings)}</script>
<script type="module" src="/graphql/assets/graphiql.js"></script>
</body>
</html>
`;
}

function docsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST API · Livestock traceability</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<style>body { margin: 0; } .topbar-note { padding: .5rem 1rem; font: 14px system-ui, sans-serif; background: #f6f6f6; }</style>
</head>
<body>
<div class="topbar-note">OpenAPI document: <a href="/api/openapi.json">/api/openapi.json</a> · GraphQL IDE: <a href="/graphql">/graphql</a></div>
<div id="swagger-ui">Loading the API documentation…</div>
<script type="application/json" id="docs-settings">${json({ openapi: '/api/openapi.json' })}</script>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/api-docs.js"></script>
</body>
</html>
`;
}

const MISSING = (what: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${what}: assets not built</title><p>The browser assets of ${what} are not built. They come from npm packages and are built by <code>npm install</code> (its prepare step) or <code>npm run build</code> (<code>node web/build.mjs</code>), which need the dev dependencies.</p></html>`;

/** A browser asking for a page: GET, HTML accepted, no GraphQL query in the URL. */
const wantsPage = (ctx: Context) => ctx.method === 'GET' && ctx.query.query === undefined && ctx.accepts('application/json', 'text/html') === 'text/html';

export function browserPages(config: Config): Router {
  const router = new Router();
  const dir = publicDir();
  const files = (sub: string): Map<string, string> => {
    const path = dir ? join(dir, sub) : null;
    return new Map(path && existsSync(path) ? readdirSync(path).map((f) => [f, join(path, f)]) : []);
  };
  const serve = (available: Map<string, string>) => (ctx: Context) => {
    const path = available.get(ctx.params.file ?? '');
    if (!path) throw new DomainError('NOT_FOUND', `no asset ${String(ctx.params.file).slice(0, 100)}`);
    ctx.type = TYPES[extname(path)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', 'public, max-age=600');
    ctx.body = readFileSync(path);
  };
  const page = (ctx: Context, html: string | null, what: string) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    if (html) ctx.body = html;
    else {
      ctx.status = 503;
      ctx.body = MISSING(what);
    }
  };

  if (config.GRAPHQL_IDE) {
    const assets = files('graphiql');
    const html = assets.has('graphiql.js') ? idePage() : null;
    router.get('/graphql', async (ctx, next) => (wantsPage(ctx) ? page(ctx, html, 'the GraphQL IDE') : next()));
    router.get('/graphql/assets/:file', serve(assets));
  }
  if (config.API_DOCS) {
    const assets = files('api-docs');
    const html = assets.has('swagger-ui-bundle.js') ? docsPage() : null;
    router.get('/api/docs', (ctx) => page(ctx, html, 'the API documentation'));
    router.get('/api/docs/assets/:file', serve(assets));
  }
  return router;
}
