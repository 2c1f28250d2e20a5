// How long `delayq serve` (the built dist/) on an embedded store's file takes to answer /ready: spawned as a
// user runs it, timed from the spawn to the first 200 of /ready (polled every 10 ms), then stopped; the median
// of RUNS, with the load average. Seed a file with seed-cli.ts; one that does not exist starts empty.
// Usage: npx tsx bench/startup/ready-time.ts FILE [RUNS=3]   (builds dist/ first when src/ is newer)
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(root, 'dist/cli/main.js');
const [path, runsArg] = process.argv.slice(2);
if (!path) throw new Error('usage: ready-time.ts FILE [RUNS]');
const runs = Number(runsArg ?? 3);

const newest = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
const builtAt = (): number => {
  try {
    return statSync(CLI).mtimeMs;
  } catch {
    return 0;
  }
};
if (builtAt() < newest(join(root, 'src'))) {
  console.log('building dist/ (npm run build)');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function once(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--data', path!, '--port', String(port), '--log-level', 'warn'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    for (;;) {
      const answer = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
      if (answer?.status === 200) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const times: number[] = [];
for (let i = 0; i < runs; i++) times.push(await once());
const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
console.log(
  `${path}: /ready after ${Math.round(median)} ms (median; runs ${times.map((t) => Math.round(t)).join(', ')} ms), ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
