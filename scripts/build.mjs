// Compiles src/ to dist/ with tsc, then copies the non-TS assets (SQL migrations, Lua scripts, static files)
// next to the code that loads them with `new URL('./…', import.meta.url)`.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const ASSET = /\.(sql|lua|html|css|js|svg)$/;

rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript-native/bin/tsc'), '-p', join(root, 'tsconfig.json')],
  { stdio: 'inherit' },
);

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (ASSET.test(name) && !name.endsWith('.ts')) cpSync(path, join(dist, relative(src, path)));
  }
}
copyAssets(src);
await buildConsole();
