/**
 * The claim-first protocol of the dedup window (store/dedup-claims.ts), at its seam: a claim whose job is not
 * stored. Its claimant may be a round trip from pushing it (a later push waits and answers it), or gone (a
 * process that stopped between claim and create: a later push takes the claim over, once).
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { EpochMs } from '../../src/core/clock.js';
import type { Job, NewJob } from '../../src/core/job.js';
import { pushedJob } from '../../src/core/job.js';
import { pushClaiming, type DedupClaims, type HeldClaim } from '../../src/store/dedup-claims.js';
import type { PushResult } from '../../src/store/store.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const T0 = Date.UTC(2026, 0, 1);
const WINDOW = 60_000;
const keyed = (o: Partial<NewJob> = {}): NewJob => aJob({ topic: 'pay', dedup: { key: 'k', windowMs: WINDOW }, ...o });

/** Claims in memory, one at a time as a script or a conditional statement would take them. */
class MemoryClaims implements DedupClaims {
  readonly claims = new Map<string, HeldClaim & { until: EpochMs }>();
  async claim(job: NewJob, now: EpochMs, takeOverFrom?: string): Promise<HeldClaim | null> {
    const held = this.claims.get(job.dedup!.key);
    if (held && held.until > now && held.jobId !== takeOverFrom) return held;
    this.claims.set(job.dedup!.key, { jobId: job.id, claimedAt: now, until: now + job.dedup!.windowMs });
    return null;
  }
  async release(job: NewJob): Promise<void> {
    if (this.claims.get(job.dedup!.key)?.jobId === job.id) this.claims.delete(job.dedup!.key);
  }
}

function memoryStore() {
  const jobs = new Map<string, Job>();
  const push = async (batch: readonly NewJob[], now: EpochMs): Promise<PushResult[]> =>
    batch.map((j) => {
      const held = jobs.get(j.id);
      if (held) return { created: false, job: held };
      jobs.set(j.id, pushedJob(j, now));
      return { created: true, job: jobs.get(j.id)! };
    });
  return { jobs, push, find: async (id: string) => jobs.get(id) ?? null };
}

describe('the claim-first protocol of the dedup window', () => {
  it('waits for a claimed job on its way, and answers it', async () => {
    const claims = new MemoryClaims();
    const store = memoryStore();
    const first = keyed();
    await claims.claim(first, T0); // the claimant is between its two steps
    setTimeout(() => void store.push([first], T0), 50);
    const [answer] = await pushClaiming(claims, [keyed()], T0 + 1, (b) => store.push(b, T0 + 1), store.find);
    expect(answer).toMatchObject({ created: false, duplicate: true, job: { id: first.id } });
    expect(store.jobs.size).toBe(1);
  });

  it('takes over a claim whose claimant stopped before creating its job: two pushes make one job', async () => {
    const claims = new MemoryClaims();
    const store = memoryStore();
    await claims.claim(keyed({ id: 'ghost' }), T0);
    const at = T0 + 20_000; // past the settling time
    const [a, b] = await Promise.all([
      pushClaiming(claims, [keyed()], at, (batch) => store.push(batch, at), store.find),
      pushClaiming(claims, [keyed()], at, (batch) => store.push(batch, at), store.find),
    ]);
    expect([a![0]!.created, b![0]!.created].sort()).toEqual([false, true]);
    expect(new Set([a![0]!.job.id, b![0]!.job.id]).size).toBe(1);
    expect(store.jobs.size).toBe(1);
    expect(claims.claims.get('k')!.jobId).toBe(a![0]!.job.id);
  });
});

describe('a claim without its job on Redis', () => {
  const prefixes = prefixPool('dedup-claims');
  afterAll(() => prefixes.sweep());

  it('is taken over by the next push once it settled, and the key then names the new job', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 't' });
    await store.open();
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      // What a process that stopped between its claim and its push leaves.
      const claimKey = `{${prefix}:dedup:pay|k}`;
      await redis.hset(claimKey, 'id', 'ghost', 'at', T0, 'until', T0 + WINDOW);
      const next = keyed();
      const [made] = await store.pushMany([next], T0 + 20_000);
      expect(made).toMatchObject({ created: true, job: { id: next.id } });
      expect(await redis.hget(claimKey, 'id')).toBe(next.id);
      const [dup] = await store.pushMany([keyed()], T0 + 20_001);
      expect(dup).toMatchObject({ duplicate: true, job: { id: next.id } });
    } finally {
      redis.disconnect();
      await store.close();
    }
  });
});
