import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { HttpReceiver } from './support/http-receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Dispatcher and a crash mid-delivery', () => {
  it('loses nothing: after kill -9 during a delivery, the next process re-delivers the job once its TTR lapses', async () => {
    const r = await new HttpReceiver().listen();
    // The first request reaches the receiver, but its process dies before any answer can be recorded.
    r.handler = (_req, res, i) => {
      if (i > 0) res.writeHead(200).end();
    };
    const path = join(dir, 'delayq.db');
    const topic = uniqueName('crash');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'support', 'dispatch-child.ts'), path, r.url(), topic],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitFor('the first delivery to reach the receiver', () => r.requests.length === 1, 20_000);
      const jobId = /pushed (\S+)/.exec(out)?.[1];
      expect(jobId).toBeDefined();
      child.kill('SIGKILL');
      await exited;

      // A new process on the same file: the binding was persisted, the job is still reserved by the dead one.
      const h = await new PushHarness({ path }).start();
      try {
        expect(h.bindings.bindings().map((b) => b.topic)).toEqual([topic]);
        const stuck = await h.job(jobId!);
        expect(stuck.state).toBe('reserved');
        expect(stuck.deadlineAt! - stuck.reservedAt!).toBe(1000 + 5000); // delivery timeout + margin
        await waitFor(
          'the job to be re-delivered and finished',
          async () => (await h.job(jobId!)).state === 'finished',
          15_000,
        );
        expect(r.requests.map((q) => q.headers['idempotency-key'])).toEqual([jobId, jobId]);
        expect((await h.job(jobId!)).attempts).toBe(2);
      } finally {
        await h.stop();
      }
    } finally {
      child.kill('SIGKILL');
      await r.close();
    }
  });
});
