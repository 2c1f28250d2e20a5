// Several delayq instances on one Redis, one SIGKILLed while its consumers hold reservations and while it
// has delayed jobs coming due: the surviving instances redeliver the reserved work once its TTR lapses,
// and fire the delayed jobs on time. The figure is the takeover time.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from './chaos-figures.js';
import { ServerProcess } from './chaos-processes.js';
import { ChaosRedis } from './chaos-redis.js';
import { push, reserve, type WireReservation } from './chaos-http.js';

/** How closely the instances' RedisClocks agree (each samples Redis TIME and halves the round trip). */
const CLOCK_AGREEMENT_MS = 50;

describe('several instances on one Redis, one killed', () => {
  const redis = new ChaosRedis(7530);
  const servers = [7531, 7532, 7533].map(
    (port, i) =>
      new ServerProcess({
        port,
        nodeId: `inst-${i}`,
        store: 'redis',
        redisUrl: `redis://127.0.0.1:7530`,
        redisPrefix: 'takeover',
      }),
  );
  beforeAll(async () => {
    await redis.start();
    await Promise.all(servers.map((s) => s.start()));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await redis.kill();
  });

  it("takes over the killed instance's reserved work after TTR and fires its delayed jobs on time", async () => {
    const [victim, ...survivors] = servers as [ServerProcess, ...ServerProcess[]];
    const topic = `takeover.${randomBytes(3).toString('hex')}`;
    const ttrMs = 3000;
    const reservedCount = 40;
    const delayedCount = 40;
    for (let i = 0; i < reservedCount; i++)
      await push(victim.url, {
        id: `${topic}-r${i}`,
        topic,
        ttrMs,
        retry: { maxAttempts: 5, backoff: { type: 'fixed', delayMs: 0 } },
      });
    // the victim's consumers take everything that is ready
    const held: WireReservation[] = [];
    while (held.length < reservedCount) held.push(...(await reserve(victim.url, topic, 100, 1000)));
    const delayed = new Map<string, number>();
    for (let i = 0; i < delayedCount; i++) {
      const job = await push(victim.url, { id: `${topic}-d${i}`, topic, delayMs: 1500 + i * 25, ttrMs });
      delayed.set(job.id, job.runAt);
    }
    await victim.kill9();
    const killedAt = Date.now();

    // the survivors' consumers
    const deliveries = new Map<string, { at: number; receivedAt: number; via: string }>();
    const deadline = Date.now() + ttrMs + 15_000;
    await Promise.all(
      survivors.map(async (s) => {
        while (deliveries.size < reservedCount + delayedCount && Date.now() < deadline) {
          for (const r of await reserve(s.url, topic, 50, 1000)) {
            deliveries.set(r.job.id, { at: r.deadlineAt - r.job.ttrMs, receivedAt: Date.now(), via: s.spec.nodeId });
          }
        }
      }),
    );

    const late: number[] = [];
    const takeoverMs: number[] = [];
    for (const r of held) {
      const d = deliveries.get(r.job.id);
      expect(d, `reserved job ${r.job.id} taken over`).toBeDefined();
      // not before the TTR lapsed; instances agree on Redis's clock only to within the TIME sampling error
      expect(d!.at).toBeGreaterThanOrEqual(r.deadlineAt - CLOCK_AGREEMENT_MS);
      late.push(d!.at - r.deadlineAt);
      takeoverMs.push(d!.receivedAt - killedAt);
    }
    const delayedLate: number[] = [];
    for (const [id, runAt] of delayed) {
      const d = deliveries.get(id);
      expect(d, `delayed job ${id} fired by a survivor`).toBeDefined();
      expect(d!.at).toBeGreaterThanOrEqual(runAt - CLOCK_AGREEMENT_MS);
      delayedLate.push(d!.at - runAt);
    }
    const max = (xs: number[]) => Math.max(...xs);
    const figure = {
      instances: servers.length,
      ttrMs,
      reservedTakenOver: `${held.length}/${reservedCount}`,
      delayedFired: `${delayedLate.length}/${delayedCount}`,
      takeoverAfterKillMs: { min: Math.min(...takeoverMs), max: max(takeoverMs) },
      redeliveryAfterTtrLapseMs: { min: Math.min(...late), max: max(late) },
      delayedFiredLateMsMax: max(delayedLate),
      via: [...new Set([...deliveries.values()].map((d) => d.via))],
    };
    recordFigure('takeover-redis', figure);
    expect(max(late)).toBeLessThanOrEqual(1000); // the survivors' timers saw the TTR deadline
    expect(max(delayedLate)).toBeLessThanOrEqual(1000);
  }, 120_000);
});
