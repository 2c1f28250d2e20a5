// Fire lateness of N schedules ticking every second: delayq schedules (one node on Redis, pushed ahead as
// delayed jobs) against BullMQ 6.7 job schedulers (Queue.upsertJobScheduler with `every: 1000`), in one
// run on one machine, each on a Redis of its own. Lateness = when a consumer got the tick's job minus the
// tick. Writes .tmp/schedules-bench.md.
//
//   npm run bench:schedules                       1000 schedules for 20 s each
//   npx tsx bench/schedules.bench.ts --quick      1000 schedules for 8 s each (a loaded machine's smoke run)
//   options: --schedules=N --seconds=S
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Queue, Worker } from 'bullmq';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { machine, summarize } from './lib.js';
import { cleanup, startRedis } from './servers.js';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = argv.includes('--quick');
const SCHEDULES = Number(option('schedules') ?? 1000);
const SECONDS = Number(option('seconds') ?? (quick ? 8 : 20));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface Outcome {
  system: string;
  lateness: number[];
  fired: number;
  expected: number;
  doubled: number;
}

async function delayq(): Promise<Outcome> {
  const redis = await startRedis();
  const config = loadConfig({
    env: {},
    overrides: { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${redis.port}`, prefix: 'bench' } },
  });
  const runtime = createRuntime(config);
  await runtime.start();
  const { service, schedules } = runtime;
  const lateness: number[] = [];
  const seen = new Set<string>();
  let doubled = 0;
  const expected = SCHEDULES * SECONDS;
  // The window of ticks counted is set once every schedule is in place (as for BullMQ below); the
  // consumer runs from the start so ticks fired while the schedules are put do not pile up.
  let firstTick = Number.POSITIVE_INFINITY;
  let lastTick = Number.POSITIVE_INFINITY;
  const consumer = (async () => {
    while (seen.size < expected && service.clock.now() < lastTick + 15_000) {
      const got = await service.reserve({ topics: ['sched'], count: 100, waitMs: 1000 });
      const now = service.clock.now();
      for (const { job } of got) {
        if (job.runAt < firstTick || job.runAt > lastTick) continue;
        lateness.push(now - job.runAt);
        if (seen.has(job.id)) doubled++;
        seen.add(job.id);
      }
      await Promise.all(got.map(({ job, token }) => service.finish(job.id, token)));
    }
  })();
  for (let i = 0; i < SCHEDULES; i++) {
    await schedules.put(`s${i}`, { topic: 'sched', everyMs: 1000, startAt: 0, missed: 'skip', job: { body: i } });
  }
  firstTick = Math.ceil(service.clock.now() / 1000) * 1000 + 2000;
  lastTick = firstTick + (SECONDS - 1) * 1000;
  log(`delayq: ${SCHEDULES} schedules put; counting ticks from ${new Date(firstTick).toISOString()}`);
  await consumer;
  await runtime.close();
  await redis.stop();
  return { system: 'delayq schedules (Redis)', lateness, fired: seen.size, expected, doubled };
}

async function bullmq(): Promise<Outcome> {
  const redis = await startRedis();
  const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
  const queue = new Queue('sched', { connection });
  await queue.waitUntilReady();
  const lateness: number[] = [];
  const seen = new Set<string>();
  let doubled = 0;
  let counting = false;
  let firstTick = 0;
  let lastTick = 0;
  const worker = new Worker(
    'sched',
    async (job) => {
      // A scheduler's job id is `repeat:<scheduler id>:<tick ms>`; the tick is what it was due at.
      const tick = Number(job.id!.split(':').pop());
      if (!counting || tick < firstTick || tick > lastTick) return;
      lateness.push(Date.now() - tick);
      if (seen.has(job.id!)) doubled++;
      seen.add(job.id!);
    },
    { connection, concurrency: 100, removeOnComplete: { count: 0 }, removeOnFail: { count: 1000 } },
  );
  await worker.waitUntilReady();
  for (let i = 0; i < SCHEDULES; i++) {
    await queue.upsertJobScheduler(`s${i}`, { every: 1000 }, { name: 'tick', data: i });
  }
  // Count whole seconds from the first tick after every scheduler is in place.
  firstTick = Math.ceil(Date.now() / 1000) * 1000 + 2000;
  lastTick = firstTick + (SECONDS - 1) * 1000;
  counting = true;
  log(`bullmq: ${SCHEDULES} job schedulers upserted; counting ticks from ${new Date(firstTick).toISOString()}`);
  const expected = SCHEDULES * SECONDS;
  while (Date.now() < lastTick + 15_000 && seen.size < expected) await sleep(500);
  counting = false;
  await worker.close();
  await queue.close();
  await redis.stop();
  return { system: 'BullMQ 6.7 upsertJobScheduler', lateness, fired: seen.size, expected, doubled };
}

const load = loadavg()[0]!.toFixed(1);
const outcomes: Outcome[] = [];
try {
  outcomes.push(await delayq());
  outcomes.push(await bullmq());
} finally {
  await cleanup();
}
const rows = outcomes.map((o) => {
  const s = summarize(o.lateness);
  return `| ${o.system} | ${o.fired} / ${o.expected} | ${o.doubled} | ${s.p50} | ${s.p99} | ${s.max} |`;
});
const markdown = [
  `# Schedule fire lateness: ${SCHEDULES} schedules every second for ${SECONDS} s${quick ? ' (quick run)' : ''}`,
  '',
  `${machine()}; load average ${load} before the run (a shared machine: treat the numbers as indicative).`,
  '',
  '| system | ticks fired / due | doubled | lateness p50 ms | p99 ms | max ms |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
].join('\n');
mkdirSync(new URL('../.tmp/', import.meta.url), { recursive: true });
writeFileSync(new URL('../.tmp/schedules-bench.md', import.meta.url), markdown);
process.stdout.write(markdown);
process.exit(0);
