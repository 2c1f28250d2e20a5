// Where the bytes of a pending job go: delayq · Redis and BullMQ, INFO used_memory and MEMORY USAGE per key
// family; then what a finished job costs delayq while it is kept for the retention (record, history and
// the ended log). Usage: npx tsx bench/probes/redis-memory.ts [JOBS=20000] [PARTITIONS=1]
import { Redis } from 'ioredis';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { probeJob } from '../lib.js';
import { enqueue } from '../scenarios.js';
import { cleanup, startRedis } from '../servers.js';
import { BullmqSubject } from '../subjects/bullmq-subject.js';
import { DelayqSubject } from '../subjects/delayq-subject.js';
import { bodyFor } from '../subject.js';

const jobs = Number(process.argv[2] ?? 20_000);
const partitions = Number(process.argv[3] ?? 1);
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);

/** Bytes per key family (partition and bucket numbers folded), largest first, as B/job. */
async function families(): Promise<void> {
  const families = new Map<string, { bytes: number; encodings: Set<string> }>();
  for (const key of await admin.keys('*')) {
    // {dq:3}:delayed:bench#17 → {dq:P}:delayed:bench#B;  {dq:0}:ended:29475360 → {dq:P}:ended:M;  bull:bench:123 → bull:bench:<id>
    const family = key
      .replace(/\{(\w+):\d+\}/, '{$1:P}')
      .replace(/#\d+$/, '#B')
      .replace(/:ended:\d+$/, ':ended:M')
      .replace(/^(bull:\w+:)\d+$/, '$1<id>');
    const entry = families.get(family) ?? { bytes: 0, encodings: new Set<string>() };
    entry.bytes += Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    entry.encodings.add(String(await admin.call('OBJECT', 'ENCODING', key)));
    families.set(family, entry);
  }
  for (const [family, { bytes, encodings }] of [...families].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 6)) {
    console.log(`  ${family.padEnd(32)} ${[...encodings].join('+').padEnd(20)} ${(bytes / jobs).toFixed(1)} B/job`);
  }
}

try {
  for (const subject of [
    new DelayqSubject({ kind: 'redis', port: redis.port, partitions }),
    new BullmqSubject(redis.port, 10),
  ]) {
    await subject.open();
    const { bytesPerJob } = await enqueue(subject, jobs);
    console.log(`${subject.name}: ${Math.round(bytesPerJob ?? Number.NaN)} B/job (used_memory), ${jobs} jobs`);
    await families();
    await subject.close();
  }

  // Finished jobs, kept for the retention: pushed due now, reserved and finished 100 at a time.
  await admin.flushall();
  const store = new RedisStore({ url: `redis://127.0.0.1:${redis.port}`, prefix: 'dq', nodeId: 'probe', partitions });
  await store.open();
  const before = await usedMemory();
  const now = Date.now();
  const body = JSON.stringify(bodyFor(now));
  for (let i = 0; i < jobs; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => probeJob(`f${i + k}`, 'bench', body, now));
    await store.pushMany(batch, now);
  }
  for (let done = 0; done < jobs;) {
    const got = (await store.reserve(['bench'], 100, now + 1)).reservations;
    await Promise.all(got.map((r) => store.finish(r.job.id, r.token, now + 2)));
    done += got.length;
  }
  console.log(
    `delayq · Redis, finished jobs: ${Math.round(((await usedMemory()) - before) / jobs)} B/job (used_memory), ${jobs} jobs`,
  );
  await families();
  await store.close();
} finally {
  admin.disconnect();
  await cleanup();
}
