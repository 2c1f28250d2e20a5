/**
 * The kill -9 scenario shared by the stores: steady HTTP load from a producer and consumers (child
 * processes), the server SIGKILLed and restarted `kills` times, then a drain, then the history checker.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory, type CheckResult, type HistoryEvent } from './history-checker.js';
import {
  CHAOS_ROOT,
  sleep,
  startConsumer,
  startProducer,
  waitUntil,
  type ChaosChild,
  type ServerProcess,
} from './chaos-processes.js';

export interface KillLoopOptions {
  kills: number;
  /** Time between kills, ms (each one at a random point of [min, max]). */
  intervalMs: [number, number];
  ratePerSec: number;
  delayMaxMs: number;
  ttrMs: number;
  failEvery?: number;
  prefix: string;
  /** Called after each kill, before the restart (the wipe scenario empties Redis here). */
  afterKill?: (k: number) => Promise<void>;
  /** Called between kills instead of killing the server (e.g. wipe Redis under load). */
  disturb?: (k: number) => Promise<void>;
  /** How long the first start may take, ms (a start takes 10–30 s on a heavily loaded host). @defaultValue 30 s */
  startTimeoutMs?: number;
  /** Called once every acknowledged job is finished, with the consumers still running (e.g. a final wipe). */
  afterDrain?: () => Promise<void>;
  /** Another client beside the producer and consumers (started with them, stopped with them). */
  companion?: () => ChaosChild;
}

export interface KillLoopReport extends CheckResult {
  kills: number;
  acked: number;
  /** Deliveries that were not followed by an acknowledged finish or fail: in flight at a kill (or given up). */
  unsettled: number;
  /** Acknowledged fails (each allows one redelivery). */
  fails: number;
  /** Finishes and fails whose answer a kill swallowed, inferred by the consumer (counted in `unsettled` too). */
  inferredSettles: number;
  /** Jobs delivered more than once. */
  redeliveredJobs: number;
  pushErrors: number;
  restartMs: number[];
  drainMs: number;
  /** Jobs finished on the server whose finish answer the kill swallowed (the consumer never saw a 200). */
  finishAnswerLost: number;
  /** What the companion printed (its JSON lines). */
  companionEvents: Record<string, any>[];
}

export function historyOf(children: readonly ChaosChild[]): HistoryEvent[] {
  const known = new Set(['push', 'deliver', 'finish', 'fail', 'cancel']);
  return children.flatMap((c) => c.events.filter((e) => known.has(e['type'] as string)) as HistoryEvent[]);
}

export async function runKillLoop(server: ServerProcess, options: KillLoopOptions): Promise<KillLoopReport> {
  const topic = `chaos.${options.prefix}`;
  await server.start(options.startTimeoutMs);
  const producer = startProducer({
    urls: [server.url],
    prefix: options.prefix,
    topic,
    ratePerSec: options.ratePerSec,
    delayMaxMs: options.delayMaxMs,
    ttrMs: options.ttrMs,
  });
  const consumer = startConsumer({
    urls: [server.url],
    topic,
    loops: 4,
    ...(options.failEvery ? { failEvery: options.failEvery } : {}),
  });
  const companion = options.companion?.();
  const restartMs: number[] = [];
  const kills: object[] = [];
  try {
    for (let k = 0; k < options.kills; k++) {
      const [min, max] = options.intervalMs;
      await sleep(min + Math.random() * (max - min));
      if (options.disturb) {
        await options.disturb(k);
        continue;
      }
      kills.push({ type: 'kill', at: Date.now() });
      await server.kill9();
      kills.push({ type: 'killed', at: Date.now() });
      await options.afterKill?.(k);
      const t0 = Date.now();
      await server.start();
      restartMs.push(Date.now() - t0);
    }
    await sleep(options.intervalMs[0]);
    await producer.stop();
    const pushed = new Set(producer.events.filter((e) => e['type'] === 'push').map((e) => e['id'] as string));
    const drainStart = Date.now();
    const finishedPerServer = new Set<string>();
    /** When the server first showed a job finished whose finish answer the consumer never saw: a finish all the same. */
    const confirmedFinishes: HistoryEvent[] = [];
    // drain: every acknowledged push finished (lapsed reservations come back after their TTR)
    await waitUntil(
      'every acknowledged job to be finished',
      async () => {
        const finished = new Set(consumer.events.filter((e) => e['type'] === 'finish').map((e) => e['id'] as string));
        const open = [...pushed].filter((id) => !finished.has(id) && !finishedPerServer.has(id));
        // a finish can commit just before a kill and lose its answer: then only the server knows
        {
          for (const id of open.slice(0, 100)) {
            const res = await fetch(`${server.url}/v1/jobs/${encodeURIComponent(id)}`, {
              signal: AbortSignal.timeout(2000),
            });
            if (res.ok && ((await res.json()) as { job: { state: string } }).job.state === 'finished') {
              finishedPerServer.add(id);
              confirmedFinishes.push({ type: 'finish', id, at: Date.now() });
            }
          }
        }
        const left = open.filter((id) => !finishedPerServer.has(id));
        if (process.env['CHAOS_DEBUG'] && left.length)
          console.log(`drain: ${left.length} open, e.g. ${left.slice(0, 3).join(' ')}`);
        return left.length === 0;
      },
      options.delayMaxMs + options.ttrMs * 4 + 20_000,
      200,
    ).catch(async () => {
      // the checker reports what is missing; with CHAOS_DEBUG, show what became of it
      if (!process.env['CHAOS_DEBUG']) return;
      const finished = new Set(consumer.events.filter((e) => e['type'] === 'finish').map((e) => e['id'] as string));
      const lines: string[] = [];
      for (const id of [...pushed].filter((i) => !finished.has(i) && !finishedPerServer.has(i)).slice(0, 20)) {
        lines.push(`${id} ${JSON.stringify([...producer.events, ...consumer.events].filter((e) => e['id'] === id))}`);
        lines.push(JSON.stringify(await (await fetch(`${server.url}/v1/jobs/${id}?history=true`)).json()));
      }
      lines.push(server.child?.stderr ?? '');
      writeFileSync(join(CHAOS_ROOT, `drain-timeout-${options.prefix}.txt`), lines.join('\n'));
    });
    const drainMs = Date.now() - drainStart;
    await options.afterDrain?.();
    await consumer.stop();
    await companion?.stop();
    const events = [...historyOf([producer, consumer]), ...confirmedFinishes];
    // the raw history stays for a post-mortem of any violation
    writeFileSync(
      join(CHAOS_ROOT, `history-${options.prefix}.jsonl`),
      [...producer.events, ...consumer.events, ...kills].map((e) => JSON.stringify(e)).join('\n'),
    );
    const endAt = Date.now();
    const result = checkHistory(events, { endAt, graceMs: options.ttrMs * 3 + 2000, ttrSlackMs: 100 });
    const deliveries = consumer.events.filter((e) => e['type'] === 'deliver');
    const settled = consumer.events.filter(
      (e) => (e['type'] === 'finish' || e['type'] === 'fail') && !e['inferred'],
    ).length;
    const perJob = new Map<string, number>();
    for (const d of deliveries)
      if (pushed.has(d['id'] as string)) perJob.set(d['id'] as string, (perJob.get(d['id'] as string) ?? 0) + 1);
    return {
      ...result,
      kills: options.kills,
      acked: pushed.size,
      unsettled: deliveries.length - settled,
      fails: consumer.events.filter((e) => e['type'] === 'fail' && !e['inferred']).length,
      inferredSettles: consumer.events.filter((e) => e['inferred']).length,
      redeliveredJobs: [...perJob.values()].filter((n) => n > 1).length,
      pushErrors: producer.events.filter((e) => e['type'] === 'push-error' || e['type'] === 'push-refused').length,
      restartMs,
      drainMs,
      finishAnswerLost: finishedPerServer.size,
      companionEvents: companion?.events ?? [],
    };
  } finally {
    await producer.stop();
    await consumer.stop();
    await companion?.stop();
    await server.stop();
  }
}

/** One line for RELIABILITY.md and the test log. */
export function summarize(name: string, r: KillLoopReport): string {
  return (
    `${name}: kills=${r.kills} acked=${r.acked} delivered=${r.delivered} lost=${r.lost.length} early=${r.early.length} ` +
    `duplicates=${r.duplicates.length} resurrected=${r.resurrected.length} deliveredAfterFinish=${r.deliveredAfterFinish.length} redeliveries=${r.redeliveries} ` +
    `(jobs ${r.redeliveredJobs}) fails=${r.fails} unsettledDeliveries=${r.unsettled} inferredSettles=${r.inferredSettles} pushErrors=${r.pushErrors} ` +
    `finishAnswerLost=${r.finishAnswerLost} restartMs=[${r.restartMs.join(',')}] drainMs=${r.drainMs}`
  );
}
