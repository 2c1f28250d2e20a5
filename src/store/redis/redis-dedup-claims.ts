import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';
import type { DedupClaims, HeldClaim } from '../dedup-claims.js';
import type { Guard } from './redis-extras.js';
import { runScript } from './scripts.js';

/**
 * Dedup claims on Redis (lua/dedup-claim.lua), one key per topic and key under a hash tag of its own, living
 * exactly the window (PEXPIRE): every process on this Redis sees the same claims.
 *   {prefix:dedup:<topic>|<key>}   hash  id, at, until
 * Neither a topic nor a key holds `|` or braces (core validates both), so the name is unambiguous.
 */
export class RedisDedupClaims implements DedupClaims {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private key(job: NewJob): string {
    return `{${this.prefix()}:dedup:${job.topic}|${job.dedup!.key}}`;
  }

  claim(job: NewJob, now: EpochMs, takeOverFrom = ''): Promise<HeldClaim | null> {
    return this.guard(async (c) => {
      const untilAt = now + job.dedup!.windowMs;
      const args = ['claim', job.id, now, untilAt, takeOverFrom];
      const reply = (await runScript(c, 'dedup-claim', [this.key(job)], args)) as [string, number] | [];
      return reply.length ? { jobId: reply[0], claimedAt: Number(reply[1]) } : null;
    });
  }

  async release(job: NewJob): Promise<void> {
    await this.guard((c) => runScript(c, 'dedup-claim', [this.key(job)], ['release', job.id, 0, 0, '']));
  }
}
