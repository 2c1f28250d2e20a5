/**
 * The gRPC API from another language: Python with Debian's python3-grpcio, stubs generated from
 * proto/delayq/v1/delayq.proto by python3-grpc-tools at test time, with docs/grpc.md's command, as the
 * package `delayq_grpc`, which imports beside delayq's Python client (the package `delayq`).
 * /usr/bin/python3 on purpose: a pyenv python3 earlier on PATH does not see the Debian modules.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from '../helpers/grpc-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { REPO_ROOT, runProcess } from '../clients/run-process.js';

const PYTHON = '/usr/bin/python3';
const require = createRequire(import.meta.url);
const prefixes = prefixPool('pygrpc');
const stubs = mkdtempSync(join(tmpdir(), 'delayq-grpc-py-'));

afterAll(async () => {
  rmSync(stubs, { recursive: true, force: true });
  await prefixes.sweep();
});

/** docs/grpc.md's command, run as written but for its output folder. */
function documentedProtocArgs(): string[] {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'grpc.md'), 'utf8');
  const line = /^\/usr\/bin\/python3 -m grpc_tools\.protoc .*$/m.exec(doc)?.[0];
  expect(line, 'the protoc command of docs/grpc.md').toBeDefined();
  return line!
    .split(' ')
    .slice(1)
    .map((arg) => arg.replace(/^(--(?:grpc_)?python_out=)gen$/, `$1${stubs}`));
}

async function generateStubs(): Promise<void> {
  const healthProto = require('grpc-health-check').protoPath as string; // …/proto/health/v1/health.proto
  for (const args of [
    documentedProtocArgs(),
    [
      '-m',
      'grpc_tools.protoc',
      `-I${dirname(dirname(dirname(healthProto)))}`,
      `--python_out=${stubs}`,
      `--grpc_python_out=${stubs}`,
      'health/v1/health.proto',
    ],
  ]) {
    const result = await runProcess(PYTHON, args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }
}

describe.each([
  ['embedded store', () => ({})],
  ['Redis', () => ({ store: { kind: 'redis' }, redis: { prefix: prefixes.next() } })],
])('gRPC from Python, %s', (_name, overrides) => {
  let server: GrpcTestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('pushes, streams reservations with acks, releases on vanish and names bad fields', async () => {
    await generateStubs();
    server = await startGrpcServer(overrides());
    const client = join(REPO_ROOT, 'clients', 'python');
    const result = await runProcess(PYTHON, ['test/grpc/python/grpc_check.py', stubs, client], {
      env: {
        DELAYQ_GRPC: server.grpcTarget,
        DELAYQ_URL: server.url,
        DELAYQ_PREFIX: `pyg${Math.random().toString(36).slice(2, 8)}`,
      },
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'ok health',
      'ok push-get',
      'ok beside-client',
      'ok errors',
      'ok stream',
      'ok vanish',
      'ok stream-errors',
      'ok operator',
      'done',
    ]);
  }, 90_000);
});
