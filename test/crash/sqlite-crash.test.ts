import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

/** Runs the child until it has acknowledged `acks` pushes, then SIGKILLs it. */
async function runAndKill(
  path: string,
  prefix: string,
  acks: number,
): Promise<{ acked: Set<string>; finished: Set<string> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, path, prefix], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acked = new Set<string>();
  const finished = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    proc.on('error', reject);
    proc.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited early: ${code}`)),
    );
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const [kind, id] = line.split(' ');
      if (kind === 'A') acked.add(id!);
      if (kind === 'F') finished.add(id!);
      if (acked.size >= acks && !proc.killed) proc.kill('SIGKILL');
    });
  });
  return { acked, finished };
}

describe('embedded store crash (SIGKILL mid-load)', () => {
  it('keeps every acknowledged job and delivers each exactly once per delivery attempt', async () => {
    const path = join(dir, 'crash.db');
    const rounds = [await runAndKill(path, 'r1', 1500), await runAndKill(path, 'r2', 1500)];
    const acked = new Set(rounds.flatMap((r) => [...r.acked]));
    const finishedBefore = new Set(rounds.flatMap((r) => [...r.finished]));
    expect(acked.size).toBeGreaterThanOrEqual(3000);
    expect(finishedBefore.size).toBeGreaterThan(0);

    const service = new DelayqService({
      store: new SqliteStore({ path, nodeId: 'after-crash' }),
      nodeId: 'after-crash',
    });
    await service.start();
    try {
      // every acknowledged job is there
      for (const id of acked) expect((await service.get(id)).id).toBe(id);
      // finishes acknowledged before the kill stuck
      for (const id of finishedBefore) expect((await service.get(id)).state).toBe('finished');

      // drain: unfinished jobs come due, and the reservations the kill left behind lapse after their 1 s TTR
      const deliveredNow = new Map<string, number>();
      const deadline = Date.now() + 20_000;
      const open = async () => {
        let n = 0;
        for (const id of acked) if ((await service.get(id)).state !== 'finished') n++;
        return n;
      };
      while (Date.now() < deadline && (await open()) > 0) {
        for (const r of await service.reserve({ topics: ['crash'], count: 100, waitMs: 300 })) {
          deliveredNow.set(r.job.id, (deliveredNow.get(r.job.id) ?? 0) + 1);
          await service.finish(r.job.id, r.token);
        }
      }
      expect(await open()).toBe(0);

      for (const id of acked) {
        const job = await service.get(id);
        const history = await service.history(id);
        const reserves = history.filter((h) => h.event === 'reserve').length;
        const lapses = history.filter((h) => h.event === 'retry').length;
        // once per delivery attempt: every delivery is one reserve, and every extra delivery follows a TTR lapse
        expect(job.attempts).toBe(reserves);
        expect(reserves - 1).toBe(lapses);
        expect(history.filter((h) => h.event === 'finish')).toHaveLength(1);
        // a job finished before the kill is never delivered again
        if (finishedBefore.has(id)) expect(deliveredNow.has(id)).toBe(false);
        expect(deliveredNow.get(id) ?? 0).toBeLessThanOrEqual(1);
      }
    } finally {
      await service.close();
    }
  }, 90_000);
});
