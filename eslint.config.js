// Lint: correctness rules from typescript-eslint, no import cycles, and the layers of docs/architecture.md
// kept by rule: each layer of src/ (LAYERS) may import only the layers below it.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layers of src/, lowest first; docs/architecture.md shows the same list. A module imports only layers
 * listed before its own. Layers in one group are siblings: neither imports the other (delivery reaches the
 * service only through its Consumer interface; HTTP and beanstalkd share nothing but the service). The SDK
 * (`client`) sits right above `protocol`, so it can import nothing but `core` and `protocol`: it ships
 * without native dependencies and loads no config schema. Every entry of src/ must be listed here.
 */
const LAYERS = [
  ['core'],
  ['protocol'],
  ['client'],
  ['config-sources.ts'],
  ['config.ts'],
  ['store'],
  ['journal', 'testing'],
  ['timer'],
  ['delivery', 'service'],
  ['observe', 'schedules', 'metrics.ts', 'create-service.ts'],
  ['server', 'beanstalkd'],
  ['grpc'],
  ['runtime.ts'],
  ['cli', 'index.ts'],
];

const listed = LAYERS.flat();
const unlisted = readdirSync(new URL('./src/', import.meta.url)).filter((entry) => !listed.includes(entry));
if (unlisted.length) throw new Error(`eslint.config.js: place ${unlisted.join(', ')} in LAYERS (src/ layers)`);

/** For each layer: the layers it may not import (every later layer, and its siblings). */
const zones = LAYERS.flatMap((group, g) =>
  group.map((layer) => ({
    target: `./src/${layer}`,
    from: [...group.filter((sibling) => sibling !== layer), ...LAYERS.slice(g + 1).flat()].map((l) => `./src/${l}`),
    message: `src/${layer} may import only the layers below it (eslint.config.js LAYERS, docs/architecture.md).`,
  })),
);

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'data/**', '.tmp/**', 'coverage/**', 'console/dist/**', 'clients/**'],
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
  { files: ['src/**/*.ts'], rules: { 'import-x/no-restricted-paths': ['error', { zones }] } },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
