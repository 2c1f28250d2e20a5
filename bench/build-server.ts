// The benchmarks over the API run the built server (dist/), as `delayq serve` does: it starts in a fraction
// of the time tsx needs to compile src/ on the fly, and it is the code users run. Built once per run, and only
// when a file under src/ is newer than dist/.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The server script the subjects start with `node`. */
export const SERVER_SCRIPT = fileURLToPath(new URL('./http-server.mjs', import.meta.url));

/**
 * The node arguments that start the built server: DELAYQ_BENCH_SERVER_ARGS (space-separated node flags, e.g. a
 * probe's `--cpu-prof --cpu-prof-dir=…`; none in the benchmark) before the script.
 */
export function serverArgs(...args: string[]): string[] {
  const flags = process.env['DELAYQ_BENCH_SERVER_ARGS']?.split(' ').filter(Boolean) ?? [];
  return [...flags, SERVER_SCRIPT, ...args];
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

let built = false;
export function ensureServerBuilt(log: (line: string) => void): void {
  if (built) return;
  built = true;
  let distAt = 0;
  try {
    distAt = statSync(join(root, 'dist/server/app.js')).mtimeMs;
  } catch {
    /* not built yet */
  }
  if (distAt >= newest(join(root, 'src'))) return;
  log('building dist/ for the server over the API (npm run build)');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
}
