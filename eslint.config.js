import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const SQL_MESSAGE = 'No SQL in the doors: call a reader or a service in src/.';
const SQL_TEXT = '/\\b(select|insert|update|delete)\\b[\\s\\S]*\\b(from|into|set)\\b/i';
/** graphql/ and rest/ hold no SQL: no query calls, no SQL text (ARCHITECTURE.md: reads live in src/ readers). */
const NO_SQL = [
  { selector: 'CallExpression[callee.property.name=/^(execute|rows|raw|getConnection|getKysely|createQueryBuilder|qb)$/]', message: SQL_MESSAGE },
  { selector: `Literal[value=${SQL_TEXT}]`, message: SQL_MESSAGE },
  { selector: `TemplateElement[value.raw=${SQL_TEXT}]`, message: SQL_MESSAGE },
];

export default defineConfig(
  {
    ignores: ['dist/**', 'dist-*/**', 'node_modules/**', 'data/**', 'coverage/**'],
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
  {
    // The doors hold no SQL: reads live in src/ readers, writes in services (ARCHITECTURE.md).
    files: ['graphql/**/*.ts', 'rest/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...NO_SQL],
    },
  },
  {
    // REST runs named GraphQL documents and nothing else: no service, no core, no reader.
    files: ['rest/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./src/(?!shared/(errors|ids|input|logger)\\.js$)',
              message: 'rest/ runs GraphQL operations; it calls no service or reader (only errors, ids, the input boundary and the logger from src/shared).',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'MemberExpression[property.name="core"]', message: 'rest/ runs GraphQL operations; it calls no service.' },
        ...NO_SQL,
      ],
    },
  },
);
