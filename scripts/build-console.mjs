// Bundles the web console (console/src, Preact + TSX) with esbuild into console/dist/: index.html, app.js,
// app.css. `npm run build` runs it; the server serves console/dist at /console (src/server/routes/console.ts).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildConsole() {
  const out = join(root, 'console', 'dist');
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: { app: join(root, 'console/src/main.tsx') },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: out,
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'console/src/style.css'), join(out, 'app.css'));
  copyFileSync(join(root, 'console/index.html'), join(out, 'index.html'));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
