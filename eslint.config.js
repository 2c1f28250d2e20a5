// Lint: correctness rules from typescript-eslint, no import cycles, and the layers of docs/architecture.md
// kept by rule: each folder of src/ may import only the folders below it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** What each layer may not import (relative to src/); the arrows of docs/architecture.md, pointing down. */
const LAYERS = {
  core: [
    'store',
    'journal',
    'scheduler',
    'delivery',
    'server',
    'client',
    'cli',
    'protocol',
    'beanstalkd',
    'grpc',
    'schedule',
    'service',
    'runtime',
    'config',
    'metrics',
  ],
  protocol: [
    'store',
    'journal',
    'scheduler',
    'delivery',
    'server',
    'client',
    'cli',
    'beanstalkd',
    'grpc',
    'service',
    'runtime',
  ],
  store: [
    'journal',
    'scheduler',
    'delivery',
    'server',
    'client',
    'cli',
    'protocol',
    'beanstalkd',
    'grpc',
    'service',
    'runtime',
  ],
  journal: ['scheduler', 'delivery', 'server', 'client', 'cli', 'protocol', 'beanstalkd', 'grpc', 'service', 'runtime'],
  scheduler: ['delivery', 'server', 'client', 'cli', 'protocol', 'beanstalkd', 'grpc', 'service', 'runtime'],
  delivery: ['server', 'client', 'cli', 'protocol', 'beanstalkd', 'grpc', 'service', 'runtime'],
  service: ['server', 'client', 'cli', 'beanstalkd', 'grpc', 'schedule', 'delivery', 'runtime'],
  schedule: ['server', 'client', 'cli', 'beanstalkd', 'grpc', 'delivery', 'runtime'],
  beanstalkd: ['server', 'client', 'cli', 'grpc', 'schedule', 'delivery', 'runtime'],
  grpc: ['client', 'cli', 'beanstalkd', 'schedule', 'delivery', 'runtime'],
  client: [
    'store',
    'journal',
    'scheduler',
    'delivery',
    'server',
    'cli',
    'beanstalkd',
    'grpc',
    'service',
    'runtime',
    'config',
  ],
};

const layerRules = Object.entries(LAYERS).map(([layer, forbidden]) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./)+(${forbidden.join('|')})(/|\\.js$)`,
            message: `src/${layer}/ sits below this module: see the layers in docs/architecture.md.`,
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      '.tmp/**',
      'coverage/**',
      'console/dist/**',
      'src/console/dist/**',
      'clients/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.test.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  ...layerRules,
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
