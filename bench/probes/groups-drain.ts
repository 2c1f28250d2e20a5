// Where the groups drain's time goes: the flow-control bench's drain (flow-control.ts groupsDrain: 1,000
// groups, groupConcurrency 1, against the same jobs without groups) in alternating rounds on one server, with
// the server's CPU, Redis's CPU and Redis's commands per job for each, and the commands that differ (each with
// Redis's own µs a call, from INFO commandstats), after an unrecorded drain of half JOBS of each.
// Usage: npx tsx bench/probes/groups-drain.ts [redis|embedded] [JOBS=100000] [ROUNDS=3] [both|groups|plain]
// (DELAYQ_BENCH_SERVER_ARGS=--cpu-prof profiles the server: build-server.ts serverArgs)
import { Redis } from 'ioredis';
import { groupsDrain } from '../flow-control.js';
import { FlowServer, type FlowStore } from '../flow-server.js';
import { cleanup, cpuMsOf, startRedis } from '../servers.js';
import { redisCommandCalls, redisCpuMs } from '../subjects/delayq-subject.js';

const store = (process.argv[2] ?? 'redis') as FlowStore;
const jobs = Number(process.argv[3] ?? 100_000);
const rounds = Number(process.argv[4] ?? 3);
const only = process.argv[5] ?? 'both';
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
const server = new FlowServer(store, redis.port);
try {
  await server.open();
  // Unrecorded, as the bench does: a fresh server's first large drain costs 20–30 % more server CPU.
  for (const grouped of [true, false]) await groupsDrain(server, Math.ceil(jobs / 2), grouped);
  for (let round = 1; round <= rounds; round++) {
    for (const grouped of round % 2 ? [true, false] : [false, true]) {
      if ((only === 'groups' && !grouped) || (only === 'plain' && grouped)) continue;
      const cpu0 = cpuMsOf(server.pid);
      const redis0 = await redisCpuMs(admin);
      const calls0 = await redisCommandCalls(admin);
      const r = await groupsDrain(server, jobs, grouped);
      const cpu = cpuMsOf(server.pid) - cpu0;
      const redisCpu = (await redisCpuMs(admin)) - redis0;
      const calls1 = await redisCommandCalls(admin);
      const perJob: string[] = [];
      let total = 0;
      for (const [name, c] of calls1) {
        const n = c.calls - (calls0.get(name)?.calls ?? 0);
        total += n;
        // Redis's own time inside each command (a script's own line includes the commands it called).
        const usec = c.usec - (calls0.get(name)?.usec ?? 0);
        if (n / jobs >= 0.05) perJob.push(`${name} ${(n / jobs).toFixed(2)} × ${(usec / n).toFixed(1)} µs`);
      }
      console.log(
        `round ${round} ${grouped ? 'groups   ' : 'no groups'}: ${Math.round(r.jobsPerS)} jobs/s, server ${((cpu * 1000) / jobs).toFixed(1)} µs/job, ` +
          `Redis ${((redisCpu * 1000) / jobs).toFixed(1)} µs/job, ${(total / jobs).toFixed(2)} commands/job (${perJob.join(', ')}), missing ${r.missing}`,
      );
    }
  }
} finally {
  await server.close();
  await admin.quit();
  await cleanup();
}
