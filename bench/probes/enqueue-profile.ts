// Delayed pushes into delayq · Redis (alone or with the SQL journal) with 100 in flight, as the enqueue scenario
// makes them, measured during the pushes only: CPU of this process and of Redis per job, and a CPU profile
// (.tmp/enqueue-<store>.cpuprofile).
// Usage: npx tsx bench/probes/enqueue-profile.ts [JOBS=50000] [redis|postgres|mariadb]
import { Redis } from 'ioredis';
import { FAR_MS, IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cleanup, startRedis } from '../servers.js';
import { DelayqSubject, redisCpuMs } from '../subjects/delayq-subject.js';
import { MARIADB, POSTGRES } from '../subjects/sql-databases.js';
import { startCpuProfile } from './cpu-profile.js';

const jobs = Number(process.argv[2] ?? 50_000);
const store = process.argv[3] ?? 'redis';
const sql = { postgres: POSTGRES, mariadb: MARIADB }[store];
if (store !== 'redis' && !sql) throw new Error(`store: redis, postgres or mariadb, not ${store}`);
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
const subject = new DelayqSubject(
  sql ? { kind: 'journal', port: redis.port, sql } : { kind: 'redis', port: redis.port },
);
try {
  await subject.open();
  const dueAt = Date.now() + FAR_MS;
  await withInFlight(jobs / 5, IN_FLIGHT, () => subject.push(dueAt)); // warm-up: JIT, connections
  const stopProfile = await startCpuProfile();
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuMs(admin);
  const started = performance.now();
  await withInFlight(jobs, IN_FLIGHT, () => subject.push(dueAt));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const redis1 = await redisCpuMs(admin);
  await stopProfile(`.tmp/enqueue-${store}.cpuprofile`);
  console.log(`${subject.name}: pushed ${jobs} at ${Math.round(jobs / seconds)} jobs/s`);
  console.log(
    `  CPU per job: this process ${((cpu.user + cpu.system) / jobs).toFixed(1)} µs, Redis ${(((redis1 - redis0) * 1000) / jobs).toFixed(1)} µs`,
  );
  console.log(`  profile: .tmp/enqueue-${store}.cpuprofile`);
} finally {
  await subject.close();
  admin.disconnect();
  await cleanup();
}
