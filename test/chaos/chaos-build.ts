/**
 * The chaos children start many times (every restart after a kill), and on a busy 2-core machine tsx
 * compiling the server at each start costs seconds. So the suite compiles src/ and test/chaos/ once per
 * test process with esbuild (file by file, no bundling, so `new URL('./migrations/', import.meta.url)`
 * still finds the copied SQL and Lua files) and starts the children with plain node.
 */
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let built: string | undefined;

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

/** The directory holding the compiled tree (`<dir>/test/chaos/NAME.js`), built on first use. */
export function chaosBuildDir(): string {
  if (built) return built;
  const outdir = join(root, '.tmp', `chaos-build-${process.pid}`);
  rmSync(outdir, { recursive: true, force: true });
  const files = [...walk(join(root, 'src'), []), ...walk(join(root, 'test', 'chaos'), [])];
  buildSync({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
    outdir,
    outbase: root,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const f of files) {
    if (/\.(sql|lua|html|css|svg)$/.test(f)) {
      const to = join(outdir, relative(root, f));
      mkdirSync(dirname(to), { recursive: true });
      cpSync(f, to);
    }
  }
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  built = outdir;
  return outdir;
}
