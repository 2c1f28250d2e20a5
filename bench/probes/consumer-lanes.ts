// A burst drained by delayq · Redis with the consumer as one reserve loop and as two lanes sharing its 100
// slots (the Worker's way), alternating in rounds on one Redis, so a drifting host hits both alike.
// Usage: npx tsx bench/probes/consumer-lanes.ts [JOBS=100000] [ROUNDS=5]
import { Redis } from 'ioredis';
import { sleep } from '../lib.js';
import { cleanup, startRedis } from '../servers.js';
import { DelayqSubject, redisCpuMs } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 5);
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
const subject = new DelayqSubject({ kind: 'redis', port: redis.port, partitions: 1 });
const rates = new Map<number, number[]>();
try {
  await subject.open();
  for (let round = 1; round <= rounds; round++) {
    for (const lanes of [1, 2] as const) {
      const dueAt = Date.now() + 1500 + jobs / 20; // enough lead to push them all
      for (let i = 0; i < jobs; i += 1000)
        await subject.pushBulk(Array.from({ length: Math.min(1000, jobs - i) }, () => dueAt));
      await sleep(Math.max(0, dueAt - Date.now()));
      const cpu0 = process.cpuUsage();
      const redis0 = await redisCpuMs(admin);
      const loop0 = performance.eventLoopUtilization();
      let delivered = 0;
      let lastAt = 0;
      const consumer = await subject.consume(
        100,
        () => {
          delivered++;
          lastAt = Date.now();
        },
        lanes,
      );
      while (delivered < jobs) await sleep(5);
      const cpu = process.cpuUsage(cpu0);
      const redisMs = (await redisCpuMs(admin)) - redis0;
      const loop = performance.eventLoopUtilization(loop0);
      await consumer.stop();
      const rate = jobs / ((lastAt - dueAt) / 1000);
      rates.set(lanes, [...(rates.get(lanes) ?? []), rate]);
      console.log(
        `round ${round}, ${lanes} lane(s): ${Math.round(rate)} jobs/s; CPU per job: process ${((cpu.user + cpu.system) / jobs).toFixed(1)} µs, ` +
          `Redis ${((redisMs * 1000) / jobs).toFixed(1)} µs; event loop busy ${(loop.utilization * 100).toFixed(0)} %`,
      );
    }
  }
  for (const [lanes, values] of rates) {
    const sorted = [...values].sort((a, b) => a - b);
    console.log(
      `${lanes} lane(s): median ${Math.round(sorted[sorted.length >> 1]!)} jobs/s (${sorted.map(Math.round).join(', ')})`,
    );
  }
} finally {
  await subject.close();
  admin.disconnect();
  await cleanup();
}
