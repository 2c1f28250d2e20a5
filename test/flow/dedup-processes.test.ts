/**
 * The dedup window over three delayq processes on one store, Redis and Redis with a PostgreSQL journal: 300
 * concurrent pushes of distinct ids with one dedupKey, sent from three processes at once, make exactly one job,
 * and every push is answered with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { nextMessage } from '../helpers/child-messages.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('dedup-proc');
let database: JournalDatabase | undefined;
afterAll(async () => {
  await prefixes.sweep();
  await database?.drop();
});

const WORKER = fileURLToPath(new URL('../helpers/dedup-worker.ts', import.meta.url));

type Message = { ready: true } | { answers: { outcome: string; id: string }[] };

async function overridesOf(shape: 'redis' | 'redis+postgres'): Promise<Record<string, unknown>> {
  const redis = { store: { kind: 'redis' }, redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next() } };
  if (shape === 'redis') return redis;
  database ??= await postgresJournalDatabase();
  return { ...redis, journal: { kind: 'postgres', url: PG_URL, schema: database.name } };
}

describe.each(['redis', 'redis+postgres'] as const)('the dedup window over three delayq processes on %s', (shape) => {
  it('300 concurrent pushes of distinct ids with one key: one job, answered to all', async () => {
    const overrides = await overridesOf(shape);
    const topic = 'deduplicated';
    const observer = createRuntime(loadConfig({ env: {}, overrides: { ...overrides, nodeId: 'observer' } }));
    await observer.start();
    const children: ChildProcess[] = [];
    try {
      const next = (child: ChildProcess, pick: (m: Message) => boolean) => nextMessage<Message>(child, pick);
      const ready: Promise<Message>[] = [];
      for (let i = 0; i < 3; i++) {
        const args = ['--import', 'tsx', WORKER, JSON.stringify(overrides), topic, `dd-${i}`];
        const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        children.push(child);
        ready.push(next(child, (m) => 'ready' in m));
      }
      await Promise.all(ready);
      const answered = children.map((child) => next(child, (m) => 'answers' in m));
      for (const child of children) child.send({ key: 'charge-42', count: 100 });
      const answers = (await Promise.all(answered)).flatMap(
        (m) => (m as Extract<Message, { answers: unknown }>).answers,
      );
      expect(answers).toHaveLength(300);
      const created = answers.filter((a) => a.outcome === 'created');
      expect(created).toHaveLength(1);
      expect(answers.filter((a) => a.outcome === 'duplicate')).toHaveLength(299);
      expect(new Set(answers.map((a) => a.id))).toEqual(new Set([created[0]!.id]));
      const stats = (await observer.service.topics.stats()).find((t) => t.topic === topic)!;
      expect(Object.values(stats.counts).reduce((a, b) => a + b, 0)).toBe(1);
      const exits = children.map((child) => new Promise((resolve) => child.once('close', resolve)));
      for (const child of children) child.send('stop');
      await Promise.all(exits);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill();
      await observer.close();
    }
  }, 60_000);
});
