// Wall-clock steps of ±1 hour on the service host, under load. libfaketime (LD_PRELOAD) makes the server's
// wall clock follow a timestamp file that the test rewrites during the run (FAKETIME_NO_CACHE=1: re-read
// on every call). CLOCK_MONOTONIC is left alone (FAKETIME_DONT_FAKE_MONOTONIC=1), as a real step by an
// operator or NTP leaves it. The producer, the consumers and the checker use the real clock: a delivery
// before push time + delay is early, whatever the server believed.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFigure } from './chaos-figures.js';
import { CHAOS_ROOT, LONG, ServerProcess, sleep, startConsumer, startProducer } from './chaos-processes.js';
import { getJson, postJson, push, reserve } from './chaos-http.js';
import { checkHistory } from './history-checker.js';
import { ChaosRedis } from './chaos-redis.js';
import { historyOf } from './kill-loop.js';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

// SQLite: the service's steady clock. Redis: every instance borrows Redis's clock (RedisClock), whose
// offset must not be measured against the stepped wall clock either. Redis itself runs unfaked.
describe.each(['sqlite', 'redis'] as const)('clock steps of ±1 hour on the service host (%s)', (store) => {
  const redis = new ChaosRedis(store === 'sqlite' ? 7562 : 7563);
  const id = randomBytes(4).toString('hex');
  const sqlitePath = join(CHAOS_ROOT, `clock-${id}.db`);
  const timestampFile = join(CHAOS_ROOT, `faketime-${id}`);
  afterAll(async () => {
    await redis.kill();
    for (const f of [sqlitePath, `${sqlitePath}-wal`, `${sqlitePath}-shm`, timestampFile]) rmSync(f, { force: true });
  });

  it('fires nothing early, lapses no reservation, expires no ready job', async () => {
    if (!existsSync(LIBFAKETIME))
      throw new Error(`libfaketime is not installed (${LIBFAKETIME}): apt-get install -y faketime`);
    writeFileSync(timestampFile, '+0\n');
    if (store === 'redis') await redis.start();
    const server = new ServerProcess(
      store === 'sqlite'
        ? { port: 7560, nodeId: 'clock', store: 'sqlite', sqlitePath }
        : { port: 7561, nodeId: 'clock', store: 'redis', redisUrl: redis.url },
      {
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE: timestampFile,
        FAKETIME_NO_CACHE: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
    );
    await server.start();
    const topic = `clock.${id}`;
    const producer = startProducer({
      urls: [server.url],
      prefix: `c${id}`,
      topic,
      ratePerSec: 80,
      delayMaxMs: 1500,
      ttrMs: 5000,
      clientRunAt: true,
    });
    const consumer = startConsumer({ urls: [server.url], topic, loops: 3, clientClock: true });
    try {
      // jobs a +1 h step would fire at once if delayq trusted the wall clock
      const far: string[] = [];
      for (let i = 0; i < 20; i++) far.push((await push(server.url, { topic, delayMs: 600_000 + i * 60_000 })).id);
      // ready jobs with a 2-minute ttl, on a topic nobody consumes: a +1 h step would expire them all
      const idleTopic = `clock-idle.${id}`;
      const idle: string[] = [];
      for (let i = 0; i < 20; i++) idle.push((await push(server.url, { topic: idleTopic, ttlMs: 120_000 })).id);
      // reservations with a 60 s TTR held across the steps: a +1 h step would lapse them all
      const heldTopic = `clock-held.${id}`;
      for (let i = 0; i < 20; i++) await push(server.url, { topic: heldTopic });
      const held = await reserve(server.url, heldTopic, 20, 1000, 60_000);
      expect(held).toHaveLength(20);

      const phaseMs = LONG ? 5000 : 1000;
      const steps = ['+1h', '+0', '-1h', '+0'];
      const serverSkews: number[] = [];
      await sleep(phaseMs);
      for (const offset of steps) {
        writeFileSync(timestampFile, `${offset}\n`);
        await sleep(phaseMs);
        // the server's wall clock really moved: its Date header follows libfaketime
        const res = await fetch(`${server.url}/health`);
        serverSkews.push(Math.round((Date.parse(res.headers.get('date')!) - Date.now()) / 60_000) + 0); // + 0: no -0
      }
      await producer.stop();
      await sleep(3000); // the last pushes come due and are delivered
      await consumer.stop();

      const events = historyOf([producer, consumer]);
      const result = checkHistory(events, { endAt: Date.now(), graceMs: 2500, ttrSlackMs: 100 });
      const farDelivered = consumer.events.filter(
        (e) => e['type'] === 'deliver' && far.includes(e['id'] as string),
      ).length;
      const states = async (ids: string[]) =>
        Promise.all(ids.map(async (j) => (await getJson(`${server.url}/v1/jobs/${j}`)).json.job.state as string));
      const idleStates = await states(idle);
      const heldStates = await states(held.map((r) => r.job.id));
      const heldFinished = (
        await Promise.all(held.map((r) => postJson(`${server.url}/v1/jobs/${r.job.id}/finish`, { token: r.token })))
      ).filter((r) => r.status === 200).length;
      recordFigure(`clock-steps-${store}`, {
        steps: ['start +0', ...steps],
        serverWallSkewMinutesAfterEachStep: serverSkews,
        pushed: result.pushed,
        delivered: result.delivered,
        lost: result.lost.length,
        early: result.early.length,
        duplicates: result.duplicates.length,
        resurrected: result.resurrected.length,
        farFutureJobsFired: farDelivered,
        idleReadyJobsExpired: idleStates.filter((s) => s === 'expired').length,
        heldReservationsLapsed: heldStates.filter((s) => s !== 'reserved').length,
        heldFinishedWithTheirTokens: heldFinished,
      });
      expect(serverSkews).toEqual([60, 0, -60, 0]);
      expect(result.pushed).toBeGreaterThan(100);
      expect(result.early).toEqual([]);
      expect(result.lost).toEqual([]);
      expect(result.duplicates).toEqual([]); // no reservation lapsed early
      expect(farDelivered).toBe(0);
      expect(idleStates.every((s) => s === 'ready')).toBe(true);
      expect(heldStates.every((s) => s === 'reserved')).toBe(true);
      expect(heldFinished).toBe(20);
    } finally {
      await producer.stop();
      await consumer.stop();
      await server.stop();
      await redis.kill(); // started by this test: the leak check wants it gone with the test
    }
  }, 120_000);
});
