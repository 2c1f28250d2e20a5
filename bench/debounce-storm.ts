// The debounce storm (scenario "debounce" of bench/run.ts, docs/flow-control.md "Upsert and debounce"): a
// stream of pushes of a few ids, each push moving its id's job later, then every job firing once. delayq over
// HTTP (the SDK client, the server in its own process, on the embedded store and on Redis) with
// `onExists: 'extend'` and `maxWaitMs`; beside it BullMQ's nearest equivalent, `deduplication: { id,
// reschedule: true }` (a duplicate add moves the delayed job to its own delay, keeping the job's data), which
// has no bound like maxWaitMs. The consumer runs throughout and counts each id's deliveries.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { rotate } from './host-load.js';
import { fmt, sleep } from './lib.js';
import { FlowServer, type FlowStore } from './flow-server.js';
import type { RunContext } from './run-context.js';
import { CONSUMER_CONCURRENCY, IN_FLIGHT, withInFlight } from './scenarios.js';
import { bodyFor } from './subject.js';

export const DEBOUNCE_DELAY_MS = 2000;
export const DEBOUNCE_MAX_WAIT_MS = 10_000;
export const BULLMQ_DEBOUNCE = 'BullMQ 6.7 · deduplication reschedule';
/** After every id fired once, how long the consumer keeps counting, for a second delivery. */
const GRACE_MS = 500;

export interface StormResult {
  /** Pushes ÷ the storm's seconds (last push answered − first sent). */
  pushesPerS: number;
  /** Jobs the pushes made (answers `created`; BullMQ: distinct job ids answered). */
  created: number;
  /** Ids delivered at least once. */
  fired: number;
  /** Deliveries beyond one per id. */
  doubled: number;
  /** Last delivery − the storm's end: the last job's debounce delay, and how late it fired. */
  lastFireMs: number;
  /** Pushes answered `kept`: the id's job had already fired (maxWaitMs reached during the storm). */
  kept: number;
}

type Push = (k: number) => Promise<{ job: string; outcome?: string }>;

/** Each id's deliveries, and when the last came. */
class Deliveries {
  readonly byId = new Map<number, number>();
  lastAt = 0;
  add(id: number): void {
    this.byId.set(id, (this.byId.get(id) ?? 0) + 1);
    this.lastAt = Date.now();
  }
}

/** The storm through `push`, the consumer counting into `deliveries`. */
async function storm(pushes: number, ids: number, push: Push, deliveries: Deliveries): Promise<StormResult> {
  const jobs = new Set<string>();
  let kept = 0;
  const started = performance.now();
  await withInFlight(pushes, IN_FLIGHT, async (k) => {
    const answer = await push(k);
    jobs.add(answer.job);
    if (answer.outcome === 'kept') kept++;
  });
  const endedAt = Date.now();
  const pushesPerS = pushes / ((performance.now() - started) / 1000);
  const deadline = endedAt + DEBOUNCE_MAX_WAIT_MS + 20_000;
  while (deliveries.byId.size < ids && Date.now() < deadline) await sleep(20);
  await sleep(GRACE_MS);
  let doubled = 0;
  for (const count of deliveries.byId.values()) doubled += count - 1;
  const fired = deliveries.byId.size;
  return { pushesPerS, created: jobs.size, fired, doubled, lastFireMs: deliveries.lastAt - endedAt, kept };
}

/** The storm against delayq over HTTP: `pushes` pushes, the k-th of id k mod `ids`, 100 in flight. */
export async function delayqStorm(server: FlowServer, pushes: number, ids: number, run: number): Promise<StormResult> {
  const topic = `debounce-${server.store}-${run}`;
  const deliveries = new Deliveries();
  const worker = server.consume(topic, (job) => deliveries.add((job.body as { k: number }).k));
  try {
    return await storm(
      pushes,
      ids,
      async (k) => {
        const answer = await server.client.push({
          topic,
          id: `${topic}-${k % ids}`,
          body: { ...bodyFor(0), k: k % ids },
          delayMs: DEBOUNCE_DELAY_MS,
          onExists: 'extend',
          maxWaitMs: DEBOUNCE_MAX_WAIT_MS,
        });
        return { job: answer.job.id, outcome: answer.outcome };
      },
      deliveries,
    );
  } finally {
    await worker.close();
  }
}

/** The same storm against BullMQ on the benchmark's Redis (flushed first): `queue.add` with deduplication. */
export async function bullmqStorm(redisPort: number, pushes: number, ids: number): Promise<StormResult> {
  const admin = new Redis({ host: '127.0.0.1', port: redisPort, lazyConnect: true });
  await admin.connect();
  await admin.flushall(); // the benchmark's own Redis, never the shared 6379
  await admin.quit();
  const connection = { host: '127.0.0.1', port: redisPort, maxRetriesPerRequest: null };
  const queue = new Queue('debounce', { connection });
  await queue.waitUntilReady();
  const deliveries = new Deliveries();
  const worker = new Worker('debounce', async (job) => deliveries.add((job.data as { k: number }).k), {
    connection,
    concurrency: CONSUMER_CONCURRENCY,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 1000 },
  });
  await worker.waitUntilReady();
  try {
    return await storm(
      pushes,
      ids,
      async (k) => {
        const job = await queue.add(
          'job',
          { ...bodyFor(0), k: k % ids },
          { delay: DEBOUNCE_DELAY_MS, deduplication: { id: `d-${k % ids}`, reschedule: true } },
        );
        return { job: job.id! };
      },
      deliveries,
    );
  } finally {
    await worker.close();
    await queue.close();
  }
}

/** The "debounce" scenario: delayq on the embedded store and on Redis, and BullMQ, rotated each round. */
export async function debounceRounds(ctx: RunContext): Promise<void> {
  const { add, failures, inRound, mode, runs } = ctx;
  const pushes = mode['debouncePushes']!;
  const ids = mode['debounceIds']!;
  const subjects: (FlowStore | 'bullmq')[] = ['embedded', 'redis', 'bullmq'];
  for (let run = 1; run <= runs; run++) {
    await inRound(
      'debounce',
      run,
      `round ${run}/${runs}: debounce storm of ${fmt(pushes)} pushes of ${fmt(ids)} ids`,
      async (order) => {
        for (const subject of rotate(subjects, run)) {
          const server = subject === 'bullmq' ? undefined : new FlowServer(subject, ctx.redisPort);
          const name = server?.name ?? BULLMQ_DEBOUNCE;
          order.push(name);
          try {
            await server?.open();
            const r = server
              ? await delayqStorm(server, pushes, ids, run)
              : await bullmqStorm(ctx.redisPort, pushes, ids);
            add('debounce', name, 'rate', r.pushesPerS);
            add('debounce', name, 'created', r.created);
            add('debounce', name, 'fired', r.fired);
            add('debounce', name, 'doubled', r.doubled);
            add('debounce', name, 'lastFireMs', r.lastFireMs);
            add('debounce', name, 'kept', r.kept);
            if (r.created !== ids || r.fired !== ids || r.doubled > 0)
              failures.push(
                `debounce · ${name}: ${r.created} jobs made, ${r.fired} fired, ${r.doubled} doubled (want ${ids}, ${ids}, 0)`,
              );
          } catch (err) {
            failures.push(`debounce · ${name}: ${(err as Error).message}`);
          } finally {
            await server?.close();
          }
        }
      },
    );
  }
}
