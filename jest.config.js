import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

// globalSetup/globalTeardown are not run through Jest's module registry: Jest
// compiles them to CommonJS with the transform below and loads them with Node's
// own require(), so `moduleNameMapper` does not apply there and `./x.js`
// specifiers pointing at `./x.ts` sources fail. This hook, active only in the
// main Jest process (test files run in Jest's registry and never reach it),
// retries a failed relative `.js` specifier as `.ts` when that file exists.
if (!globalThis.__jestTsJsResolveHook) {
  globalThis.__jestTsJsResolveHook = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (err) {
        const parent = context.parentURL;
        if (!/^\.{1,2}\/.*\.js$/.test(specifier) || !parent?.startsWith('file:') || parent.includes('/node_modules/')) {
          throw err;
        }
        const candidate = new URL(specifier.replace(/\.js$/, '.ts'), parent);
        if (!existsSync(fileURLToPath(candidate))) throw err;
        return nextResolve(specifier.replace(/\.js$/, '.ts'), context);
      }
    },
  });
}

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    // Sources import siblings as `./x.js` (NodeNext); under Jest resolve them to `./x.ts`.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'es6' },
      },
    ],
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  setupFiles: ['<rootDir>/test/worker-database.ts'],
  maxWorkers: 2,
  // Hooks included. A limit for a hung test, not a speed check: with two files side by side on a
  // 2-core machine that others load too, tests of a few seconds passed a minute on PostgreSQL (load
  // 20, 2026-11-28), and a service on in-memory PGlite starts slower still.
  testTimeout: 180000,
};
