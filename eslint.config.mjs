// typescript-eslint's recommended type-checked rules over the service, its tests and the console (issue 28).
// Nothing is suppressed: CI fails on any problem.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'data/**',
      'plugins/console/app/dist/**',
      'plugins/console/app/node_modules/**',
      'plugins/console/app/src/api/schema.d.ts',
      '**/fixtures/**/*.js',
      'test-artifacts/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore marks a parameter or binding kept on purpose (an interface's shape).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // knex's query builders are thenables: `.where((q) => q.whereNull(…))` returns one to a callback whose
      // result knex ignores, which the argument check cannot tell from a lost promise. The other checks stay.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // tap awaits its subtests itself: `t.test(…)` answers a PromiseWithSubtest that the parent test
      // queues and waits for, so a test file need not await it. Other promises in tests still must be.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: globals.node, parserOptions: { projectService: false } },
  },
  {
    // The widget's script runs in the customer's page.
    files: ['plugins/widget/client/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
