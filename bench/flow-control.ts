// Flow control over HTTP (docs/flow-control.md), on delayq's embedded store, the server in its own process and
// the SDK's Worker (concurrency 100) as consumer:
// - "groups": a burst of ready jobs in 1,000 groups with `groupConcurrency: 1` drained, against the same jobs
//   in a topic without groupConcurrency; the ratio of the two rates is the cost of serving groups in turn.
// - "group-wait": one group with a backlog of ready jobs and `groupConcurrency` equal to the consumer's
//   concurrency (so it could take every slot), while a steady stream of jobs of fresh one-job groups is pushed,
//   each due at once: the time from a push to its delivery. Beside it the same without groupConcurrency (the
//   ready order), where a one-job group waits behind the backlog.
// - "debounce": the debounce storm (debounce-storm.ts).
// BullMQ has no groups in its open-source edition (they are BullMQ Pro's), so these have no BullMQ row.
import { fmt, sleep, summarize } from './lib.js';
import { rotate } from './host-load.js';
import { debounceRounds } from './debounce-storm.js';
import { FlowServer, type FlowStore } from './flow-server.js';
import type { RunContext } from './run-context.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY } from './scenarios.js';
import { bodyFor } from './subject.js';

/** Groups of the groups drain, and the bound each gets. */
export const DRAIN_GROUPS = 1000;
export const DRAIN_GROUP_CONCURRENCY = 1;
/** One-job groups pushed per second while the big group's backlog drains. */
export const ONE_JOB_RATE = 100;
/** The stream stops once this share of the backlog is delivered, so every one-job group met a backlog. */
const STREAM_UNTIL_SHARE = 0.9;
const GIVE_UP_MS = 180_000;
/**
 * Jobs of each variant drained, unrecorded, before a round measures: half the measured drain. A fresh server's
 * first 100k drain cost 20–30 % more server CPU than its next even after a drain of 5,000 of each (its heap
 * growing to its working size), which counted against whichever variant a round began with.
 */
const warmUpDrain = (jobs: number) => Math.ceil(jobs / 2);
/** A timer that never holds the process open (the drain's give-up outlives a drain that ended). */
const giveUp = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const STORE_NAME: Record<FlowStore, string> = { embedded: 'embedded', redis: 'Redis' };
/** The rows of the groups figures for one store: groups and no groups drained, a one-job group's wait with and without. */
export function groupRows(store: FlowStore) {
  const on = `delayq · ${STORE_NAME[store]} · SDK`;
  return {
    groups: `${on}, ${fmt(DRAIN_GROUPS)} groups, groupConcurrency ${DRAIN_GROUP_CONCURRENCY}`,
    noGroups: `${on}, no groups`,
    waitGroups: `${on}, groupConcurrency ${CONSUMER_CONCURRENCY}`,
    waitReadyOrder: `${on}, no groupConcurrency (ready order)`,
  };
}
export const {
  groups: GROUPS_ROW,
  noGroups: NO_GROUPS_ROW,
  waitGroups: WAIT_GROUPS_ROW,
  waitReadyOrder: WAIT_READY_ORDER_ROW,
} = groupRows('embedded');
export const {
  groups: GROUPS_ROW_REDIS,
  noGroups: NO_GROUPS_ROW_REDIS,
  waitGroups: WAIT_GROUPS_ROW_REDIS,
  waitReadyOrder: WAIT_READY_ORDER_ROW_REDIS,
} = groupRows('redis');
/** The results scenario of a groups figure on a store: the embedded store's keep their first names. */
export const groupScenario = (scenario: 'groups' | 'group-wait', store: FlowStore) =>
  store === 'embedded' ? scenario : `${scenario}-redis`;

let topics = 0;
const freshTopic = (label: string) => `flow-${label}-${++topics}`;

/** `count` ready jobs pushed in batches, the i-th of group `groupOf(i)` (none when undefined). */
async function fill(server: FlowServer, topic: string, count: number, groupOf: (i: number) => string | undefined) {
  for (let i = 0; i < count; i += BULK_SIZE) {
    const n = Math.min(BULK_SIZE, count - i);
    await server.client.pushBatch(
      Array.from({ length: n }, (_, k) => {
        const group = groupOf(i + k);
        return { topic, body: bodyFor(0), ...(group === undefined ? {} : { group }) };
      }),
    );
  }
}

export interface GroupsDrainResult {
  jobsPerS: number;
  missing: number;
}

/** `count` ready jobs drained by the Worker; rate = jobs ÷ (last finish answered − the Worker's start). */
export async function groupsDrain(server: FlowServer, count: number, grouped: boolean): Promise<GroupsDrainResult> {
  const topic = freshTopic(grouped ? 'groups' : 'plain');
  if (grouped) await server.client.putTopicSettings(topic, { groupConcurrency: DRAIN_GROUP_CONCURRENCY });
  await fill(server, topic, count, (i) => (grouped ? `g${i % DRAIN_GROUPS}` : undefined));
  let done = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const started = performance.now();
  const worker = server.consume(topic, () => {
    if (++done === count) allDone();
  });
  await Promise.race([finished, giveUp(GIVE_UP_MS)]);
  await worker.close(); // sends the acks still queued: the drain ends when the last finish was answered
  const seconds = (performance.now() - started) / 1000;
  return { jobsPerS: done / seconds, missing: count - done };
}

export interface GroupWaitResult {
  p50: number;
  p99: number;
  max: number;
  samples: number;
  missing: number;
  /** The backlog's own drain rate meanwhile. */
  backlogPerS: number;
}

/**
 * A backlog of `backlog` ready jobs of one group, then the Worker, then one job of a fresh group every
 * 1/ONE_JOB_RATE s, each due at once, until 90 % of the backlog is delivered: each one-job group's wait is its
 * delivery minus the instant before its push.
 */
export async function groupWait(server: FlowServer, backlog: number, grouped: boolean): Promise<GroupWaitResult> {
  const topic = freshTopic(grouped ? 'wait' : 'wait-ready-order');
  if (grouped) await server.client.putTopicSettings(topic, { groupConcurrency: CONSUMER_CONCURRENCY });
  await fill(server, topic, backlog, () => 'big');
  const waits: number[] = [];
  let big = 0;
  const started = performance.now();
  let backlogDoneAt = 0;
  const worker = server.consume(topic, (job) => {
    if (job.group === 'big') {
      if (++big === backlog) backlogDoneAt = performance.now();
    } else waits.push(Date.now() - (job.body as { d: number }).d);
  });
  let pushed = 0;
  try {
    const streamStartedAt = Date.now();
    const pushes: Promise<unknown>[] = [];
    while (big < backlog * STREAM_UNTIL_SHARE && performance.now() - started < GIVE_UP_MS) {
      const due = Math.floor(((Date.now() - streamStartedAt) * ONE_JOB_RATE) / 1000) + 1;
      for (; pushed < due; pushed++) {
        const group = `one-${topic}-${pushed}`;
        pushes.push(server.client.push({ topic, group, body: bodyFor(Date.now()) }));
      }
      await sleep(5);
    }
    await Promise.all(pushes);
    const deadline = performance.now() + GIVE_UP_MS;
    while ((big < backlog || waits.length < pushed) && performance.now() < deadline) await sleep(20);
  } finally {
    await worker.close();
  }
  const s = summarize(waits);
  const backlogS = ((backlogDoneAt || performance.now()) - started) / 1000;
  return { ...s, samples: s.n, missing: pushed - waits.length + (backlog - big), backlogPerS: big / backlogS };
}

/** Which flow-control scenarios of bench/run.ts run: groups and group-wait on each store, and the debounce storm. */
export interface FlowWanted {
  groups: boolean;
  groupWait: boolean;
  groupsRedis: boolean;
  groupWaitRedis: boolean;
  debounce: boolean;
}

/** The flow-control scenarios of bench/run.ts that run: each round on a fresh server, subjects rotated. */
export async function flowControlRounds(ctx: RunContext, wanted: FlowWanted): Promise<void> {
  const { add, failures, inRound, mode, runs } = ctx;
  const variants = [true, false];
  type Measure = (server: FlowServer, grouped: boolean) => Promise<void>;
  const drain = (store: FlowStore): Measure => {
    const rows = groupRows(store);
    const scenario = groupScenario('groups', store);
    return async (server, grouped) => {
      const row = grouped ? rows.groups : rows.noGroups;
      const r = await groupsDrain(server, mode['groupsJobs']!, grouped);
      add(scenario, row, 'rate', r.jobsPerS);
      add(scenario, row, 'missing', r.missing);
      if (r.missing > 0) failures.push(`${scenario} · ${row}: ${r.missing} job(s) not finished`);
    };
  };
  const wait = (store: FlowStore): Measure => {
    const rows = groupRows(store);
    const scenario = groupScenario('group-wait', store);
    return async (server, grouped) => {
      const row = grouped ? rows.waitGroups : rows.waitReadyOrder;
      const r = await groupWait(server, mode['groupWaitBacklog']!, grouped);
      for (const metric of ['p50', 'p99', 'max', 'samples', 'missing', 'backlogPerS'] as const)
        add(scenario, row, metric, r[metric]);
      if (r.missing > 0) failures.push(`${scenario} · ${row}: ${r.missing} job(s) never delivered`);
    };
  };
  const drained = `${fmt(mode['groupsJobs']!)} ready jobs in ${fmt(DRAIN_GROUPS)} groups, groupConcurrency ${DRAIN_GROUP_CONCURRENCY}, and without groups`;
  const waited = `one-job groups at ${ONE_JOB_RATE}/s beside a group of ${fmt(mode['groupWaitBacklog']!)} ready jobs`;
  const rounds: [boolean, FlowStore, 'groups' | 'group-wait', string, Measure][] = [
    [wanted.groups, 'embedded', 'groups', drained, drain('embedded')],
    [wanted.groupWait, 'embedded', 'group-wait', waited, wait('embedded')],
    [wanted.groupsRedis, 'redis', 'groups', drained, drain('redis')],
    [wanted.groupWaitRedis, 'redis', 'group-wait', waited, wait('redis')],
  ];
  for (const [on, store, kind, what, measure] of rounds) {
    if (!on) continue;
    const scenario = groupScenario(kind, store);
    const rows = groupRows(store);
    const rowOf = (grouped: boolean) =>
      kind === 'groups' ? (grouped ? rows.groups : rows.noGroups) : grouped ? rows.waitGroups : rows.waitReadyOrder;
    for (let run = 1; run <= runs; run++) {
      await inRound(scenario, run, `round ${run}/${runs}: ${scenario}: ${what}`, async (order) => {
        const server = new FlowServer(store, ctx.redisPort);
        try {
          await server.open();
          // Unrecorded: the first drain of a fresh server ran up to 30 % slower than the next (its JIT, its
          // heap's growth, SQLite's page cache), which would count against whichever variant a round begins with.
          for (const grouped of variants) await groupsDrain(server, warmUpDrain(mode['groupsJobs']!), grouped);
          for (const grouped of rotate(variants, run)) {
            order.push(rowOf(grouped));
            await measure(server, grouped).catch((err: unknown) => {
              failures.push(`${scenario} · ${rowOf(grouped)}: ${(err as Error).message}`);
            });
          }
        } catch (err) {
          failures.push(`${scenario}: ${(err as Error).message}`);
        } finally {
          await server.close();
        }
      });
    }
  }
  if (wanted.debounce) await debounceRounds(ctx);
}
