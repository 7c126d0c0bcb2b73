import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `url`: the compiled `.js` where there is one (dist/), else the TypeScript
 * source beside it (tests, development), compiled as it loads by the compiler the tests use (swc).
 */
export function startWorker(url: URL, workerData: unknown): Worker {
  const file = fileURLToPath(url);
  if (file.endsWith('.js') && existsSync(file)) return new Worker(url, { workerData });
  const ts = new URL(url.href.replace(/\.js$/, '.ts'));
  const swc = createRequire(import.meta.url).resolve('@swc/core');
  const boot = `
    const { registerHooks } = require('node:module');
    const { existsSync, readFileSync } = require('node:fs');
    const { fileURLToPath } = require('node:url');
    const swc = require(${JSON.stringify(swc)});
    registerHooks({
      resolve(specifier, context, next) {
        if (/^\\.{1,2}\\/.*\\.js$/.test(specifier) && context.parentURL && context.parentURL.endsWith('.ts')) {
          const candidate = new URL(specifier.replace(/\\.js$/, '.ts'), context.parentURL);
          if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, format: 'module', shortCircuit: true };
        }
        return next(specifier, context);
      },
      load(url, context, next) {
        if (!url.endsWith('.ts')) return next(url, context);
        const filename = fileURLToPath(url);
        const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } });
        return { format: 'module', source: code, shortCircuit: true };
      },
    });
    import(${JSON.stringify(ts.href)});
  `;
  return new Worker(boot, { eval: true, workerData });
}
