// A Sentinel failover that loses acknowledged writes is noticed: logged at error level, counted in /metrics and
// /ready (degraded), while one that loses nothing is not. The loss is real Redis behaviour: the replica is paused
// (SIGSTOP) and its link closed by the master (CLIENT KILL TYPE replica: what a network cut does; a paused replica
// alone still gets the writes, from its socket buffer) while the master acknowledges pushes, then the master is
// killed and the replica promoted without them.
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully } from '../../src/server/app.js';
import { FAILOVER_SAMPLE_INTERVAL_MS } from '../../src/store/redis/failover-watch.js';
import { http, waitFor } from '../helpers/http-server.js';
import { SentinelTopology } from '../helpers/redis-topologies.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** After a promotion, writes must reach the new master within this (the news, a reconnect, on a loaded host). */
const FOLLOW_BOUND_MS = 1500;

describe('a failover that loses acknowledged writes (Sentinel)', () => {
  const sentinel = new SentinelTopology([7615, 7616, 7617, 7618, 7619], 'dqloss');
  beforeAll(() => sentinel.start(), 90_000);
  afterAll(() => sentinel.stop());

  it('SENTINEL FAILOVER: the store follows the announced master at once, not when the old one is demoted', async () => {
    const config = loadConfig({
      env: {},
      overrides: { store: { kind: 'redis' }, redis: { url: sentinel.url, prefix: 'follow' } },
    });
    const runtime = createRuntime(config, { logger: pino({ level: 'silent' }) });
    await runtime.start();
    const app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const acked: { id: string; at: number }[] = [];
      let pushing = true;
      const pusher = (async () => {
        while (pushing) {
          const res = await http(url, 'POST', '/v1/jobs', { json: { topic: 'follow', delayMs: 600_000 } });
          if (res.status === 201) acked.push({ id: res.body.job.id as string, at: Date.now() });
          await sleep(10);
        }
      })();
      // the promotion's time, heard as the store hears it (polling redis-cli would block this process's loop)
      const watcher = new Redis({ host: '127.0.0.1', port: sentinel.sentinels[0]!.port });
      let promotedAt = 0;
      watcher.on('message', () => (promotedAt ||= Date.now()));
      await watcher.subscribe('+promoted-slave');
      await sleep(500);
      expect(sentinel.sentinels[0]!.cli('sentinel', 'failover', sentinel.masterName)).toContain('OK');
      await waitFor(async () => promotedAt > 0, 'the promotion', 30_000);
      await sleep(4000);
      pushing = false;
      await pusher;
      watcher.disconnect();
      await sentinel.waitHealthy();
      // a push acknowledged by the old master after the promotion is gone once it resynced from the new one
      const lostAt: number[] = [];
      for (const { id, at } of acked) if ((await http(url, 'GET', `/v1/jobs/${id}`)).status === 404) lostAt.push(at);
      const window = Math.max(promotedAt, ...lostAt) - promotedAt;
      // without following the sentinels, the old master takes writes until a sentinel demotes it, seconds later
      expect(window, `pushes lost until ${window} ms after the promotion`).toBeLessThan(FOLLOW_BOUND_MS);
      expect(acked.filter((a) => a.at > promotedAt + FOLLOW_BOUND_MS).length).toBeGreaterThan(10);
    } finally {
      await closeGracefully(app, runtime, 100);
    }
  }, 120_000);

  it('is logged, counted and shown in /ready; a failover that lost nothing is not', async () => {
    const lines: LogLine[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const prefix = `fl${Math.random().toString(36).slice(2, 8)}`;
    const config = loadConfig({
      env: {},
      overrides: { store: { kind: 'redis' }, redis: { url: sentinel.url, prefix } },
    });
    const runtime = createRuntime(config, { logger: pino({ level: 'info' }, stream) });
    await runtime.start();
    const app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const push = () => http(url, 'POST', '/v1/jobs', { json: { topic: 'loss', delayMs: 600_000 } });
    const ready = async () => (await http(url, 'GET', '/ready')).body;
    try {
      expect(await ready()).toMatchObject({ status: 'ok', storeWriteLosses: 0 });

      // 1. the master dies with its replica in sync: a failover, nothing lost, nothing reported
      for (let i = 0; i < 20; i++) expect((await push()).status).toBe(201);
      const first = sentinel.master();
      await waitFor(
        async () =>
          sentinel.replica().replication()['master_repl_offset'] === first.replication()['master_repl_offset'],
        'the replica in sync',
        10_000,
      );
      await first.kill9();
      await sentinel.waitMaster(sentinel.replica().port);
      await waitFor(async () => (await push()).status === 201, 'pushes served by the new master', 30_000);
      await first.start({ extra: ['--replicaof', '127.0.0.1', String(sentinel.masterPort())] });
      await sentinel.waitHealthy();
      await sleep(5 * FAILOVER_SAMPLE_INTERVAL_MS);
      expect(await ready()).toMatchObject({ status: 'ok', storeWriteLosses: 0 });

      // 2. the replica is cut off while the master acknowledges pushes, then the master dies: they are lost
      const [master, replica] = [sentinel.master(), sentinel.replica()];
      replica.pause();
      const lost: string[] = [];
      try {
        expect(master.cli('client', 'kill', 'type', 'replica').trim()).toBe('1');
        for (let i = 0; i < 30; i++) {
          const res = await push();
          expect(res.status).toBe(201);
          lost.push(res.body.job.id as string);
        }
        await sleep(3 * FAILOVER_SAMPLE_INTERVAL_MS); // sampled after their acknowledgment
        await master.kill9();
      } finally {
        replica.resume();
      }
      await sentinel.waitMaster(replica.port);
      await waitFor(async () => (await ready()).storeWriteLosses === 1, 'the loss to be noticed', 30_000);
      // it is a real loss: the acknowledged jobs are gone
      expect((await http(url, 'GET', `/v1/jobs/${lost[0]}`)).status).toBe(404);
      const shown = await ready();
      expect(shown.status).toBe('degraded');
      expect(shown.reason).toMatch(/a failover of 127\.0\.0\.1:\d+ at \d{4}-.* lost writes acknowledged since/);
      expect((await http(url, 'GET', '/metrics')).body).toMatch(/^delayq_store_write_losses_total 1$/m);
      const error = lines.find((l) => l.level === 50 && l.msg.includes('A FAILOVER LOST ACKNOWLEDGED WRITES'));
      const loss = error?.['storeWriteLoss'] as { shard: string; lostBytes: number; writesAtMost: number };
      expect(loss.shard).toBe(`127.0.0.1:${replica.port}`);
      expect(loss.lostBytes).toBeGreaterThan(0);
      // every lost push is among the writes counted, and the bound is not far above them
      expect(loss.writesAtMost).toBeGreaterThanOrEqual(lost.length);
      expect(loss.writesAtMost).toBeLessThan(lost.length + 200);
      await master.start({ extra: ['--replicaof', '127.0.0.1', String(replica.port)] });
      await sentinel.waitHealthy();
    } finally {
      await closeGracefully(app, runtime, 100);
    }
  }, 120_000);
});
