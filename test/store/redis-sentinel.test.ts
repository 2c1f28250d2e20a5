import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDelayqError } from '../../src/core/errors.js';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { currentMasterPort, startSentinels, waitFor, type SentinelSet } from '../helpers/redis-servers.js';
import { redisReadCost } from '../helpers/redis-read-cost.js';
import { storeContract } from '../../src/testing/store-contract/store.contract.js';

// Master 7010, replica 7011, sentinels 7020–7022: the store finds the master through Sentinel.
let set: SentinelSet;
beforeAll(async () => {
  set = await startSentinels(7010, 7011, [7020, 7021, 7022]);
}, 60_000);
afterAll(async () => {
  await set.stopAll();
});

const make = () =>
  new RedisStore({ url: set.url, prefix: `s${Math.random().toString(36).slice(2, 8)}`, nodeId: 'sentinel-node' });

storeContract('redis through sentinel', make, {
  readCost: (store) =>
    redisReadCost((store as RedisStore).prefix, currentMasterPort(set.sentinels[0]!.port, set.masterName)),
});

describe('RedisStore through Sentinel', () => {
  it('keeps serving after a failover during load, without a restart', async () => {
    const store = make();
    const service = new DelayqService({ store, clock: store.clock, timer: { safetyWakeMs: 200 } });
    await service.start();
    const topic = 'failover';
    const acked = new Map<string, number>(); // id → when the push was acknowledged
    const delivered = new Set<string>();
    const errors: string[] = [];
    let running = true;
    let consuming = true;
    const lastMessages: string[] = []; // for the failure message if the client never comes back
    const note = (err: unknown): void => {
      errors.push(isDelayqError(err) ? err.code : `crash: ${String(err)}`);
      lastMessages.push(
        `${new Date().toISOString()} ${String(err)}${isDelayqError(err) && err.cause ? ` (${String(err.cause)})` : ''}`,
      );
      if (lastMessages.length > 8) lastMessages.shift();
    };
    const producer = (async () => {
      while (running) {
        try {
          const { job } = await service.push({
            topic,
            delayMs: Math.floor(Math.random() * 100),
            body: { at: Date.now() },
          });
          acked.set(job.id, Date.now());
        } catch (err) {
          note(err);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    })();
    const consumer = (async () => {
      while (consuming) {
        try {
          const got = await service.reserve({ topics: [topic], count: 20, waitMs: 200 });
          for (const r of got) {
            await service.finish(r.job.id, r.token);
            delivered.add(r.job.id);
          }
        } catch (err) {
          note(err);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    })();

    await waitFor('some load before the failover', async () => delivered.size > 200);
    await set.master.stop();
    await waitFor(
      'Sentinel to promote the replica',
      async () => currentMasterPort(set.sentinels[0]!.port, set.masterName) === set.replica.port,
      20_000,
      100,
    );
    const failedOverAt = Date.now();
    await waitFor(
      'pushes to succeed again after the failover',
      async () => [...acked.values()].some((at) => at > failedOverAt + 200),
      20_000,
    ).catch((err: unknown) => {
      // A rare failure under a loaded machine: say what the client saw, to tell a slow Sentinel from a stuck client.
      const status = (store as unknown as { conn?: { status?: string } }).conn?.status;
      throw new Error(`${String(err)}; client status ${status}; last errors:\n${lastMessages.join('\n')}`);
    });
    const pushedAfter = (): number => [...acked.values()].filter((at) => at > failedOverAt + 200).length;
    await waitFor('50 pushes acknowledged after the failover', async () => pushedAfter() >= 50, 30_000);
    running = false;
    await producer;
    const afterFailover = [...acked].filter(([, at]) => at > failedOverAt + 200).map(([id]) => id);
    await waitFor(
      'every job pushed after the failover to be delivered',
      async () => afterFailover.every((id) => delivered.has(id)),
      20_000,
    );
    consuming = false;
    await consumer;

    expect(afterFailover.length).toBeGreaterThan(50);
    expect(errors.filter((e) => e !== 'E_STORE_UNAVAILABLE')).toEqual([]);
    const job = await service.get(afterFailover[0]!);
    expect(job.state).toBe('finished');
    await service.close();
  }, 90_000);
});
