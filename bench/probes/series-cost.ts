// What the store-wide figures over time (docs/series.md) cost per job: a DelayqService on its own
// redis-server runs JOBS jobs through push (batches of 100), reserve (100 a call) and finishMany, with the
// series recorder on, then off (stopped right after start), alternating over ROUNDS. Per job: this
// process's CPU, Redis's CPU (`INFO cpu`) and Redis commands (`INFO stats`), each the median over rounds.
// Then the recorder alone: the CPU one job event costs it (counted in memory; the writes, once a second, aside).
// Usage: npx tsx bench/probes/series-cost.ts [JOBS=20000] [ROUNDS=5] [TOPICS=4]
import { Redis } from 'ioredis';
import { systemClock } from '../../src/core/clock.js';
import { ServiceEvents } from '../../src/service/service-events.js';
import { JobSeriesRecorder } from '../../src/service/job-series-recorder.js';
import type { Store } from '../../src/store/store.js';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { median } from '../lib.js';
import { cleanup, startRedis } from '../servers.js';

const jobs = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 5);
const topics = Number(process.argv[4] ?? 4);
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
const redisFigures = async (): Promise<{ cpuUs: number; calls: number }> => {
  const [cpu, stats] = [await admin.info('cpu'), await admin.info('stats')];
  const field = (text: string, name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(text)![1]);
  return {
    cpuUs: (field(cpu, 'used_cpu_user') + field(cpu, 'used_cpu_sys')) * 1e6,
    calls: field(stats, 'total_commands_processed'),
  };
};

async function run(round: number, recorder: boolean): Promise<{ nodeUs: number; redisUs: number; calls: number }> {
  const service = new DelayqService({
    store: new RedisStore({
      url: `redis://127.0.0.1:${redis.port}`,
      prefix: `sc${round}${recorder}`,
      partitions: 1,
      nodeId: 'probe',
    }),
    runTimer: false,
  });
  await service.start();
  if (!recorder) await service.series.stop();
  const topicNames = Array.from({ length: topics }, (_, t) => `topic${t}`);
  const redisBefore = await redisFigures();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < jobs; i += 100) {
    const batch = Array.from({ length: Math.min(100, jobs - i) }, (_, k) => ({
      topic: topicNames[(i + k) % topics]!,
      body: 'x',
    }));
    await service.pushBatch(batch);
  }
  for (let done = 0; done < jobs;) {
    const reserved = await service.reserve({ topics: topicNames, count: 100 });
    await service.finishMany(reserved.map((r) => ({ id: r.job.id, token: r.token })));
    done += reserved.length;
  }
  await service.series.flush();
  const cpu = process.cpuUsage(cpuBefore);
  const redisAfter = await redisFigures();
  await service.close();
  return {
    nodeUs: (cpu.user + cpu.system) / jobs,
    redisUs: (redisAfter.cpuUs - redisBefore.cpuUs) / jobs,
    calls: (redisAfter.calls - redisBefore.calls) / jobs,
  };
}

try {
  const results = { on: [] as Awaited<ReturnType<typeof run>>[], off: [] as Awaited<ReturnType<typeof run>>[] };
  for (let round = 0; round < rounds; round++) {
    results.on.push(await run(round, true));
    results.off.push(await run(round, false));
  }
  const show = (key: 'nodeUs' | 'redisUs' | 'calls') => {
    const on = median(results.on.map((r) => r[key]));
    const off = median(results.off.map((r) => r[key]));
    return `${key.padEnd(8)} on ${on.toFixed(3)}  off ${off.toFixed(3)}  added ${(on - off).toFixed(3)} per job`;
  };
  console.log(`${jobs} jobs × ${rounds} rounds, ${topics} topics: push, reserve, finish each job`);
  for (const key of ['nodeUs', 'redisUs', 'calls'] as const) console.log(show(key));

  // The recorder alone, on events like a reserve's (with a due time: a lateness bucket too).
  const events = new ServiceEvents();
  const store = { series: { add: async () => undefined } } as unknown as Store;
  const recorder = new JobSeriesRecorder(events, store, systemClock, {
    sampleBacklog: false,
    onError: () => undefined,
  });
  const names = Array.from({ length: topics }, (_, t) => `topic${t}`);
  const emit = (n: number) => {
    const at = Date.now();
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++)
      events.job({ event: 'reserve', topic: names[i % topics]!, id: 'x', at, dueAt: at - (i % 100) });
    return Number(process.hrtime.bigint() - started) / n;
  };
  // Baseline: a listener that does nothing (the service always has listeners, so emitting is paid anyway).
  const idle = () => undefined;
  events.on('job', idle);
  const without = median([emit(1e6), emit(1e6), emit(1e6)]);
  recorder.start();
  const withRecorder = median([emit(1e6), emit(1e6), emit(1e6)]);
  await recorder.stop();
  console.log(
    `one reserve event: ${withRecorder.toFixed(0)} ns with the recorder, ${without.toFixed(0)} ns with an idle listener`,
  );
} finally {
  admin.disconnect();
  await cleanup();
}
