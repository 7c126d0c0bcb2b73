import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**'],
  },
  {
    files: ['{src,graphql,rest,test,bench}/**/*.ts'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    // The core (src/) is shared by both doors; only the composition roots may wire them in.
    files: ['src/**/*.ts'],
    ignores: ['src/server.ts', 'src/main.ts', 'src/cli.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // '!graphql/**' keeps subpath imports of the `graphql` npm package allowed.
              group: ['**/graphql/**', '**/rest/**', '!graphql/**'],
              message: 'The core imports nothing from the doors (graphql/, rest/).',
            },
          ],
        },
      ],
    },
  },
);
