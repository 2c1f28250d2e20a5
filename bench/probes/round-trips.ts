// Redis commands the delayq service issues while idle (3 s) and for one job's life (push → delivered →
// finished), with 1 and with 8 partitions. Usage: npx tsx bench/probes/round-trips.ts
import { Redis } from 'ioredis';
import { sleep } from '../lib.js';
import { cleanup, startRedis } from '../servers.js';
import { DelayqSubject, redisCommandCalls } from '../subjects/delayq-subject.js';

type Calls = Awaited<ReturnType<typeof redisCommandCalls>>;
const diff = (before: Calls, after: Calls): string =>
  [...after]
    .map(([name, c]) => [name, c.calls - (before.get(name)?.calls ?? 0)] as const)
    .filter(([name, n]) => n > 0 && name !== 'info')
    .map(([name, n]) => `${name}=${n}`)
    .join(' ');

const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
try {
  for (const partitions of [1, 8]) {
    const subject = new DelayqSubject({ kind: 'redis', port: redis.port, partitions });
    await subject.open();
    await sleep(300);
    let before = await redisCommandCalls(admin);
    await sleep(3000);
    console.log(`partitions ${partitions}, idle 3 s: ${diff(before, await redisCommandCalls(admin))}`);
    let delivered = 0;
    const consumer = await subject.consume(100, () => delivered++);
    await subject.push(Date.now() + 100); // first use of each script (EVAL before EVALSHA) out of the count
    while (delivered < 1) await sleep(5);
    await sleep(300);
    before = await redisCommandCalls(admin);
    await subject.push(Date.now() + 300);
    while (delivered < 2) await sleep(5);
    await sleep(50);
    console.log(`partitions ${partitions}, one job's life: ${diff(before, await redisCommandCalls(admin))}`);
    await consumer.stop();
    await subject.close();
  }
} finally {
  admin.disconnect();
  await cleanup();
}
