// Fire lateness of N schedules ticking every second: delayq schedules (one node on Redis, pushed ahead as
// delayed jobs) against BullMQ job schedulers (Queue.upsertJobScheduler with `every: 1000`), in one run on
// one machine, each on a Redis of its own. Lateness = when a consumer got the tick's job minus the tick.
// Used by `npm run bench` (bench/run.ts, scenario "schedules") and `npm run bench:schedules`.
import { Queue, Worker } from 'bullmq';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { fmt, summarize } from './lib.js';
import type { InRound } from './bulk-cancel.js';
import type { Results } from './results.js';
import { startRedis } from './servers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

export const DELAYQ_SCHEDULES = 'delayq schedules (Redis)';
export const BULLMQ_SCHEDULERS = 'BullMQ 6.7 upsertJobScheduler';

export interface FireOutcome {
  system: string;
  lateness: number[];
  fired: number;
  expected: number;
  doubled: number;
}

async function delayqFires(count: number, seconds: number): Promise<FireOutcome> {
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
  const expected = count * seconds;
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
  for (let i = 0; i < count; i++) {
    await schedules.put(`s${i}`, { topic: 'sched', everyMs: 1000, startAt: 0, missed: 'skip', job: { body: i } });
  }
  firstTick = Math.ceil(service.clock.now() / 1000) * 1000 + 2000;
  lastTick = firstTick + (seconds - 1) * 1000;
  log(`delayq: ${count} schedules put; counting ticks from ${new Date(firstTick).toISOString()}`);
  await consumer;
  await runtime.close();
  await redis.stop();
  return { system: DELAYQ_SCHEDULES, lateness, fired: seen.size, expected, doubled };
}

async function bullmqFires(count: number, seconds: number): Promise<FireOutcome> {
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
  for (let i = 0; i < count; i++) {
    await queue.upsertJobScheduler(`s${i}`, { every: 1000 }, { name: 'tick', data: i });
  }
  // Count whole seconds from the first tick after every scheduler is in place.
  firstTick = Math.ceil(Date.now() / 1000) * 1000 + 2000;
  lastTick = firstTick + (seconds - 1) * 1000;
  counting = true;
  log(`bullmq: ${count} job schedulers upserted; counting ticks from ${new Date(firstTick).toISOString()}`);
  const expected = count * seconds;
  while (Date.now() < lastTick + 15_000 && seen.size < expected) await sleep(500);
  counting = false;
  await worker.close();
  await queue.close();
  await redis.stop();
  return { system: BULLMQ_SCHEDULERS, lateness, fired: seen.size, expected, doubled };
}

/** Both systems in turn (BullMQ first when `bullmqFirst`), `schedules` of each ticking every second, ticks counted for `seconds`. */
export async function scheduleFires(schedules: number, seconds: number, bullmqFirst = false): Promise<FireOutcome[]> {
  if (bullmqFirst) return [await bullmqFires(schedules, seconds), await delayqFires(schedules, seconds)];
  return [await delayqFires(schedules, seconds), await bullmqFires(schedules, seconds)];
}

/** Records one run's outcomes under the scenario "schedules" of bench/run.ts. */
export function recordScheduleFires(results: Results, outcomes: readonly FireOutcome[], round: number): void {
  for (const o of outcomes) {
    const s = summarize(o.lateness);
    results.add('schedules', o.system, 'p50', s.p50, round);
    results.add('schedules', o.system, 'p99', s.p99, round);
    results.add('schedules', o.system, 'max', s.max, round);
    results.add('schedules', o.system, 'fired', o.fired / o.expected, round);
    results.add('schedules', o.system, 'doubled', o.doubled, round);
  }
}

/** One markdown table row per outcome. */
export function fireRows(outcomes: readonly FireOutcome[]): string[] {
  return outcomes.map((o) => {
    const s = summarize(o.lateness);
    return `| ${o.system} | ${fmt(o.fired)} / ${fmt(o.expected)} | ${o.doubled} | ${s.p50} | ${s.p99} | ${s.max} |`;
  });
}

/** The "schedules" scenario of bench/run.ts: `runs` rounds, the two systems' order swapped each round; a failed round is reported, not fatal. */
export async function runScheduleFires(
  results: Results,
  failures: string[],
  options: { schedules: number; seconds: number; runs: number },
  inRound: InRound = (_run, fn) => fn([]),
): Promise<void> {
  for (let run = 1; run <= options.runs; run++) {
    await inRound(run, async (order) => {
      order.push(...(run % 2 === 0 ? [BULLMQ_SCHEDULERS, DELAYQ_SCHEDULES] : [DELAYQ_SCHEDULES, BULLMQ_SCHEDULERS]));
      log(`round ${run}/${options.runs}: ${options.schedules} schedules every second for ${options.seconds} s`);
      try {
        recordScheduleFires(results, await scheduleFires(options.schedules, options.seconds, run % 2 === 0), run);
      } catch (err) {
        failures.push(`schedules: ${(err as Error).message}`);
      }
    });
  }
}
