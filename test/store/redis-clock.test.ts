import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisClock } from '../../src/store/redis/redis-clock.js';

const client = new Redis({ host: '127.0.0.1', port: 6379 });
afterAll(() => client.quit());

const redisMs = async (): Promise<number> => {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
};

describe('RedisClock', () => {
  it('never runs ahead of Redis TIME, and lags it by well under the 5 ms the lateness goal allows', async () => {
    const clock = new RedisClock(() => client);
    await clock.sync();
    let worstAhead = Number.NEGATIVE_INFINITY;
    let worstBehind = 0;
    for (let i = 0; i < 300; i++) {
      const before = await redisMs();
      const now = clock.now();
      const after = await redisMs();
      worstAhead = Math.max(worstAhead, now - after); // must stay ≤ 0: now was read before `after`
      worstBehind = Math.max(worstBehind, before - now);
    }
    expect(worstAhead).toBeLessThanOrEqual(0);
    expect(worstBehind).toBeLessThan(5);
  });
});
