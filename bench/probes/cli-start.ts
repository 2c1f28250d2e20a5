// How long the `delayq` command takes to start, beside `node -e 0` in the same run: `--help`, and client
// commands against a server (the built dist/ on the embedded store, in this process): `stats`, and `get` of a
// missing id (an error answer, exit code 4). Each round runs every command once, in turn, so they share the
// host's load; prints the median wall time of each and its ratio to `node -e 0`, with the load average.
// Usage: npx tsx bench/probes/cli-start.ts [ROUNDS=20]   (builds dist/ first when src/ is newer)
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rounds = Number(process.argv[2] ?? 20);
const CLI = join(root, 'dist/cli/main.js');

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

const { loadConfig } = (await import(join(root, 'dist/config.js'))) as typeof import('../../src/config.js');
const { createService } = (await import(
  join(root, 'dist/create-service.js')
)) as typeof import('../../src/create-service.js');
const { buildApp, closeGracefully } = (await import(
  join(root, 'dist/server/app.js')
)) as typeof import('../../src/server/app.js');
const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' } } });
const service = createService(config);
await service.start();
const app = await buildApp(service, config);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
await service.push({ topic: 'probe', body: { n: 1 } });

const commands: [string, string[], number][] = [
  ['node -e 0', ['-e', '0'], 0],
  ['delayq --help', [CLI, '--help'], 0],
  ['delayq stats', [CLI, '--url', url, 'stats'], 0],
  ['delayq get (missing)', [CLI, '--url', url, 'get', 'no-such-job'], 4],
];

/** Wall time of one run, ms; throws when it exits with another code than expected. */
function timed(args: string[], expected: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DELAYQ_TOKEN: '' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === expected) resolve(ms);
      else reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
    }),
  );
}

const times = new Map<string, number[]>(commands.map(([name]) => [name, []]));
const loadBefore = loadavg()[0]!;
for (let r = 0; r < rounds; r++)
  for (const [name, args, code] of commands) times.get(name)!.push(await timed(args, code));
const loadAfter = loadavg()[0]!;
await closeGracefully(app, service, 100);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const base = median(times.get('node -e 0')!);
console.log(`${rounds} rounds, load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`);
console.log('| command | median ms | min ms | max ms | ÷ node -e 0 |');
console.log('| --- | --- | --- | --- | --- |');
for (const [name, xs] of times) {
  const m = median(xs);
  console.log(
    `| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(m / base).toFixed(2)}× |`,
  );
}
