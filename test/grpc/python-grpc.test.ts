/**
 * The gRPC API from another language: Python with Debian's python3-grpcio, stubs generated from
 * proto/delayq/v1/delayq.proto by python3-grpc-tools at test time. /usr/bin/python3 on purpose: a pyenv
 * python3 earlier on PATH does not see the Debian modules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

async function generateStubs(): Promise<void> {
  const healthProto = require('grpc-health-check').protoPath as string; // …/proto/health/v1/health.proto
  for (const [root, file] of [
    [join(REPO_ROOT, 'proto'), 'delayq/v1/delayq.proto'],
    [dirname(dirname(dirname(healthProto))), 'health/v1/health.proto'],
  ] as const) {
    const result = await runProcess(PYTHON, [
      '-m',
      'grpc_tools.protoc',
      `-I${root}`,
      `--python_out=${stubs}`,
      `--grpc_python_out=${stubs}`,
      file,
    ]);
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
    const result = await runProcess(PYTHON, ['test/grpc/python/grpc_check.py', stubs], {
      env: { DELAYQ_GRPC: server.grpcTarget, DELAYQ_PREFIX: `pyg${Math.random().toString(36).slice(2, 8)}` },
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'ok health',
      'ok push-get',
      'ok errors',
      'ok stream',
      'ok vanish',
      'ok stream-errors',
      'ok operator',
      'done',
    ]);
  }, 90_000);
});
