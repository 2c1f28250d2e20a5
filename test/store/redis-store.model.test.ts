import { afterAll } from 'vitest';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { storeModelTest } from './store.model.js';

// The state-machine model on the Redis store (shared Redis 6379, a random key prefix per run).
const prefixes = prefixPool('model');
// DELAYQ_MODEL_RUNS=N for a longer search (RELIABILITY.md records one).
const runs = Number(process.env['DELAYQ_MODEL_RUNS'] ?? 60);
afterAll(() => prefixes.sweep());

// With several partitions RedisStore orders reservations within a partition only (documented at
// RedisStore.reserve), so that variant checks "ready jobs, in order among themselves" instead of the global order.
storeModelTest(
  'redis standalone (4 partitions)',
  () => new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), nodeId: 'model', partitions: 4 }),
  runs,
  { strictOrder: false, timeoutMs: 120_000 + runs * 1000 },
);
storeModelTest(
  'redis standalone (1 partition)',
  // The model promotes every due job: this store leaves none to consumers (RedisStoreOptions).
  () =>
    new RedisStore({
      url: 'redis://127.0.0.1:6379',
      prefix: prefixes.next(),
      nodeId: 'model',
      partitions: 1,
      leaveDueToConsumers: false,
    }),
  Math.ceil(runs / 2),
  { timeoutMs: 120_000 + runs * 1000 },
);
