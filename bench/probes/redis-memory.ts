// Where the bytes of a pending job go: delayq · Redis and BullMQ, INFO used_memory and MEMORY USAGE per key
// family. Usage: npx tsx bench/probes/redis-memory.ts [JOBS=20000] [PARTITIONS=1]
import { Redis } from 'ioredis';
import { enqueue } from '../scenarios.js';
import { cleanup, startRedis } from '../servers.js';
import { BullmqSubject } from '../subjects/bullmq-subject.js';
import { DelayqSubject } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 20_000);
const partitions = Number(process.argv[3] ?? 1);
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
try {
  for (const subject of [new DelayqSubject({ kind: 'redis', port: redis.port, partitions }), new BullmqSubject(redis.port, 10)]) {
    await subject.open();
    const { bytesPerJob } = await enqueue(subject, jobs);
    console.log(`${subject.name}: ${Math.round(bytesPerJob ?? Number.NaN)} B/job (used_memory), ${jobs} jobs`);
    const families = new Map<string, { bytes: number; encodings: Set<string> }>();
    for (const key of await admin.keys('*')) {
      // {dq:3}:delayed:bench#17 → {dq:P}:delayed:bench#B;  bull:bench:123 → bull:bench:<id>
      const family = key.replace(/\{(\w+):\d+\}/, '{$1:P}').replace(/#\d+$/, '#B').replace(/^(bull:\w+:)\d+$/, '$1<id>');
      const entry = families.get(family) ?? { bytes: 0, encodings: new Set<string>() };
      entry.bytes += Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      entry.encodings.add(String(await admin.call('OBJECT', 'ENCODING', key)));
      families.set(family, entry);
    }
    for (const [family, { bytes, encodings }] of [...families].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 6)) {
      console.log(`  ${family.padEnd(32)} ${[...encodings].join('+').padEnd(20)} ${(bytes / jobs).toFixed(1)} B/job`);
    }
    await subject.close();
  }
} finally {
  admin.disconnect();
  await cleanup();
}
