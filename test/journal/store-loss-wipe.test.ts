/**
 * A wipe (FLUSHALL) of Redis under running nodes, seen from the weaker side of each seam: the beanstalkd client
 * that holds a job number from before the wipe, the consumer that holds a reservation, the long-poll that waits
 * while the journal restores. Shapes: Redis alone, Redis + PostgreSQL, Redis + MariaDB; the front ends REST,
 * gRPC and beanstalkd. Redis is the test's own server (never FLUSHALL on 6379).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalStatus } from '../../src/journal/journal.js';
import { RawSession } from '../beanstalkd/raw-socket.js';
import { http, waitFor } from '../helpers/http-server.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import {
  FRONT_ENDS,
  openReserveStream,
  pushJob,
  reserveThrough,
  startNode,
  stateOf,
  type Node,
  type Shape,
} from './store-loss-harness.js';

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

async function node(shape: Shape, overrides: Record<string, unknown> = {}, prefix?: string): Promise<Node> {
  const started = await startNode(shape, redis.url, overrides, prefix);
  nodes.push(started);
  return started;
}

/**
 * FLUSHALL, then waits until the node noticed (Redis alone) or one of the nodes on its data restored from the
 * journal (the first to notice restores; the others find the marker back and have nothing to do).
 */
/** The journal's status; the nodes of these tests all have one (the Redis-only node is never asked). */
function journalStatus(n: Node): JournalStatus {
  const status = n.http.service.journal.status();
  if (!status.available) throw new Error('this node has no journal');
  return status;
}

async function wipe(n: Node, ...peers: Node[]): Promise<void> {
  const all = [n, ...peers];
  const service = n.http.service;
  const before = all.map((x) => (x.http.service.journal.available ? journalStatus(x).lastRestore : null));
  const resets = (await http(n.url, 'GET', '/ready')).body.storeResets as number;
  await redis.flushAll();
  if (!service.journal.available) {
    await waitFor(async () => (await http(n.url, 'GET', '/ready')).body.storeResets > resets, 'the reset', 10_000);
    return;
  }
  await waitFor(
    () =>
      all.some((x, i) => {
        const status = journalStatus(x);
        return status.inner === 'ok' && status.lastRestore !== null && status.lastRestore !== before[i];
      }),
    'the restore after the wipe',
    15_000,
  );
}

/** beanstalkd put: the job number it was given. */
async function put(s: RawSession, body: string): Promise<number> {
  const line = await s.ask(`put 0 0 60 ${body.length}\r\n${body}`);
  expect(line).toMatch(/^INSERTED \d+$/);
  return Number(line.split(' ')[1]);
}

for (const shape of shapes) {
  const journaled = shape.db !== undefined;

  describe(`a wipe on ${shape.name}: job numbers`, () => {
    it(
      journaled
        ? 'a number given before the wipe names the same job after it, and is never given to another'
        : 'a number given before the wipe is never given to another job (the job itself is gone)',
      async () => {
        const a = await node(shape);
        // A second instance on the same data: a client may come back through another process.
        const b = await node(shape, {}, a.prefix);
        const before = await RawSession.open(a.beanstalkdPort);
        await before.ask('use numbers');
        const first = await put(before, 'first');
        const firstId = await a.http.service.store.numbers.idOf(first);
        before.close();

        await wipe(a, b);
        if (journaled) await waitFor(async () => (await stateOf(b, firstId!)) === 'ready', 'the first job back');

        const after = await RawSession.open(b.beanstalkdPort);
        try {
          await after.ask('use numbers');
          const second = await put(after, 'second');
          expect(second).not.toBe(first);
          expect(second).toBeGreaterThan(first);
          expect(second).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
          const secondId = await b.http.service.store.numbers.idOf(second);
          if (journaled) {
            after.send(`peek ${first}\r\n`);
            const peeked = await after.withBody();
            expect(peeked.line).toBe(`FOUND ${first} 5`);
            expect(peeked.body.toString()).toBe('first');
            expect(await after.ask(`delete ${first}`)).toBe('DELETED');
            expect(await stateOf(b, firstId!)).not.toBe('ready');
          } else {
            expect(await after.ask(`peek ${first}`)).toBe('NOT_FOUND');
            expect(await after.ask(`delete ${first}`)).toBe('NOT_FOUND');
          }
          // the job put after the wipe is untouched and still has its own number
          expect(await stateOf(b, secondId!)).toBe('ready');
          after.send(`peek ${second}\r\n`);
          expect((await after.withBody()).body.toString()).toBe('second');
        } finally {
          after.close();
        }
      },
      60_000,
    );
  });

  if (!journaled) continue;

  describe(`a wipe on ${shape.name}: reservations`, () => {
    for (const frontEnd of FRONT_ENDS) {
      it(`a job reserved through ${frontEnd} before the wipe stays its holder's: nobody else gets it, the holder finishes it`, async () => {
        const n = await node(shape);
        const topic = `kept-${frontEnd}`;
        const id = await pushJob(n, topic);
        const holder = await reserveThrough(n, frontEnd, topic, 60_000);
        try {
          expect(holder.id).toBe(id);
          // the reservation reached the journal (it is written asynchronously, within a few ms)
          await waitFor(
            async () =>
              (await shape.db!.query<{ state: string }>(`SELECT state FROM delayq_jobs WHERE id = '${id}'`))[0]
                ?.state === 'reserved',
            'the reservation in the journal',
          );
          await wipe(n);
          expect(await stateOf(n, id)).toBe('reserved');
          // another consumer, through each front end, gets nothing
          const other = await http(n.url, 'POST', '/v1/reserve', { json: { topics: [topic], waitMs: 500 } });
          expect(other.body.reservations).toEqual([]);
          const stream = openReserveStream(n.grpc, topic, undefined, 600);
          await expect(stream.next()).rejects.toThrow(/timed out/);
          stream.close();
          const done = await holder.finish();
          expect(done.ok, done.answer).toBe(true);
          expect(await stateOf(n, id)).toBe('finished');
          const job = (await http(n.url, 'GET', `/v1/jobs/${id}`)).body.job;
          expect(job.attempts).toBe(1);
        } finally {
          holder.close();
        }
      }, 60_000);
    }
  });

  describe(`a wipe on ${shape.name}: long-polls`, () => {
    it('a long-poll waiting (REST, gRPC stream, beanstalkd reserve-with-timeout) while a restore brings jobs back is woken', async () => {
      // manual restore: the polls start while the store is known lost, before anything comes back
      const n = await node(shape, { journal: { restoreMode: 'manual' }, scheduler: { safetyWakeMs: 30_000 } });
      const ids = {
        rest: await pushJob(n, 'wake-rest'),
        grpc: await pushJob(n, 'wake-grpc'),
        beanstalkd: await pushJob(n, 'wake-beanstalkd'),
      };
      await redis.flushAll();
      await waitFor(() => journalStatus(n).inner === 'lost', 'the loss to be noticed', 10_000);
      const rest = http(n.url, 'POST', '/v1/reserve', { json: { topics: ['wake-rest'], waitMs: 20_000 } });
      const stream = openReserveStream(n.grpc, 'wake-grpc', undefined, 20_000);
      const session = await RawSession.open(n.beanstalkdPort);
      try {
        await session.ask('watch wake-beanstalkd');
        session.send('reserve-with-timeout 20\r\n');
        const reservedLine = session.line(20_000);
        await waitFor(() => n.http.service.waitingConsumers >= 3, 'three waiting consumers');
        const restoredAt = Date.now();
        expect((await http(n.url, 'POST', '/v1/restore', { json: {} })).status).toBe(200);
        const [got, streamed, reserved] = await Promise.all([rest, stream.next(), reservedLine]);
        expect(got.body.reservations.map((r: { job: { id: string } }) => r.job.id)).toEqual([ids.rest]);
        expect(streamed.job.id).toBe(ids.grpc);
        expect(reserved).toMatch(/^RESERVED \d+ /);
        // woken by the restore, not by a poll's own timeout
        expect(Date.now() - restoredAt).toBeLessThan(10_000);
      } finally {
        stream.close();
        session.close();
      }
    }, 60_000);
  });
}
