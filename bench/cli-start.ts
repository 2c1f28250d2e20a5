// How long the `delayq` command takes to start ("cli"), beside `node -e 0` in the same rounds: `--help`, and
// client commands against a server (delayq's built server on the embedded store, in its own process): `stats`,
// and `get` of a missing id (an error answer, exit code 4). Each round runs every command `cliRuns` times, the
// commands taking turns, so they share the host's load; a round's value is each command's median wall time.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_SCRIPT } from './build-server.js';
import { median } from './lib.js';
import type { RunContext } from './run-context.js';
import { freePort, startProcess, tempDir } from './servers.js';

export const NODE_BARE = 'node -e 0';
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** Wall time of one run of `node args…`, ms; throws when it exits with another code than `expected`. */
function timed(args: readonly string[], expected: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DELAYQ_TOKEN: '' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === expected) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
    }),
  );
}

export async function cliStartRounds(ctx: RunContext): Promise<void> {
  const { mode, runs, add, failures } = ctx;
  const port = await freePort();
  const sqlite = JSON.stringify({ store: { kind: 'sqlite' }, sqlite: { path: `${tempDir('cli')}/delayq.db` } });
  const server = await startProcess(
    'delayq for the CLI',
    process.execPath,
    [SERVER_SCRIPT, String(port), sqlite],
    port,
  );
  const url = `http://127.0.0.1:${port}`;
  const commands: readonly [string, string[], number][] = [
    [NODE_BARE, ['-e', '0'], 0],
    ['delayq --help', [CLI, '--help'], 0],
    ['delayq stats', [CLI, '--url', url, 'stats'], 0],
    ['delayq get (missing id)', [CLI, '--url', url, 'get', 'no-such-job'], 4],
  ];
  try {
    for (const [, args, code] of commands) await timed(args, code); // unrecorded: the first start reads from disk
    for (let run = 1; run <= runs; run++) {
      await ctx.inRound('cli', run, `round ${run}/${runs}: the CLI's start beside node -e 0`, async (order) => {
        const times = new Map<string, number[]>(commands.map(([name]) => [name, []]));
        order.push(...commands.map(([name]) => name));
        try {
          for (let i = 0; i < mode['cliRuns']!; i++)
            for (const [name, args, code] of commands) times.get(name)!.push(await timed(args, code));
          for (const [name, ms] of times) add('cli', name, 'ms', median(ms));
        } catch (err) {
          failures.push(`cli round ${run}: ${(err as Error).message}`);
        }
      });
    }
  } finally {
    await server.stop();
  }
}
