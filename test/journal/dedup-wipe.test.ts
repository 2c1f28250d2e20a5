/**
 * The dedup window across a restart and a wipe. A claim lives in the store beside the jobs: a restarted node
 * (SQLite file, Redis) still answers the first job. With a SQL journal the claims are the journal's, so a
 * FLUSHALL of Redis keeps them, for jobs the restore brings back and for jobs only the journal holds (beyond
 * its load horizon). Redis is the test's own server (never FLUSHALL on 6379).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalStatus } from '../../src/journal/journal.js';
import { http, startServer, waitFor } from '../helpers/http-server.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { startNode, type Node, type Shape } from './store-loss-harness.js';

const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
const shapes: Shape[] = [
  { name: 'redis', db: undefined },
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

async function node(shape: Shape, prefix?: string): Promise<Node> {
  const started = await startNode(shape, redis.url, {}, prefix);
  nodes.push(started);
  return started;
}

const HOUR = 3_600_000;
const topic = () => `dedup-${Math.random().toString(36).slice(2, 8)}`;

/** A push with a dedup key (a day's window); the answer's outcome and job id. */
async function pushKeyed(n: Node, t: string, key: string, delayMs = 0): Promise<{ outcome: string; id: string }> {
  const res = await http(n.url, 'POST', '/v1/jobs', {
    json: { topic: t, body: { key }, delayMs, dedupKey: key, dedupWindowMs: '1d' },
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`push answered ${res.status}`);
  return { outcome: res.body.outcome as string, id: res.body.job.id as string };
}

function journalStatus(n: Node): JournalStatus {
  const status = n.http.service.journal.status();
  if (!status.available) throw new Error('this node has no journal');
  return status;
}

describe('the dedup window across a restart', () => {
  for (const shape of shapes) {
    it(`holds when the node on ${shape.name} restarts`, async () => {
      const t = topic();
      const a = await node(shape);
      const first = await pushKeyed(a, t, 'k');
      await nodes.pop()!.close();
      const b = await node(shape, a.prefix);
      expect(await pushKeyed(b, t, 'k')).toEqual({ outcome: 'duplicate', id: first.id });
    });
  }

  it('holds when the embedded SQLite node restarts on its file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dq-dedup-'));
    try {
      const overrides = { sqlite: { path: join(dir, 'delayq.db') } };
      const a = await startServer({ overrides });
      const json = { topic: 'dedup-sqlite', dedupKey: 'k', dedupWindowMs: '1d' };
      const first = await http(a.url, 'POST', '/v1/jobs', { json });
      await a.close();
      const b = await startServer({ overrides });
      const again = await http(b.url, 'POST', '/v1/jobs', { json });
      await b.close();
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ outcome: 'duplicate', job: { id: first.body.job.id } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the dedup window across a wipe of Redis with a journal', () => {
  for (const shape of shapes.filter((s) => s.db)) {
    it(`holds on ${shape.name}: for a restored job and for one only the journal holds`, async () => {
      const t = topic();
      const a = await node(shape);
      const soon = await pushKeyed(a, t, 'soon', 1000);
      const far = await pushKeyed(a, t, 'far', 2 * 24 * HOUR);
      expect([soon.outcome, far.outcome]).toEqual(['created', 'created']);
      const before = journalStatus(a).lastRestore;
      await redis.flushAll();
      await waitFor(
        () => {
          const status = journalStatus(a);
          return status.inner === 'ok' && status.lastRestore !== null && status.lastRestore !== before;
        },
        'the restore after the wipe',
        15_000,
      );
      expect(await pushKeyed(a, t, 'soon')).toEqual({ outcome: 'duplicate', id: soon.id });
      expect(await pushKeyed(a, t, 'far')).toEqual({ outcome: 'duplicate', id: far.id });
      const listed = await http(a.url, 'GET', `/v1/jobs?topic=${t}`);
      expect((listed.body.jobs as { id: string }[]).map((j) => j.id).sort()).toEqual([soon.id, far.id].sort());
    });
  }
});
