import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBindingStore } from '../../src/store/redis/redis-binding-store.js';
import type { BindingStore } from '../../src/store/binding-store.js';
import { parseSinkConfig, type SinkConfig } from '../../src/delivery/sink-config.js';
import { publicBinding, SinkBindings } from '../../src/delivery/sink-bindings.js';
import { SqliteBindingStore } from '../../src/store/sqlite/sqlite-binding-store.js';
import { uniqueName, waitFor } from './support/harness.js';
import { requireServer } from './support/local-server.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-bindings-'));
const redisPrefixes: string[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const redis = new Redis('redis://127.0.0.1:6379');
  for (const prefix of redisPrefixes) await redis.del(`${prefix}{sink-routes}`, `${prefix}{sink-routes}:version`);
  redis.disconnect();
});
beforeAll(() => requireServer('Redis', 6379));

const hook = (n: number) =>
  parseSinkConfig({ type: 'webhook', url: `https://hooks.example/${n}`, secret: 'sixteen-chars-secret!' });

/** Two binding stores over the same data, as two delayq instances would have. */
const kinds: [string, () => [BindingStore<SinkConfig>, BindingStore<SinkConfig>]][] = [
  [
    'SqliteBindingStore (one file, two connections)',
    () => {
      const path = join(dir, `${uniqueName('bindings')}.db`);
      return [new SqliteBindingStore({ path }), new SqliteBindingStore({ path })];
    },
  ],
  [
    'RedisBindingStore (one hash, two clients)',
    () => {
      const prefix = `${uniqueName('t')}:`;
      redisPrefixes.push(prefix);
      return [
        new RedisBindingStore({ url: 'redis://127.0.0.1:6379', prefix }),
        new RedisBindingStore({ url: 'redis://127.0.0.1:6379', prefix }),
      ];
    },
  ],
];

// What every binding store must do is the BindingStore contract (src/testing/binding-store.contract.ts,
// run by test/store/); here, SinkBindings over each of them.
describe.each(kinds)('SinkBindings over %s', (_name, make) => {
  it('lets a second instance see binding changes on its next refresh (shared bindings)', async () => {
    const [storeA, storeB] = make();
    const a = new SinkBindings({ store: storeA, refreshIntervalMs: 50 });
    const b = new SinkBindings({ store: storeB, refreshIntervalMs: 50 });
    await a.start();
    await b.start();
    const heard: [string, string | null][] = [];
    b.subscribe((topic, binding) => heard.push([topic, binding ? binding.sink.type : null]));
    try {
      await a.setBinding('orders', { type: 'webhook', url: 'https://hooks.example/x' });
      await waitFor('instance b to see the binding', () => b.bindings().length === 1);
      expect(b.bindings()[0]).toMatchObject({ topic: 'orders', sink: { type: 'webhook', concurrency: 8 } });
      await a.setBinding('orders', { type: 'nats', servers: ['nats://127.0.0.1:4222'] });
      await waitFor('instance b to see the change', () => b.bindings()[0]?.sink.type === 'nats');
      await a.deleteBinding('orders');
      await waitFor('instance b to see the deletion', () => b.bindings().length === 0);
      expect(heard).toEqual([
        ['orders', 'webhook'],
        ['orders', 'nats'],
        ['orders', null],
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('SinkBindings', () => {
  it('refuses a bad topic or sink config with the field named, and stores nothing', async () => {
    const bindings = new SinkBindings({ store: new SqliteBindingStore({ path: ':memory:' }) });
    await bindings.start();
    try {
      await expect(
        bindings.setBinding('bad topic!', { type: 'webhook', url: 'https://x.example' }),
      ).rejects.toMatchObject({
        code: 'E_VALIDATION',
        field: 'topic',
      });
      await expect(bindings.setBinding('orders', { type: 'rabbitmq', url: 'http://nope' })).rejects.toMatchObject({
        code: 'E_VALIDATION',
        field: 'sink.url',
      });
      await expect(bindings.setBinding('orders', { type: 'nats', servers: [] })).rejects.toMatchObject({
        field: 'sink.servers',
      });
      expect(await bindings.listBindings()).toEqual([]);
    } finally {
      await bindings.close();
    }
  });

  it('masks secrets and passwords when a binding is shown', () => {
    const shown = publicBinding({
      topic: 'orders',
      updatedAt: 1,
      sink: parseSinkConfig({ type: 'rabbitmq', url: 'amqp://user:hunter2@127.0.0.1:5672' }),
    });
    expect(JSON.stringify(shown)).not.toContain('hunter2');
    const hookShown = publicBinding({ topic: 'o', updatedAt: 1, sink: hook(1) });
    expect(JSON.stringify(hookShown)).not.toContain('sixteen-chars-secret!');
  });
});
