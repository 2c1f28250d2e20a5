/**
 * A real Sentinel failover that loses acknowledged writes, with the PostgreSQL journal. The loss is made as in
 * test/store/redis-failover-loss.test.ts: the replica is paused and its link closed by the master while the master
 * acknowledges a reserve of a replicated job, a push and its reserve, and a push; then the master is killed and the
 * replica promoted without them. The journal keeps each reservation for its holder (nobody else gets the job, the
 * holder finishes it) and brings the lost push back soon after the write loss is noticed, not a settle time later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILOVER_SAMPLE_INTERVAL_MS } from '../../src/store/redis/failover-watch.js';
import { http, waitFor } from '../helpers/http-server.js';
import { postgresJournalDatabase } from '../helpers/journal-databases.js';
import { SentinelTopology } from '../helpers/redis-topologies.js';
import type { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { pushJob, reserveThrough, startNode, type Holder } from './store-loss-harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const db = await postgresJournalDatabase();

/** The lost push is back within this of the loss being noticed (the reconciliation's settle is 10 s). */
const BACK_WITHIN_MS = 5000;

describe('a Sentinel failover that lost writes, with the PostgreSQL journal', () => {
  const sentinel = new SentinelTopology([7670, 7671, 7672, 7673, 7674], 'dqkept');
  beforeAll(() => sentinel.start(), 90_000);
  afterAll(async () => {
    await sentinel.stop();
    await db.drop();
  });

  it('keeps the reservations it lost for their holders and brings its lost push back promptly', async () => {
    const node = await startNode({ name: 'sentinel + postgres', db }, sentinel.url);
    const journaled = async (id: string, state: string) =>
      (await db.query<{ state: string }>(`SELECT state FROM delayq_jobs WHERE id = '${id}'`))[0]?.state === state;
    try {
      const replicated = await pushJob(node, 'kept-a');
      const first = sentinel.master();
      await waitFor(
        async () =>
          sentinel.replica().replication()['master_repl_offset'] === first.replication()['master_repl_offset'],
        'the replica in sync',
        10_000,
      );
      const [master, replica] = [sentinel.master(), sentinel.replica()];
      replica.pause();
      let a: Holder, b: Holder, lostPush: string;
      try {
        expect(master.cli('client', 'kill', 'type', 'replica').trim()).toBe('1');
        a = await reserveThrough(node, 'rest', 'kept-a', 60_000); // its reserve is lost
        const pushed = await pushJob(node, 'kept-b');
        b = await reserveThrough(node, 'rest', 'kept-b', 60_000); // its push and reserve are lost
        expect(b.id).toBe(pushed);
        lostPush = await pushJob(node, 'kept-c');
        await waitFor(
          async () => (await journaled(a.id, 'reserved')) && (await journaled(b.id, 'reserved')),
          'journaled',
        );
        await sleep(3 * FAILOVER_SAMPLE_INTERVAL_MS); // sampled after their acknowledgment
        await master.kill9();
      } finally {
        replica.resume();
      }
      expect(a.id).toBe(replicated);
      await sentinel.waitMaster(replica.port);
      await waitFor(
        async () => (await http(node.url, 'GET', '/ready')).body.storeWriteLosses === 1,
        'the loss',
        30_000,
      );
      const noticedAt = Date.now();

      // another consumer gets neither reserved job
      const other = await http(node.url, 'POST', '/v1/reserve', {
        json: { topics: ['kept-a', 'kept-b'], waitMs: 1000 },
      });
      expect(other.status).toBe(200);
      expect(other.body.reservations).toEqual([]);
      // their holders finish them
      const doneA = await a.finish();
      expect(doneA.ok, doneA.answer).toBe(true);
      const doneB = await b.finish();
      expect(doneB.ok, doneB.answer).toBe(true);
      expect((await http(node.url, 'GET', `/v1/jobs/${a.id}`)).body.job).toMatchObject({
        state: 'finished',
        attempts: 1,
      });

      // the push the failover lost is back, soon after the loss was noticed
      // (the REST answer would show the journal's copy: the store itself is asked)
      const inner = (node.http.service.store as JournaledStore).inner;
      await waitFor(async () => (await inner.get(lostPush))?.state === 'ready', 'the lost push back', 20_000);
      expect(Date.now() - noticedAt).toBeLessThan(BACK_WITHIN_MS);

      await master.start({ extra: ['--replicaof', '127.0.0.1', String(replica.port)] });
      await sentinel.waitHealthy();
    } finally {
      await node.close();
    }
  }, 120_000);
});
