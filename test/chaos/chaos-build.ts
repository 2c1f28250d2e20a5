/**
 * The chaos children start many times (every restart after a kill), and on a busy 2-core machine tsx
 * compiling the server at each start costs seconds. So the suite compiles src/ and test/chaos/ once per
 * test process with esbuild (file by file, no bundling, so `new URL('./migrations/', import.meta.url)`
 * still finds the copied SQL and Lua files) and starts the children with plain node.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let built: string | undefined;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
  const parent = join(root, '.tmp');
  const outdir = join(parent, `chaos-build-${process.pid}`);
  // Test workers are often ended without an 'exit' event: remove the trees of processes that are gone.
  for (const name of existsSync(parent) ? readdirSync(parent) : []) {
    const pid = Number(/^chaos-build-(\d+)$/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
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
