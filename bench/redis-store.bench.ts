/**
 * Redis store benchmark: pushes/s, memory per pending job, burst drain, lateness at steady due rates.
 * Runs against a redis-server of its own on 127.0.0.1:7040 (default config, no persistence), so it can
 * wipe it and read INFO memory without other tenants. Run: npx tsx bench/redis-store.bench.ts [--quick]
 */
import { Redis } from 'ioredis';
import { cpus, hostname, loadavg } from 'node:os';
import { DelayqService } from '../src/service/service.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import { aJob } from '../test/helpers/jobs.js';
import { startRedis } from '../test/helpers/redis-servers.js';

const PORT = 7040;
const quick = process.argv.includes('--quick');
const BODY = JSON.stringify({ pad: 'x'.repeat(90) }); // 100 bytes
const url = `redis://127.0.0.1:${PORT}`;

const server = await startRedis(PORT);
const admin = new Redis({ port: PORT, host: '127.0.0.1' });
const results: string[] = [];
const log = (line: string): void => {
  console.log(line);
  results.push(line);
};
const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
/** Redis's own CPU seconds (user + sys) from INFO cpu: with the machine shared, CPU per job is steadier than rates. */
const redisCpu = async (): Promise<number> => {
  const info = await admin.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
};
const cpuNote = async (jobs: number, node0: NodeJS.CpuUsage, redis0: number): Promise<string> => {
  const node = process.cpuUsage(node0);
  const nodeUs = (node.user + node.system) / jobs;
  const redisUs = (((await redisCpu()) - redis0) * 1e6) / jobs;
  return `CPU per job: delayq process ${nodeUs.toFixed(1)} µs, redis-server ${redisUs.toFixed(1)} µs`;
};
const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const openStore = async (): Promise<RedisStore> => {
  const store = new RedisStore({ url, nodeId: 'bench' });
  await store.open();
  return store;
};

async function pushesPerSecond(): Promise<void> {
  await admin.flushall();
  const store = await openStore();
  const seconds = quick ? 2 : 5;
  const inFlight = 100;
  let done = 0;
  const node0 = process.cpuUsage();
  const redis0 = await redisCpu();
  const stopAt = Date.now() + seconds * 1000;
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < stopAt) {
        const now = Date.now();
        await store.pushMany([aJob({ topic: 'bench', body: BODY, now, delayMs: 3_600_000 })], now);
        done++;
      }
    }),
  );
  const rate = done / ((Date.now() - startedAt) / 1000);
  log(
    `push, one job per call, ${inFlight} in flight, ${seconds} s: ${Math.round(rate).toLocaleString('en')} jobs/s (${done} jobs); ${await cpuNote(done, node0, redis0)}`,
  );
  await store.close();
}

async function bytesPerPendingJob(): Promise<void> {
  await admin.flushall();
  const store = await openStore();
  const count = quick ? 20_000 : 100_000;
  const before = await usedMemory();
  const now = Date.now();
  for (let i = 0; i < count; i += 1000) {
    const jobs = Array.from({ length: 1000 }, () =>
      aJob({ topic: 'mem', body: BODY, now, delayMs: 3_600_000 + Math.floor(Math.random() * 86_400_000) }),
    );
    jobs.forEach((j) => (j.id = newUlidLike()));
    await store.pushMany(jobs, now);
  }
  const after = await usedMemory();
  log(
    `memory per pending (delayed) job, ${count} jobs, 100-byte body, ULID ids: ${Math.round((after - before) / count)} bytes (used_memory delta)`,
  );
  await store.close();
}

let ulidCounter = 0;
function newUlidLike(): string {
  // 26 characters like a real ULID, without pulling the generator's monotonic state into the numbers.
  return (Date.now().toString(36) + (ulidCounter++).toString(36).padStart(8, '0') + Math.random().toString(36).slice(2))
    .slice(0, 26)
    .toUpperCase()
    .padEnd(26, '0');
}

async function burstDrain(): Promise<void> {
  await admin.flushall();
  const store = await openStore();
  const service = new DelayqService({ store, clock: store.clock });
  await service.start();
  const count = quick ? 20_000 : 100_000;
  // Enough lead for the (batched) pushes to finish before the due time even on a busy machine.
  const dueAt = store.clock.now() + 3000 + count * 0.15;
  for (let i = 0; i < count; i += 1000) {
    await store.pushMany(
      Array.from({ length: 1000 }, () => aJob({ topic: 'burst', body: BODY, runAt: dueAt, now: dueAt - 1 })),
      store.clock.now(),
    );
  }
  if (store.clock.now() >= dueAt) log('burst: WARNING the pushes overran the due time; the result below is not valid');
  let finished = 0;
  let lastAt = 0;
  while (store.clock.now() < dueAt - 50) await new Promise((r) => setTimeout(r, 20));
  const node0 = process.cpuUsage();
  const redis0 = await redisCpu();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (finished < count) {
        const got = await service.reserve({ topics: ['burst'], count: 100, waitMs: 1000 });
        await Promise.all(got.map((r) => service.finish(r.job.id, r.token)));
        finished += got.length;
        if (got.length) lastAt = store.clock.now();
      }
    }),
  );
  const seconds = (lastAt - dueAt) / 1000;
  log(
    `burst: ${count} jobs due at the same instant, one process (8 consumers × reserve 100 + finish): ` +
      `${Math.round(count / seconds).toLocaleString('en')} jobs/s, last job finished ${Math.round(lastAt - dueAt)} ms after the due time; ` +
      `promote + reserve + finish ${await cpuNote(count, node0, redis0)}`,
  );
  await service.close();
}

async function lateness(perSecond: number): Promise<void> {
  await admin.flushall();
  const store = await openStore();
  const service = new DelayqService({ store, clock: store.clock });
  await service.start();
  const seconds = quick ? 3 : 10;
  const total = perSecond * seconds;
  const firstDue = store.clock.now() + 3000 + total * 0.15;
  // Pushed ahead of time in batches; due times spread evenly at `perSecond`, at millisecond resolution.
  for (let i = 0; i < total; i += 1000) {
    const jobs = Array.from({ length: Math.min(1000, total - i) }, (_, k) =>
      aJob({
        topic: 'late',
        body: BODY,
        runAt: firstDue + Math.floor(((i + k) * 1000) / perSecond),
        now: firstDue - 1,
      }),
    );
    await store.pushMany(jobs, store.clock.now());
  }
  if (store.clock.now() >= firstDue)
    log(`lateness ${perSecond}/s: WARNING the pushes overran the first due time; not valid`);
  const late: number[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (late.length < total) {
        const got = await service.reserve({ topics: ['late'], count: 50, waitMs: 1000 });
        const at = store.clock.now();
        for (const r of got) late.push(at - r.job.runAt);
        await Promise.all(got.map((r) => service.finish(r.job.id, r.token)));
      }
    }),
  );
  late.sort((a, b) => a - b);
  log(
    `lateness at ${perSecond.toLocaleString('en')} due/s for ${seconds} s (reserve time − runAt): p50 ${pct(late, 50)} ms, p99 ${pct(late, 99)} ms, max ${late[late.length - 1]} ms`,
  );
  await service.close();
}

try {
  log(
    `machine: ${hostname()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${(await admin.info('server')).match(/redis_version:(\S+)/)![1]!} ` +
      `(redis-server of its own on ${PORT}, default config); shared machine, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} at start`,
  );
  await pushesPerSecond();
  await bytesPerPendingJob();
  await burstDrain();
  await lateness(1000);
  await lateness(5000);
} finally {
  await admin.quit();
  await server.stop();
}
console.log('\n' + results.join('\n'));
