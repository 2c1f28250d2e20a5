// Lateness of a preloaded backlog coming due at 1k/s, over the API and over the beanstalkd protocol, beside
// BullMQ and beanstalkd ("late-api"): the consumer connects first, then `jobs` jobs are pushed with due times
// spread evenly, one every 1000 ÷ rate ms from `leadMs` after the start (HTTP: batches of 1000; BullMQ:
// addBulk; beanstalkd protocol: single puts, 100 in flight), and each is timed as it arrives.
// Over HTTP each delivery is split where it is spent, from the job's own `readyAt` and `reservedAt`:
//   due → ready         the scheduler's timer wake-up and its promote call (or the reserve that promoted it)
//   ready → reserved    the long-poll hand-off: a waiting reserve answered, or the next reserve request
//   reserved → received the answer's trip: serialization, HTTP, the consumer's event loop
// with the server's promote calls (its /metrics: store calls by operation) and the consumer's reserve cadence.
import { percentile, sleep, summarize } from './lib.js';
import type { RunContext } from './run-context.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY, IN_FLIGHT, withInFlight } from './scenarios.js';
import type { ServerTimes, Subject } from './subject.js';
import { DelayqHttpSubject } from './subjects/delayq-http-subject.js';

export const LATE_API_KEYS = [
  'api-redis-sdk',
  'api-redis-plain',
  'api-embedded-sdk',
  'api-embedded-plain',
  'bsdelayq',
  'bsdelayq-embedded',
  'bull10',
  'beanstalkd',
] as const;
export const LATE_API_RATE = 1000;

interface Sample {
  late: number;
  due: number;
  received: number;
  times: ServerTimes | undefined;
}

export interface BreakdownResult {
  p50: number;
  p99: number;
  max: number;
  missing: number;
  /** How late the last preloaded push was acknowledged after the first job's due time (0 normally), ms. */
  overrunMs: number;
  preloadS: number;
  /** Per stage, p99 ms; undefined where the consumer does not see the server's times. */
  dueReadyP99: number | undefined;
  readyReservedP99: number | undefined;
  tripP99: number | undefined;
  /** Jobs ÷ the server's promoteDue calls while the backlog came due. */
  jobsPerPromote: number | undefined;
  /** Jobs ÷ the consumer's reserve requests, and those requests per second. */
  jobsPerReserve: number | undefined;
  reservesPerS: number | undefined;
}

/** Sum of one counter's series for a store operation in Prometheus text. */
export function storeCalls(metrics: string, operation: string): number {
  const re = new RegExp(
    `^delayq_store_call_seconds_count\\{[^}]*operation="${operation}"[^}]*\\} (\\d+(?:\\.\\d+)?)$`,
    'gm',
  );
  let total = 0;
  for (const m of metrics.matchAll(re)) total += Number(m[1]);
  return total;
}

const p99Of = (values: number[]) =>
  values.length
    ? percentile(
        [...values].sort((a, b) => a - b),
        99,
      )
    : undefined;

/** The preloaded backlog's lateness, split by stage where the server's times are seen. */
export async function preloadedLateness(
  s: Subject,
  jobs: number,
  rate: number,
  leadMs: number,
): Promise<BreakdownResult> {
  const samples: Sample[] = [];
  const consumer = await s.consume(CONSUMER_CONCURRENCY, (due, times) => {
    const received = Date.now();
    samples.push({ late: received - due, due, received, times });
  });
  const http = s instanceof DelayqHttpSubject ? s : undefined;
  let window: { promotes: number; reserves: number; at: number } | undefined;
  try {
    await sleep(100); // the consumer is connected and waiting
    const firstDue = Date.now() + leadMs;
    const dueAts = Array.from({ length: jobs }, (_, i) => Math.round(firstDue + (i * 1000) / rate));
    const started = performance.now();
    if (s.pushBulk) for (let i = 0; i < jobs; i += BULK_SIZE) await s.pushBulk(dueAts.slice(i, i + BULK_SIZE));
    else await withInFlight(jobs, IN_FLIGHT, (i) => s.push(dueAts[i]!));
    const preloadS = (performance.now() - started) / 1000;
    const overrunMs = Math.max(0, Date.now() - firstDue);
    window = {
      promotes: http ? storeCalls(await http.metricsText(), 'promoteDue') : 0,
      reserves: s.reserveRequests?.() ?? 0,
      at: Date.now(),
    };
    const deadline = dueAts[jobs - 1]! + s.resolutionMs + 20_000;
    while (samples.length < jobs && Date.now() < deadline) await sleep(20);
    const promotes = http ? storeCalls(await http.metricsText(), 'promoteDue') - window.promotes : undefined;
    const reserves = s.reserveRequests ? s.reserveRequests() - window.reserves : undefined;
    const seconds = (Date.now() - window.at) / 1000;
    const total = summarize(samples.map((x) => x.late));
    const timed = samples.filter((x) => x.times?.readyAt != null && x.times.reservedAt != null);
    const stage = (f: (x: Sample) => number) => (timed.length ? p99Of(timed.map(f)) : undefined);
    return {
      p50: total.p50,
      p99: total.p99,
      max: total.max,
      missing: jobs - total.n,
      overrunMs,
      preloadS,
      dueReadyP99: stage((x) => x.times!.readyAt! - x.due),
      readyReservedP99: stage((x) => x.times!.reservedAt! - x.times!.readyAt!),
      tripP99: stage((x) => x.received - x.times!.reservedAt!),
      jobsPerPromote: promotes ? samples.length / promotes : undefined,
      jobsPerReserve: reserves ? samples.length / reserves : undefined,
      reservesPerS: reserves !== undefined ? reserves / seconds : undefined,
    };
  } finally {
    await consumer.stop();
  }
}

export async function latenessBreakdownRounds(ctx: RunContext): Promise<void> {
  const { mode, runs, add, failures } = ctx;
  const jobs = mode['lateApiJobs']!;
  for (let run = 1; run <= runs; run++)
    await ctx.inRound(
      'late-api',
      run,
      `round ${run}/${runs}: ${jobs} jobs preloaded, due at ${LATE_API_RATE}/s, over the API and the protocol`,
      () =>
        ctx.each(LATE_API_KEYS, run, async (_key, s) => {
          await ctx.profiled('late-api', s, jobs, async () => {
            const r = await preloadedLateness(s, jobs, LATE_API_RATE, mode['lateApiLeadMs']!);
            for (const [metric, value] of Object.entries(r)) add('late-api', s.name, metric, value);
            if (r.missing > 0) failures.push(`late-api · ${s.name}: ${r.missing} job(s) never delivered`);
          });
        }),
    );
}
