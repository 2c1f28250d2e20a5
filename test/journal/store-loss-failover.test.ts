/**
 * A Redis failover loses the writes its old master acknowledged in its last moments: the data set goes back to
 * an earlier point. Here that is done to the test's own redis-server exactly (every key of the node's prefix
 * DUMPed before, RESTOREd after), so the reservation, or the push and the reservation, are gone from Redis while
 * the journal has them. Seen from the holder of the reservation and from another consumer, through REST, gRPC
 * and beanstalkd, on Redis + PostgreSQL and Redis + MariaDB. (A real Sentinel failover:
 * store-loss-sentinel.test.ts.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { http, waitFor } from '../helpers/http-server.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import {
  FRONT_ENDS,
  pushJob,
  reserveThrough,
  snapshot,
  startNode,
  stateOf,
  type Node,
  type Shape,
} from './store-loss-harness.js';

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

const innerOf = (n: Node) => (n.http.service.store as JournaledStore).inner;

async function node(shape: Shape): Promise<Node> {
  const started = await startNode(shape, redis.url);
  nodes.push(started);
  return started;
}

/** Waits until the journal has the job reserved (the reservation is journaled within a few ms). */
async function journaledReserved(shape: Shape, id: string): Promise<void> {
  await waitFor(
    async () =>
      (await shape.db!.query<{ state: string }>(`SELECT state FROM delayq_jobs WHERE id = '${id}'`))[0]?.state ===
      'reserved',
    'the reservation in the journal',
  );
}

for (const shape of shapes) {
  describe(`a failover that lost a reservation (${shape.name})`, () => {
    for (const frontEnd of FRONT_ENDS) {
      it(`reserved through ${frontEnd}: nobody else gets the job, its attempts stay, the holder finishes it`, async () => {
        const n = await node(shape);
        const topic = `lost-reserve-${frontEnd}`;
        const id = await pushJob(n, topic);
        const before = await snapshot(redis.url, n.prefix);
        const holder = await reserveThrough(n, frontEnd, topic, 60_000);
        try {
          await journaledReserved(shape, id);
          await before.rollback();
          expect(await innerOf(n).get(id)).toMatchObject({ state: 'ready', attempts: 0 });
          // another consumer reserves the topic: the job goes back to its holder, not to this consumer
          const other = await http(n.url, 'POST', '/v1/reserve', { json: { topics: [topic], waitMs: 300 } });
          expect(other.body.reservations).toEqual([]);
          expect((await http(n.url, 'GET', `/v1/jobs/${id}`)).body.job).toMatchObject({
            state: 'reserved',
            attempts: 1,
          });
          const done = await holder.finish();
          expect(done.ok, done.answer).toBe(true);
          expect(await stateOf(n, id)).toBe('finished');
        } finally {
          holder.close();
        }
      }, 60_000);

      it(`pushed and reserved through ${frontEnd}, both lost: the holder's finish succeeds`, async () => {
        const n = await node(shape);
        const topic = `lost-push-${frontEnd}`;
        const before = await snapshot(redis.url, n.prefix);
        const id = await pushJob(n, topic);
        const holder = await reserveThrough(n, frontEnd, topic, 60_000);
        try {
          await journaledReserved(shape, id);
          await before.rollback();
          expect(await innerOf(n).get(id)).toBeNull();
          const done = await holder.finish();
          expect(done.ok, done.answer).toBe(true);
          expect(await stateOf(n, id)).toBe('finished');
        } finally {
          holder.close();
        }
      }, 60_000);
    }

    it('the holder settles first (REST touch, then finish): the lost reservation is put back for it', async () => {
      const n = await node(shape);
      const id = await pushJob(n, 'lost-touch');
      const before = await snapshot(redis.url, n.prefix);
      const holder = await reserveThrough(n, 'rest', 'lost-touch', 60_000);
      await journaledReserved(shape, id);
      await before.rollback();
      const touched = await http(n.url, 'POST', `/v1/jobs/${id}/touch`, { json: { token: holder.token } });
      expect(touched.status, JSON.stringify(touched.body)).toBe(200);
      expect(touched.body.job).toMatchObject({ state: 'reserved', attempts: 1 });
      expect((await holder.finish()).ok).toBe(true);
    }, 60_000);

    it('a stale token is refused without claiming the TTR lapsed', async () => {
      const n = await node(shape);
      const id = await pushJob(n, 'stale');
      await reserveThrough(n, 'rest', 'stale', 60_000);
      const refused = await http(n.url, 'POST', `/v1/jobs/${id}/finish`, { json: { token: 'f'.repeat(24) } });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('E_TOKEN_MISMATCH');
      expect(refused.body.error.message).not.toMatch(/TTR lapsed/);
    }, 60_000);
  });
}
