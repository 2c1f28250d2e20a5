/**
 * `delayq serve` with `grpc.enabled`: the gRPC server listens on its own port beside HTTP, and SIGTERM ends
 * open reserve streams with UNAVAILABLE (their reservations stay reserved) before the process exits cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { status, type ClientDuplexStream } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../clients/run-process.js';
import { call, describeError, grpcClient } from './grpc-client.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('delayq serve with gRPC enabled', () => {
  it('serves gRPC on its own port and ends reserve streams with UNAVAILABLE on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DELAYQ_HTTP_PORT: '0',
        DELAYQ_SQLITE_PATH: ':memory:',
        DELAYQ_GRPC_ENABLED: 'true',
        DELAYQ_GRPC_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const target = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const match = /"grpc":"([^"]+)".*"msg":"delayq gRPC listening"/.exec(buffer);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`delayq exited with ${code}: ${buffer}`)));
    });
    expect(target).toMatch(/^127\.0\.0\.1:\d+$/);

    const client = grpcClient(target);
    await call(client, 'Push', { topic: 'serve-g', id: 'sg-1' });
    const stream: ClientDuplexStream<any, any> = client['Reserve']();
    const ended = new Promise<any>((resolve) => stream.on('error', resolve));
    const first = new Promise<any>((resolve) => stream.once('data', resolve));
    stream.write({ subscribe: { topics: ['serve-g'] }, credit: 1 });
    expect((await first).reservations[0].job.id).toBe('sg-1');

    child.kill('SIGTERM');
    const error = describeError(await ended);
    expect(error).toMatchObject({ status: status.UNAVAILABLE, code: 'E_SHUTTING_DOWN' });
    expect(await exited).toBe(0);
    client.close();
  }, 120_000);
});
