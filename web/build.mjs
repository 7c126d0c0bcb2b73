// Builds the browser assets the service serves (GET /graphql's IDE, GET /api/docs) into public/,
// from npm packages only: the machines and many users are offline, so nothing may come from a CDN.
// Runs from `npm install` (prepare) and `npm run build`. Without the dev dependencies (a production
// install) there is nothing to build with: it says so and leaves public/ as it is.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'public');
const require = createRequire(join(root, 'package.json'));

let esbuild;
try {
  esbuild = await import('esbuild');
  require.resolve('graphiql/package.json');
  require.resolve('swagger-ui-dist/package.json');
} catch {
  console.warn('web/build.mjs: esbuild, graphiql or swagger-ui-dist is not installed (production install?): browser assets not built; /graphql and /api/docs will say so.');
  process.exit(0);
}

const started = Date.now();
rmSync(out, { recursive: true, force: true });
const ide = join(out, 'graphiql');
mkdirSync(ide, { recursive: true });

const common = { bundle: true, minify: true, legalComments: 'linked', logLevel: 'warning', define: { 'process.env.NODE_ENV': '"production"' }, absWorkingDir: root };
await esbuild.build({
  ...common,
  entryPoints: { graphiql: 'web/graphiql.jsx' },
  outdir: ide,
  format: 'esm',
  jsx: 'automatic',
  target: 'es2022',
  loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
  assetNames: '[name]-[hash]',
});
// Monaco's workers: classic scripts, one per language.
await esbuild.build({
  ...common,
  entryPoints: {
    'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
    'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
    'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
  },
  outdir: ide,
  format: 'iife',
  target: 'es2022',
});

const docs = join(out, 'api-docs');
mkdirSync(docs, { recursive: true });
const swagger = dirname(require.resolve('swagger-ui-dist/package.json'));
for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE']) copyFileSync(join(swagger, f), join(docs, f));
copyFileSync(join(root, 'web', 'api-docs.js'), join(docs, 'api-docs.js'));

const versions = Object.fromEntries(['graphiql', '@graphiql/plugin-explorer', 'swagger-ui-dist', 'react'].map((p) => [p, require(`${p}/package.json`).version]));
writeFileSync(join(out, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
console.log(`web/build.mjs: browser assets in public/ (${Object.entries(versions).map(([k, v]) => `${k}@${v}`).join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
