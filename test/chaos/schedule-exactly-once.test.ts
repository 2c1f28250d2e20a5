import { afterAll, describe, expect, it } from 'vitest';
import { RedisScheduleStore } from '../../src/store/redis/redis-schedule-store.js';
import { normalizeSchedule } from '../../src/schedules/schedule-input.js';
import { createRedisClient, parseRedisUrl } from '../../src/store/redis/connection.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { Job } from '../../src/core/job.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { ChaosChild, LONG, sleep, waitUntil } from './chaos-processes.js';
import type { ScheduleNodeSpec } from './schedule-node.js';

/**
 * Three delayq nodes on one Redis run one every-second schedule; one node is SIGKILLed and restarted
 * (repeatedly in the long form). Every tick must become exactly one job: none missing, none doubled.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const RUN_MS = LONG ? 5 * 60_000 : Number(process.env['SCHEDULE_RUN_MS'] ?? 40_000);
const prefixes = prefixPool('sched');
const children = new Set<ChaosChild>();

afterAll(async () => {
  for (const child of children) await child.kill9();
  await prefixes.sweep();
});

async function startNode(spec: ScheduleNodeSpec): Promise<ChaosChild> {
  const child = new ChaosChild('schedule-node', spec);
  children.add(child);
  await waitUntil(
    `schedule node ${spec.nodeId}`,
    () => {
      if (!child.alive) throw new Error(`node ${spec.nodeId} exited: ${child.stderr}`);
      return child.lines.includes('READY');
    },
    60_000,
  );
  return child;
}

describe('one every-second schedule on three nodes', () => {
  it(
    `fires every tick exactly once for ${RUN_MS / 1000} s while a node is killed and restarted`,
    async () => {
      const prefix = prefixes.next();
      const specs = [1, 2, 3].map((n) => ({ nodeId: `sched-${n}`, redisUrl: REDIS_URL, redisPrefix: prefix }));
      const nodes = await Promise.all(specs.map(startNode));

      const checker = new RedisStore({ url: REDIS_URL, prefix, nodeId: 'checker', partitions: 1 });
      await checker.open();
      const schedules = new RedisScheduleStore({
        connect: () =>
          createRedisClient(parseRedisUrl(REDIS_URL).connection, { commandTimeoutMs: 2000, connectTimeoutMs: 2000 }),
        prefix,
      });
      await schedules.open();
      const now = checker.clock.now();
      const startAt = Math.ceil(now / 1000) * 1000 + 3000;
      const endAt = startAt + RUN_MS - 1000;
      await schedules.put(
        normalizeSchedule(
          'beat',
          { topic: 'beat', everyMs: 1000, startAt, endAt, missed: 'each', job: { body: 'b' } },
          now,
        ),
        now,
      );

      // Kill node 2 at a third of the run and start it again at half; the long form keeps doing it.
      const victim = 1;
      await sleep(startAt - now + RUN_MS / 3);
      do {
        await nodes[victim]!.kill9();
        await sleep(LONG ? 7_000 : RUN_MS / 6);
        nodes[victim] = await startNode(specs[victim]!);
        if (LONG) await sleep(15_000);
      } while (LONG && checker.clock.now() < endAt - 30_000);

      await waitUntil(
        'the last tick',
        async () => (await checker.get(`beat~${endAt}`)) !== null,
        RUN_MS + 30_000,
        200,
      ).catch(async (err: unknown) => {
        const record = await schedules.get('beat');
        throw new Error(
          `${(err as Error).message}; schedule ${JSON.stringify(record)}; ${nodes.map((n) => n.stderr).join('\n')}`,
        );
      });
      await sleep(2500); // a doubled or late tick would land by now
      const jobs: Job[] = [];
      let cursor: string | undefined;
      do {
        const page = await checker.list({ topic: 'beat', limit: 1000, cursor });
        jobs.push(...page.jobs);
        cursor = page.next ?? undefined;
      } while (cursor);

      const expected = Array.from({ length: (endAt - startAt) / 1000 + 1 }, (_, i) => `beat~${startAt + i * 1000}`);
      expect(jobs.map((j) => j.id).sort()).toEqual(expected.sort());
      expect(jobs.every((j) => j.runAt === Number(j.id.split('~')[1]))).toBe(true);
      const lateness = jobs.map((j) => j.createdAt - j.runAt).sort((a, b) => a - b);
      const pushedAhead = lateness.filter((l) => l <= 0).length / jobs.length;
      console.log(
        `schedule exactly-once: ${jobs.length} ticks over ${RUN_MS / 1000} s, ${(pushedAhead * 100).toFixed(1)} % pushed ahead, worst push ${lateness.at(-1)} ms after its tick`,
      );
      expect(pushedAhead).toBeGreaterThan(0.9);
      const record = await schedules.get('beat');
      expect(record).toMatchObject({ fired: expected.length, lastFiredAt: endAt });

      for (const node of nodes) await node.stop();
      await schedules.close();
      await checker.close();
    },
    RUN_MS + 180_000,
  );
});
