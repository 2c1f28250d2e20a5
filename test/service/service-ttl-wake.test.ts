import { afterEach, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../helpers/fake-clock.js';

const T0 = Date.UTC(2026, 0, 1);

describe('DelayqService: a ready job pushed with a ttl', () => {
  let service: DelayqService | undefined;
  afterEach(async () => {
    await service?.close();
  });

  it('wakes the timer for its expiry, so it expires on time with nobody reserving', async () => {
    const clock = new FakeClock(T0);
    service = new DelayqService({
      store: new SqliteStore({ path: ':memory:', nodeId: 'svc' }),
      nodeId: 'svc',
      clock,
      timer: { safetyWakeMs: 60_000 },
    });
    await service.start();
    // Let the first tick run and go to sleep for the safety interval.
    for (let i = 0; i < 20 && clock.nextTimerAt !== T0 + 60_000; i++) await new Promise((r) => setImmediate(r));
    expect(clock.nextTimerAt).toBe(T0 + 60_000);
    const { job } = await service.push({ topic: 'ttl', ttlMs: 200, body: {} });
    expect(job.state).toBe('ready');
    expect(clock.nextTimerAt).toBe(T0 + 200);
    clock.advance(200);
    let state = (await service.get(job.id)).state;
    for (let i = 0; i < 50 && state !== 'expired'; i++) {
      await new Promise((r) => setImmediate(r));
      state = (await service.get(job.id)).state;
    }
    expect(state).toBe('expired');
  });
});
