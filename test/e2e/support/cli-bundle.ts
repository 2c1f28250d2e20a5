/**
 * The CLI bundled once with esbuild (beside copies of the assets its modules load by URL), so each call in
 * a test costs a node start, not a compile; run() starts it as a child process and collects its exit.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..', '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliBundle {
  /** The bundled CLI: `node <path> …args` runs it. */
  readonly path: string;
  /** Runs `delayq …args` (no --url or --token added); `input` is written to its stdin. */
  run(args: readonly string[], input?: string): Promise<CliRun>;
  remove(): void;
}

export async function bundleCli(): Promise<CliBundle> {
  // Inside the repository (.tmp/ is ignored) so the bundle's bare imports resolve to node_modules.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'cli-'));
  const bundle = join(dir, 'cli.mjs');
  await build({
    entryPoints: [join(root, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: bundle,
    logLevel: 'error',
  });
  cpSync(join(root, 'src/store/redis/lua'), join(dir, 'lua'), { recursive: true });
  cpSync(join(root, 'src/store/sqlite/migrations'), join(dir, 'migrations'), { recursive: true });
  return {
    path: bundle,
    run: (args, input) =>
      new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          [bundle, ...args],
          { cwd: root, env: { ...process.env, DELAYQ_TOKEN: '', DELAYQ_URL: '' } },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(input ?? '');
      }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
