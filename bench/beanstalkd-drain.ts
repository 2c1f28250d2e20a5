// The beanstalkd protocol, server against server, with the same jackd clients: beanstalkd itself, the durable
// floor on Redis (redis-floor-subject.ts) and delayq's listener on Redis, each in its own process.
//  - "bs-drain": `jobs` puts with no delay (ready on put: 10 producer connections, 100 in flight), then 100
//    consumer connections reserve-with-timeout and delete until all are gone. Rate = jobs ÷ (last delete's
//    job received − consumers connected); CPU per job over the drain alone.
//  - "bs-burst": then, on the same server, `jobs` puts due at one instant (delays in whole seconds), the
//    consumers connected at once and waiting: promotion included. CPU per job from the consumers' start to
//    the last job, and its ratio to the same round's ready-on-put drain (the floor knows no delays: no burst).
import { sleep } from './lib.js';
import type { RunContext } from './run-context.js';
import { CONSUMER_CONCURRENCY, IN_FLIGHT, withInFlight } from './scenarios.js';
import type { Subject } from './subject.js';

/** Subjects of the scenario (run.ts's keys): beanstalkd, the durable floor, delayq's listener on Redis. */
export const BEANSTALKD_KEYS = ['beanstalkd', 'bs-floor', 'bsdelayq'] as const;
const GIVE_UP_MS = 120_000;

interface Drained {
  delivered: number;
  /** First due instant seen (epoch ms) and when the last job arrived. */
  firstDue: number;
  lastAt: number;
  startedAt: number;
}

/** Starts the subject's consumer and waits until `count` jobs arrived (or `deadline`). */
async function drain(s: Subject, count: number, deadline: number): Promise<Drained> {
  const startedAt = Date.now();
  const d: Drained = { delivered: 0, firstDue: Number.POSITIVE_INFINITY, lastAt: 0, startedAt };
  const consumer = await s.consume(CONSUMER_CONCURRENCY, (due) => {
    d.delivered++;
    d.firstDue = Math.min(d.firstDue, due);
    d.lastAt = Date.now();
  });
  d.startedAt = Date.now();
  try {
    while (d.delivered < count && Date.now() < deadline) await sleep(10);
  } finally {
    await consumer.stop();
  }
  return d;
}

export async function beanstalkdRounds(ctx: RunContext): Promise<void> {
  const { mode, runs, add, failures } = ctx;
  const jobs = mode['bsJobs']!;
  const missing = (scenario: string, s: Subject, d: Drained) => {
    add(scenario, s.name, 'missing', jobs - d.delivered);
    if (d.delivered < jobs) failures.push(`${scenario} · ${s.name}: ${jobs - d.delivered} job(s) never delivered`);
  };
  for (let run = 1; run <= runs; run++)
    await ctx.inRound(
      'bs-drain',
      run,
      `round ${run}/${runs}: beanstalkd protocol, ${jobs} ready on put, then a burst`,
      () =>
        ctx.each(BEANSTALKD_KEYS, run, async (key, s) => {
          const now = Date.now();
          const put0 = performance.now();
          await withInFlight(jobs, IN_FLIGHT, () => s.push(now));
          const putRate = jobs / ((performance.now() - put0) / 1000);
          add('bs-drain', s.name, 'putRate', putRate);
          let ready: Drained | undefined;
          const drainCost = await ctx.profiled('bs-drain', s, jobs, async () => {
            ready = await drain(s, jobs, Date.now() + GIVE_UP_MS);
          });
          add('bs-drain', s.name, 'rate', ready!.delivered / (Math.max(1, ready!.lastAt - ready!.startedAt) / 1000));
          missing('bs-drain', s, ready!);
          if (key === 'bs-floor') return;

          // Whole seconds of lead, enough for the puts at the rate just measured.
          const leadMs = Math.ceil(((jobs / putRate) * 1500 + mode['burstSlackMs']!) / 1000) * 1000;
          const dueAt = Date.now() + leadMs;
          await withInFlight(jobs, IN_FLIGHT, () => s.push(dueAt));
          add('bs-burst', s.name, 'overrun', Math.max(0, Date.now() - dueAt));
          let burst: Drained | undefined;
          const burstCost = await ctx.profiled('bs-burst', s, jobs, async () => {
            burst = await drain(s, jobs, dueAt + s.resolutionMs + GIVE_UP_MS);
          });
          const from = Math.max(burst!.firstDue, burst!.startedAt);
          add('bs-burst', s.name, 'rate', burst!.delivered / (Math.max(1, burst!.lastAt - from) / 1000));
          add('bs-burst', s.name, 'lastLate', burst!.lastAt - burst!.firstDue);
          missing('bs-burst', s, burst!);
          if (burstCost.serverUs !== undefined && drainCost.serverUs)
            add('bs-burst', s.name, 'cpuVsDrain', burstCost.serverUs / drainCost.serverUs);
        }),
    );
}
