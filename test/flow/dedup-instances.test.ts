/**
 * The dedup window across instances: three delayq nodes on one store take 300 concurrent pushes of distinct ids
 * with one dedupKey. Exactly one job exists, and every push is answered with it.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import type { PushResponse } from '../../src/protocol/schemas.js';
import { shapeHarness } from '../helpers/store-shapes.js';

describe.each(['redis', 'redis+postgres', 'redis+mysql'] as const)(
  'the dedup window over three instances on one %s store',
  (shape) => {
    const harness = shapeHarness(shape, 'dedup');
    const clients: DelayqClient[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
      await harness.close();
    });
    afterAll(() => harness.cleanup());

    it('300 concurrent pushes of distinct ids with one key make exactly one job', async () => {
      const instances = await harness.instances(3);
      // Half the clients coalesce their pushes into batches: a batch holds many pushes of the key too.
      instances.forEach(({ url }, i) => clients.push(new DelayqClient({ url, coalescePushes: i === 0 })));
      const topic = `dedup-${Math.random().toString(36).slice(2, 8)}`;
      const answers: PushResponse[] = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          clients[i % 3]!.push({ topic, id: `${topic}-${i}`, body: i, dedupKey: 'pay-1', dedupWindowMs: '10m' }),
        ),
      );
      const created = answers.filter((a) => a.outcome === 'created');
      expect(created).toHaveLength(1);
      expect(answers.filter((a) => a.outcome === 'duplicate')).toHaveLength(299);
      expect(new Set(answers.map((a) => a.job.id))).toEqual(new Set([created[0]!.job.id]));
      const counts = (await clients[1]!.stats()).find((t) => t.topic === topic)!.counts;
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
    });
  },
);
