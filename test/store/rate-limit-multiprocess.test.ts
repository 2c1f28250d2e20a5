/**
 * A topic's dispatch rate limit over three delayq processes on one Redis: their long-polling consumers
 * together are handed out the topic's jobs at its rate (within 10 % over 10 s), never more than the rate
 * plus the burst in any second; the jobs beyond it stay ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('rate');
afterAll(() => prefixes.sweep());

const WORKER = fileURLToPath(new URL('../helpers/rate-limited-worker.ts', import.meta.url));
const URL_ = 'redis://127.0.0.1:6379';
const RATE = 40;
const BURST = 5;
const WINDOW_MS = 10_000;

interface Report {
  name: string;
  reservedAt: number[];
}

describe('a dispatch rate limit shared by three processes on one Redis', () => {
  it(`hands out ${RATE} jobs a second in all, within 10 %`, async () => {
    const prefix = prefixes.next();
    const topic = 'rated';
    const store = new RedisStore({ url: URL_, prefix, nodeId: 'observer' });
    const observer = new DelayqService({ store, clock: store.clock, runTimer: false });
    await observer.start();
    const children: ChildProcess[] = [];
    try {
      await observer.topics.putSettings(topic, { rateLimit: { perSecond: RATE, burst: BURST } });
      const jobs = Array.from({ length: 1500 }, (_, i) => ({ topic, id: `r-${i}`, body: i }));
      for (let i = 0; i < jobs.length; i += 500) await observer.pushBatch(jobs.slice(i, i + 500));

      const ready: Promise<unknown>[] = [];
      const reports: Promise<Report>[] = [];
      for (let i = 0; i < 3; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', WORKER, URL_, prefix, topic, `rate-${i}`], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        children.push(child);
        ready.push(new Promise((resolve) => child.once('message', resolve)));
        reports.push(
          new Promise((resolve, reject) => {
            child.on('message', (m) => {
              if ((m as Report).reservedAt) resolve(m as Report);
            });
            child.once('close', (code) => reject(new Error(`worker rate-${i} exited with ${code} before reporting`)));
          }),
        );
      }
      await Promise.all(ready);
      // The measurement needs the time to pass: the rate is a number of jobs over a span of time.
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 2_000));
      for (const child of children) child.send('stop');
      const results = await Promise.all(reports);

      const times = results.flatMap((r) => r.reservedAt).sort((a, b) => a - b);
      expect(results.every((r) => r.reservedAt.length > 0)).toBe(true);
      // Past the first second (the burst, processes still starting), a 10 s window.
      const from = times[0]! + 1000;
      const inWindow = times.filter((t) => t >= from && t < from + WINDOW_MS).length;
      expect(inWindow).toBeGreaterThanOrEqual(RATE * 10 * 0.9);
      expect(inWindow).toBeLessThanOrEqual(RATE * 10 * 1.1);
      // No second ever saw more than the rate plus the burst.
      let most = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i]! - times[j]! >= 1000) j++;
        most = Math.max(most, i - j + 1);
      }
      expect(most).toBeLessThanOrEqual(RATE + BURST + 1);
      // The rest stayed ready, none failed.
      const counts = (await observer.topics.stats()).find((s) => s.topic === topic)!.counts;
      expect(counts).toMatchObject({ ready: 1500 - times.length, dead: 0 });
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill();
      await observer.close();
    }
  }, 60_000);
});
