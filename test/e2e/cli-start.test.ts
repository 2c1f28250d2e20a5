/**
 * The CLI starts at once: `--help` and a client command load commander, the SDK and the CLI's own files,
 * never the server's libraries (Fastify, the store drivers, gRPC, TypeBox, undici, pino…), which `serve`
 * imports when it runs. The start itself is timed by `npm run bench -- --only=cli`, not here; this keeps the
 * structure that makes it fast. And a reader that goes away early (`delayq list | head -1`) ends the
 * command quietly: no stack trace, exit code 0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/http-server.js';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'delayq-cli-start-'));

/** Packages of the server side: none may load for a client command. */
const SERVER_PACKAGES = [
  'fastify',
  '@fastify/',
  'ioredis',
  'kysely',
  'pg',
  'mysql2',
  'better-sqlite3',
  '@grpc/',
  'pino',
  'prom-client',
  'typebox',
  'undici',
  'croner',
  'msgpackr',
  'ulid',
];
/** What a client command may load of src/: the CLI, the SDK, core rules and two small helpers. */
const CLIENT_SOURCES =
  /^src\/(cli|client|core)\/|^src\/observe\/metrics-text\.ts$|^src\/service\/due-histogram-input\.ts$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every module the process loaded: package names, and files of src/ relative to the repository. */
  packages: Set<string>;
  sources: string[];
}

let counter = 0;
function runCli(args: string[], onStdout?: (chunk: Buffer, stop: () => void) => void): Promise<Run> {
  const loadedFile = join(dir, `loaded-${counter++}.txt`);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './test/e2e/support/record-modules.mjs', 'src/cli/main.ts', ...args],
    { cwd: root, env: { ...process.env, DELAYQ_LOADED_FILE: loadedFile, DELAYQ_TOKEN: '', DELAYQ_URL: '' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout?.(chunk, () => child.stdout.destroy());
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      const urls = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean);
      const paths = urls.map((u) => (u.startsWith('file:') ? fileURLToPath(u) : u));
      const packages = new Set(
        paths.flatMap((p) => {
          const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
          return match ? [match[1]!] : [];
        }),
      );
      const sources = [
        ...new Set(paths.filter((p) => p.startsWith(join(root, 'src') + '/')).map((p) => relative(root, p))),
      ];
      resolve({ code, stdout, stderr, packages, sources });
    }),
  );
}

function serverPackagesIn(run: Run): string[] {
  return [...run.packages].filter((name) =>
    SERVER_PACKAGES.some((s) => (s.endsWith('/') ? name.startsWith(s) : name === s)),
  );
}

describe('the delayq command starts without the server', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    // Enough jobs that `list --json` writes more than a pipe holds.
    await server.service.pushBatch(
      Array.from({ length: 300 }, (_, i) => ({
        topic: 'cli-start',
        id: `cs-${i}`,
        body: { n: i, pad: 'x'.repeat(200) },
      })),
    );
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--help loads commander and the CLI, no server library', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: delayq');
    // The recording works: it saw what the command did load.
    expect(help.packages).toContain('commander');
    expect(help.sources).toContain('src/cli/main.ts');
    expect(serverPackagesIn(help)).toEqual([]);
    expect(help.sources.filter((s) => !CLIENT_SOURCES.test(s))).toEqual([]);
  });

  it('a client command (get, stats of a topic) talks to the server and loads no server library', async () => {
    for (const args of [
      ['get', 'cs-7'],
      ['stats', 'cli-start'],
      ['get', 'no-such-job'],
    ]) {
      const run = await runCli(['--url', server.url, ...args]);
      expect(run.code, run.stderr).toBe(args[1] === 'no-such-job' ? 4 : 0);
      expect(run.sources).toContain('src/client/client.ts');
      expect(serverPackagesIn(run), args.join(' ')).toEqual([]);
      expect(run.sources.filter((s) => !CLIENT_SOURCES.test(s))).toEqual([]);
    }
  });

  it('a reader that goes away after the first chunk (`| head -1`) ends the command quietly', async () => {
    const run = await runCli(
      ['--url', server.url, '--json', 'list', '--topic', 'cli-start', '--limit', '1000'],
      (_, stop) => stop(),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
