// A burst drained by delayq · Redis, measured during the drain only: CPU of this process and of Redis per
// job, how busy its event loop was, Redis commands per job, and a CPU profile (.tmp/drain.cpuprofile, open
// in Chrome DevTools) unless `noprofile` is given (the profiler adds ≈ 25–40 % to the process's CPU here).
// Usage: npx tsx bench/probes/drain-profile.ts [JOBS=20000] [PARTITIONS=1] [noprofile] [redis|embedded]
// (embedded: the SQLite store; the Redis figures then stay at 0)
import { Redis } from 'ioredis';
import { sleep } from '../lib.js';
import { cleanup, startRedis } from '../servers.js';
import { DelayqSubject, redisCommandCalls, redisCpuMs } from '../subjects/delayq-subject.js';
import { startCpuProfile } from './cpu-profile.js';

const jobs = Number(process.argv[2] ?? 20_000);
const partitions = Number(process.argv[3] ?? 1);
const profile = process.argv[4] !== 'noprofile';
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
/** Redis's user and system CPU so far, s: system time is mostly the loopback socket's work. */
const redisUserSys = async (): Promise<[number, number]> => {
  const info = await admin.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return [field('used_cpu_user'), field('used_cpu_sys')];
};
const subject =
  process.argv[5] === 'embedded'
    ? new DelayqSubject({ kind: 'sqlite' })
    : new DelayqSubject({ kind: 'redis', port: redis.port, partitions });
try {
  await subject.open();
  const dueAt = Date.now() + 3000 + jobs / 5; // enough lead to push them all on a busy machine
  for (let i = 0; i < jobs; i += 1000)
    await subject.pushBulk(Array.from({ length: Math.min(1000, jobs - i) }, () => dueAt));
  if (Date.now() >= dueAt) throw new Error('pushing overran the lead; try fewer jobs');
  await sleep(dueAt - Date.now() - 50);
  const stopProfile = profile ? await startCpuProfile() : undefined;
  const loop0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuMs(admin);
  const [user0, sys0] = await redisUserSys();
  const calls0 = await redisCommandCalls(admin);
  let delivered = 0;
  let lastAt = 0;
  const consumer = await subject.consume(100, () => {
    delivered++;
    lastAt = Date.now();
  });
  while (delivered < jobs) await sleep(10);
  const cpu = process.cpuUsage(cpu0);
  const loop = performance.eventLoopUtilization(loop0);
  const redis1 = await redisCpuMs(admin);
  const [user1, sys1] = await redisUserSys();
  const calls1 = await redisCommandCalls(admin);
  await stopProfile?.('.tmp/drain.cpuprofile');
  await consumer.stop();
  console.log(`drained ${jobs} at ${Math.round(jobs / ((lastAt - dueAt) / 1000))} jobs/s (partitions ${partitions})`);
  console.log(
    `  CPU per job: this process ${((cpu.user + cpu.system) / jobs).toFixed(1)} µs, Redis ${(((redis1 - redis0) * 1000) / jobs).toFixed(1)} µs (user ${(((user1 - user0) * 1e6) / jobs).toFixed(1)}, system ${(((sys1 - sys0) * 1e6) / jobs).toFixed(1)})`,
  );
  console.log(
    `  event loop busy ${(loop.utilization * 100).toFixed(0)} % of the drain (${((loop.active * 1000) / jobs).toFixed(1)} µs a job)`,
  );
  for (const [name, c] of [...calls1].sort((a, b) => b[1].calls - a[1].calls)) {
    const calls = c.calls - (calls0.get(name)?.calls ?? 0);
    const usec = c.usec - (calls0.get(name)?.usec ?? 0);
    if (calls >= jobs / 100)
      console.log(
        `  ${name.padEnd(10)} ${(calls / jobs).toFixed(3)} calls/job  ${(usec / jobs).toFixed(1)} µs/job in Redis`,
      );
  }
  if (profile) console.log('  profile: .tmp/drain.cpuprofile');
} finally {
  await subject.close();
  admin.disconnect();
  await cleanup();
}
