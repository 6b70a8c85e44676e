// ESLint for the whole workspace (issue 11 point 6): type-aware typescript-eslint on production
// code, and Nx module boundaries that enforce the layers of docs/architecture.md.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const SOURCES = ['{libs,services,agents,apps}/*/src/**/*.ts', 'apps/*/src/**/*.tsx', 'test/**/*.ts'];
const SPECS = [
  '**/*.spec.ts',
  '**/*.spec-helper.ts',
  '**/test-support/**',
  'libs/testing/**',
  'test/**',
  '**/*.fixture.ts',
  '**/*.fixtures.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'bench/**',
      'bin/**',
      'deploy/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  { files: SOURCES, extends: [js.configs.recommended, ...tseslint.configs.recommended] },
  {
    files: SOURCES,
    plugins: { '@nx': nx },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            { sourceTag: 'layer:contracts', onlyDependOnLibsWithTags: ['layer:contracts'] },
            // test-support only from specs: production code is held to that by no-restricted-imports below.
            {
              sourceTag: 'layer:core',
              onlyDependOnLibsWithTags: ['layer:contracts', 'layer:core', 'layer:test-support'],
            },
            {
              sourceTag: 'layer:domain',
              onlyDependOnLibsWithTags: [
                'layer:contracts',
                'layer:core',
                'layer:domain',
                'layer:test-support',
              ],
            },
            {
              sourceTag: 'layer:test-support',
              onlyDependOnLibsWithTags: [
                'layer:contracts',
                'layer:core',
                'layer:domain',
                'layer:test-support',
              ],
            },
            {
              sourceTag: 'type:service',
              onlyDependOnLibsWithTags: [
                'layer:contracts',
                'layer:core',
                'layer:domain',
                'layer:test-support',
              ],
            },
            {
              sourceTag: 'type:agent',
              onlyDependOnLibsWithTags: [
                'layer:contracts',
                'layer:core',
                'layer:domain',
                'layer:test-support',
              ],
            },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
    },
  },
  {
    files: SOURCES,
    ignores: SPECS,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@flex/testing', message: 'test support is for specs only' }] },
      ],
    },
  },
  {
    // Components log through @flex/runtime's logger (JSON lines, docs/OBSERVABILITY.md); only the
    // CLI's user-facing output (apps/flex/src/cli) and scripts print.
    files: ['{libs,services,agents}/*/src/**/*.ts', 'apps/flex/src/embedded/**/*.ts'],
    ignores: SPECS,
    rules: { 'no-console': 'error' },
  },
  {
    // Tests may lean on any and non-null assertions where a fixture is known to hold.
    files: SPECS,
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  prettier,
);
