/**
 * Groups over three delayq processes on one store, Redis and Redis with a PostgreSQL journal: twelve consumers
 * (four loops in each process) drain 20 groups of 15 jobs and 30 jobs without a group under groupConcurrency 2.
 * Every job is done exactly once, and the jobs of one group, each from its reserve's answer to its finish's
 * call on the host's clock (spans inside the store's reservation), are never held more than two at once,
 * though the consumers could hold 36 jobs at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { maxOverlap, type Interval } from '../helpers/overlap.js';
import { nextMessage } from '../helpers/child-messages.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('group-proc');
let database: JournalDatabase | undefined;
afterAll(async () => {
  await prefixes.sweep();
  await database?.drop();
});

const WORKER = fileURLToPath(new URL('../helpers/group-worker.ts', import.meta.url));
/** How long a consumer holds what it reserved before finishing it. */
const HOLD_MS = 25;

interface Done {
  id: string;
  group: string | null;
  from: number;
  to: number;
}
type Message = { ready: true } | { done: Done[] };

async function overridesOf(shape: 'redis' | 'redis+postgres'): Promise<Record<string, unknown>> {
  const redis = { store: { kind: 'redis' }, redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next() } };
  if (shape === 'redis') return redis;
  database ??= await postgresJournalDatabase();
  return { ...redis, journal: { kind: 'postgres', url: PG_URL, schema: database.name } };
}

describe.each(['redis', 'redis+postgres'] as const)('groups over three delayq processes on %s', (shape) => {
  it('groupConcurrency 2 holds across processes; every job is done once', async () => {
    const overrides = await overridesOf(shape);
    const topic = 'grouped';
    const observer = createRuntime(loadConfig({ env: {}, overrides: { ...overrides, nodeId: 'observer' } }));
    await observer.start();
    const { service } = observer;
    const children: ChildProcess[] = [];
    try {
      await service.topics.putSettings(topic, { groupConcurrency: 2 });
      const groups = Array.from({ length: 20 }, (_, g) => `tenant-${g}`);
      const jobs = [
        ...groups.flatMap((group) => Array.from({ length: 15 }, (_, i) => ({ topic, group, id: `${group}-${i}` }))),
        ...Array.from({ length: 30 }, (_, i) => ({ topic, id: `loose-${i}` })),
      ];
      await service.pushBatch(jobs);

      const next = (child: ChildProcess, pick: (m: Message) => boolean) => nextMessage<Message>(child, pick);
      const ready: Promise<Message>[] = [];
      for (let i = 0; i < 3; i++) {
        const args = ['--import', 'tsx', WORKER, JSON.stringify(overrides), topic, `gw-${i}`, String(HOLD_MS)];
        const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        children.push(child);
        ready.push(next(child, (m) => 'ready' in m));
      }
      await Promise.all(ready);
      const finished = async () => (await service.topics.stats()).find((t) => t.topic === topic)?.counts.finished;
      for (let i = 0; (await finished()) !== jobs.length; i++) {
        if (i > 600) throw new Error(`not all jobs finished: ${await finished()} of ${jobs.length}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const reports = children.map((child) => next(child, (m) => 'done' in m));
      for (const child of children) child.send('stop');
      const done = (await Promise.all(reports)).flatMap((m) => (m as { done: Done[] }).done);

      expect(done).toHaveLength(jobs.length);
      expect(new Set(done.map((d) => d.id)).size).toBe(jobs.length);
      const intervals: Interval[] = done
        .filter((d) => d.group !== null)
        .map((d) => ({ key: d.group!, from: d.from, to: d.to }));
      expect(intervals.every((i) => i.to > i.from)).toBe(true);
      const most = groups.map((g) => maxOverlap(intervals, g));
      expect(Math.max(...most)).toBe(2);
      const heldNow = await service.topics.stats();
      expect(heldNow.find((t) => t.topic === topic)!.counts.reserved).toBe(0);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill();
      await observer.close();
    }
  }, 90_000);
});
