// Storage slow or down under a steady stream of pushes: every request is answered within a bounded time,
// a failure is 503 E_STORE_UNAVAILABLE, no 2xx is given for a job that was not stored, memory stays
// bounded, and delayq recovers by itself when the storage comes back.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFigure } from './chaos-figures.js';
import { CHAOS_ROOT, LONG, ServerProcess, sleep } from './chaos-processes.js';
import { ChaosRedis } from './chaos-redis.js';
import { getJson, postJson } from './chaos-http.js';

interface Answer {
  id: string;
  sentAt: number;
  status: number;
  code: string | undefined;
  ms: number;
}

/** Pushes at `ratePerSec` for `durationMs`, in parallel, recording every answer (status 0: no answer in 30 s). */
async function pushStream(
  base: string,
  topic: string,
  prefix: string,
  ratePerSec: number,
  durationMs: number,
): Promise<Answer[]> {
  const answers: Promise<Answer>[] = [];
  const t0 = Date.now();
  for (let i = 0; Date.now() - t0 < durationMs; i++) {
    const id = `${prefix}-${i}`;
    const sentAt = Date.now();
    answers.push(
      postJson(`${base}/v1/jobs`, { id, topic, delayMs: 60_000 }, 30_000).then(
        (r) => ({ id, sentAt, status: r.status, code: r.json?.error?.code as string | undefined, ms: r.ms }),
        () => ({ id, sentAt, status: 0, code: undefined, ms: Date.now() - sentAt }),
      ),
    );
    await sleep(1000 / ratePerSec);
  }
  return Promise.all(answers);
}

function tally(answers: readonly Answer[]): Record<string, number | string> {
  const by: Record<string, number> = {};
  for (const a of answers)
    by[`${a.status}${a.code ? ' ' + a.code : ''}`] = (by[`${a.status}${a.code ? ' ' + a.code : ''}`] ?? 0) + 1;
  return { ...by, maxMs: Math.round(Math.max(...answers.map((a) => a.ms))) };
}

/** Every 2xx push must be stored; every failure must be 503 E_STORE_UNAVAILABLE. */
async function checkAnswers(
  base: string,
  answers: readonly Answer[],
): Promise<{ acked: number; refused: number; storedAnyway: number }> {
  let storedAnyway = 0;
  for (const a of answers) {
    if (a.status === 201) {
      expect((await getJson(`${base}/v1/jobs/${a.id}`)).status, `acknowledged ${a.id} is stored`).toBe(200);
    } else {
      expect([a.status, a.code]).toEqual([503, 'E_STORE_UNAVAILABLE']);
      if ((await getJson(`${base}/v1/jobs/${a.id}`)).status === 200) storedAnyway++; // allowed: not acknowledged
    }
  }
  return {
    acked: answers.filter((a) => a.status === 201).length,
    refused: answers.filter((a) => a.status !== 201).length,
    storedAnyway,
  };
}

async function recoveryMs(base: string, topic: string, from: number): Promise<number> {
  for (;;) {
    const r = await postJson(`${base}/v1/jobs`, { topic, delayMs: 60_000 }, 30_000).catch(() => ({ status: 0 }));
    if (r.status === 201) return Date.now() - from;
    if (Date.now() - from > 30_000) throw new Error('delayq did not recover within 30 s of the storage coming back');
    await sleep(100);
  }
}

describe('storage slow or down', () => {
  const redis = new ChaosRedis(7550);
  const sqlitePath = join(CHAOS_ROOT, `down-${randomBytes(4).toString('hex')}.db`);
  afterAll(async () => {
    await redis.kill();
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath + suffix, { force: true });
  });

  it('Redis hung (SIGSTOP), then stopped: 503 within the command timeout, recovery by itself', async () => {
    await redis.start({ persistent: true });
    const server = new ServerProcess({
      port: 7551,
      nodeId: 'down-redis',
      store: 'redis',
      redisUrl: redis.url,
      redisCommandTimeoutMs: 1000,
    });
    await server.start();
    try {
      const topic = `down.${randomBytes(3).toString('hex')}`;
      const heapBefore = (await server.child!.heapAfterGc()).heapUsed;
      const healthy = await pushStream(server.url, topic, 'ok', 50, 1000);

      redis.pause();
      const hung = await pushStream(server.url, topic, 'hung', 50, LONG ? 5000 : 1500);
      const heapHung = (await server.child!.heapAfterGc()).heapUsed;
      redis.resume();

      await redis.stop();
      const down = await pushStream(server.url, topic, 'down', 50, LONG ? 5000 : 1500);
      const heapDown = (await server.child!.heapAfterGc()).heapUsed;
      const ready = await getJson(`${server.url}/ready`);
      const restartedAt = Date.now();
      await redis.start({ persistent: true, keepData: true });
      const recovered = await recoveryMs(server.url, topic, restartedAt);

      const all = [...healthy, ...hung, ...down];
      const checked = await checkAnswers(server.url, all);
      const mib = (b: number) => Math.round((b / 1048576) * 10) / 10;
      recordFigure('storage-down-redis', {
        commandTimeoutMs: 1000,
        healthy: tally(healthy),
        hung: tally(hung),
        down: tally(down),
        readyWhileDown: ready.status,
        recoveryMsAfterRedisBack: recovered,
        heapAfterGcMiB: { before: mib(heapBefore), hung: mib(heapHung), down: mib(heapDown) },
        ...checked,
      });
      expect(healthy.every((a) => a.status === 201)).toBe(true);
      expect(hung.some((a) => a.status === 503)).toBe(true);
      expect(down.every((a) => a.status === 503)).toBe(true);
      expect(ready.status).toBe(503);
      for (const a of [...hung, ...down]) expect(a.ms).toBeLessThan(3000); // bounded: the command timeout + margin
      expect(heapDown - heapBefore).toBeLessThan(16 * 1048576);
    } finally {
      await server.stop();
      await redis.kill(); // this test's Redis: nothing after it uses it
    }
  }, 120_000);

  it('SQLite locked by another process longer than its busy timeout: 503, then recovery by itself', async () => {
    const server = new ServerProcess({ port: 7552, nodeId: 'down-sqlite', store: 'sqlite', sqlitePath });
    await server.start();
    const locker = new Database(sqlitePath);
    try {
      const topic = `down.${randomBytes(3).toString('hex')}`;
      const healthy = await pushStream(server.url, topic, 'sok', 50, 1000);
      locker.exec('BEGIN EXCLUSIVE');
      const lockedAt = Date.now();
      // longer than the 5 s busy timeout, so at least one group commit gives up
      const lockMs = LONG ? 15_000 : 6500;
      const lockedAnswers = pushStream(server.url, topic, 'slocked', 20, lockMs);
      await sleep(2000);
      const t0 = performance.now();
      const healthDuringLock = { status: (await fetch(`${server.url}/health`)).status, ms: performance.now() - t0 };
      await sleep(lockMs - 2000 - (performance.now() - t0));
      locker.exec('COMMIT');
      const unlockedAt = Date.now();
      const locked = await lockedAnswers;
      const recovered = await recoveryMs(server.url, topic, unlockedAt);
      const checked = await checkAnswers(server.url, [...healthy, ...locked]);
      recordFigure('storage-down-sqlite-locked', {
        lockHeldMs: unlockedAt - lockedAt,
        healthDuringLockMs: Math.round(healthDuringLock.ms),
        healthy: tally(healthy),
        locked: tally(locked),
        recoveryMsAfterUnlock: recovered,
        ...checked,
      });
      expect(healthy.every((a) => a.status === 201)).toBe(true);
      expect(locked.some((a) => a.status === 503)).toBe(true);
      // bounded: the store waits for the lock (asynchronously) up to 5 s, then answers 503
      for (const a of locked) expect(a.ms).toBeLessThan(8000);
      // and the process stayed responsive meanwhile (the wait does not block the event loop)
      expect(healthDuringLock.status).toBe(200);
      expect(healthDuringLock.ms).toBeLessThan(1000);
    } finally {
      locker.close();
      await server.stop();
    }
  }, 120_000);
});
