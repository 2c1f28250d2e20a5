/**
 * Groups across a wipe of Redis with a SQL journal: after a FLUSHALL the restore brings back each job with its
 * group and each reservation under its token, so the group's count is rebuilt with them. With groupConcurrency 1
 * and one job of the group out before the wipe, nobody gets its next job until that reservation ends; its
 * holder can still finish it with its token, and then the next comes, in the ready order. Topics' settings and
 * pauses (of topics and of groups) are journaled too and come back before the jobs. Redis is the test's own
 * server (never FLUSHALL on 6379).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalStatus } from '../../src/journal/journal.js';
import { http, waitFor } from '../helpers/http-server.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { startNode, type Node, type Shape } from './store-loss-harness.js';

const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
const shapes: Shape[] = [
  { name: 'redis + postgres', db: databases[0] },
  { name: 'redis + mariadb', db: databases[1] },
];
let redis: JournalRedis;
const nodes: Node[] = [];
beforeAll(async () => {
  redis = await startJournalRedis();
});
afterEach(async () => {
  while (nodes.length) await nodes.pop()!.close();
});
afterAll(async () => {
  await redis?.stop();
  for (const db of databases) await db.drop();
});

function journalStatus(n: Node): JournalStatus {
  const status = n.http.service.journal.status();
  if (!status.available) throw new Error('this node has no journal');
  return status;
}

async function wipeAndRestore(n: Node): Promise<void> {
  const before = journalStatus(n).lastRestore;
  await redis.flushAll();
  await waitFor(
    () => {
      const status = journalStatus(n);
      return status.inner === 'ok' && status.lastRestore !== null && status.lastRestore !== before;
    },
    'the restore after the wipe',
    15_000,
  );
}

describe('groups across a wipe of Redis with a journal', () => {
  for (const shape of shapes) {
    it(`on ${shape.name}: jobs keep their groups, the one out still counts, its holder finishes it`, async () => {
      const n = await startNode(shape, redis.url, {});
      nodes.push(n);
      const { service } = n.http;
      const topic = `grp-wipe-${Math.random().toString(36).slice(2, 8)}`;
      await service.topics.putSettings(topic, { groupConcurrency: 1 });
      await service.pushBatch(
        ['a1', 'a2', 'a3'].map((id, i) => ({ topic, id: `${topic}-${id}`, group: 'a', runAt: Date.now() - 1000 + i })),
      );
      const [out] = await service.reserve({ topics: [topic], count: 5, ttrMs: 60_000 });
      expect(out!.job.id).toBe(`${topic}-a1`);
      expect(await service.reserve({ topics: [topic], count: 5 })).toEqual([]);

      await wipeAndRestore(n);
      // The topic's settings came back with the restore (journaled-topic-state.ts): once this node follows them
      // again, the bound holds.
      expect(await service.topics.settings(topic)).toEqual({ groupConcurrency: 1 });
      await waitFor(() => service.topicSettings.of(topic).groupConcurrency === 1, 'the settings followed again', 5000);
      const restored = await http(n.url, 'GET', `/v1/jobs/${topic}-a2`);
      expect(restored.body.job).toMatchObject({ state: 'ready', group: 'a' });
      // The reservation came back under its token, so the group is still at its bound.
      expect(await service.reserve({ topics: [topic], count: 5 })).toEqual([]);
      const finished = await service.finish(out!.job.id, out!.token);
      expect(finished).toMatchObject({ state: 'finished', group: 'a' });
      const next = await service.reserve({ topics: [topic], count: 5 });
      expect(next.map((r) => r.job.id)).toEqual([`${topic}-a2`]);
    });
  }
});

describe("topics' settings and pauses across a wipe of Redis with a journal", () => {
  for (const shape of shapes) {
    it(`on ${shape.name}: settings, a topic's pause and a group's pause come back; a resumed or ended one does not`, async () => {
      const n = await startNode(shape, redis.url, {});
      nodes.push(n);
      const { service } = n.http;
      const t = `state-${Math.random().toString(36).slice(2, 8)}`;
      const settings = {
        rateLimit: { perSecond: 5, burst: 2 },
        groupConcurrency: 3,
        groupRateLimit: { perSecond: 1, burst: 1 },
      };
      await service.topics.putSettings(`${t}-rated`, settings);
      await service.topics.putSettings(`${t}-cleared`, { groupConcurrency: 2 });
      await service.topics.putSettings(`${t}-cleared`, {});
      await service.topics.pause(`${t}-held`);
      await service.topics.pause(`${t}-resumed`);
      await service.topics.resume(`${t}-resumed`);
      await service.topics.pause(`${t}-ended`, { delayMs: 1 });
      const groupPause = await service.topics.pauseGroup(`${t}-groups`, 'tenant-7', { delayMs: '1h' });

      await wipeAndRestore(n);
      expect(await service.topics.settings(`${t}-rated`)).toEqual(settings);
      expect(await service.topics.settings(`${t}-cleared`)).toEqual({});
      const pauses = await n.http.service.store.pauses.list();
      expect(pauses.get(`${t}-held`)).toBeNull();
      expect(pauses.get(`${t}-groups/tenant-7`)).toBe(groupPause.pausedUntil);
      expect(pauses.has(`${t}-resumed`)).toBe(false);
      expect(pauses.has(`${t}-ended`)).toBe(false);
    });
  }
});
