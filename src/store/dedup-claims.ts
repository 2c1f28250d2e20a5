/**
 * The dedup window (core/push-dedup.ts) on a store whose claim and job cannot be written in one atomic step
 * (Redis: the claim key and the job's partition are different slots; the SQL journal: the claim is its own
 * statement before the job's row). The claim is taken first, atomically (one script, one conditional
 * statement), so of many concurrent pushes with one key exactly one goes on to create a job.
 *
 * The window between the claim and the create: a later push finds a claim whose job does not exist yet. Its
 * claimant is normally a few milliseconds from creating it, so the later push waits for the job (polling) for
 * up to CLAIM_SETTLE_MS after the claim was taken. A claim still without a job after that lost its claimant (it
 * crashed between the two steps) or its job (deleted: retention, an operator), and is taken over, atomically:
 * only by a push that saw that same claimant, so two pushes taking over make one job too. The one way to two
 * jobs of a key: a claimant that stalls longer than CLAIM_SETTLE_MS between its steps still pushes its job.
 */
import type { EpochMs } from '../core/clock.js';
import type { Job, NewJob } from '../core/job.js';
import type { PushResult } from './store.js';

/** A live claim of a topic's dedup key: the job its first push named, and when it was taken. */
export interface HeldClaim {
  jobId: string;
  claimedAt: EpochMs;
}

/** Where claims live (redis/redis-dedup-claims.ts, journal/sql/dedup-claims.ts). */
export interface DedupClaims {
  /**
   * Claims the push's (topic, dedup.key) for its id until now + dedup.windowMs, unless a live claim (one whose
   * window has not ended by `now`) holds it for an id other than `takeOverFrom`: then answers that claim.
   * null: the push holds the claim.
   */
  claim(job: NewJob, now: EpochMs, takeOverFrom?: string): Promise<HeldClaim | null>;
  /** Drops the push's claim if it still holds it (the push created no job). */
  release(job: NewJob): Promise<void>;
}

/** How long after its claim a job may still be on its way to the store (see above). */
export const CLAIM_SETTLE_MS = 10_000;
/** How often a push waiting for a claimed job looks again. */
const CLAIM_POLL_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * pushMany for a store of separate claims: jobs without a dedup rule go to `push` as they come (consecutive
 * ones in one call); each run of consecutive jobs with one takes its claims key by key, the pushes of one key
 * in order (the first may make the job the others answer), different keys at once.
 */
export async function pushClaiming(
  claims: DedupClaims,
  jobs: readonly NewJob[],
  now: EpochMs,
  push: (jobs: readonly NewJob[]) => Promise<PushResult[]>,
  find: (id: string) => Promise<Job | null>,
): Promise<PushResult[]> {
  const claiming = (job: NewJob): boolean => job.dedup !== undefined && !job.dedup.claimed;
  if (!jobs.some(claiming)) return push(jobs);
  const results: PushResult[] = [];
  for (let start = 0; start < jobs.length;) {
    const keyed = claiming(jobs[start]!);
    let end = start + 1;
    while (end < jobs.length && claiming(jobs[end]!) === keyed) end++;
    const run = jobs.slice(start, end);
    if (!keyed) results.push(...(await push(run)));
    else {
      const answers = new Array<PushResult>(run.length);
      const byKey = new Map<string, number[]>();
      run.forEach((job, i) => {
        const key = `${job.topic}|${job.dedup!.key}`;
        byKey.set(key, [...(byKey.get(key) ?? []), i]);
      });
      await Promise.all(
        [...byKey.values()].map(async (indexes) => {
          for (const i of indexes) answers[i] = await pushOneClaiming(claims, run[i]!, now, push, find);
        }),
      );
      results.push(...answers);
    }
    start = end;
  }
  return results;
}

async function pushOneClaiming(
  claims: DedupClaims,
  job: NewJob,
  now: EpochMs,
  push: (jobs: readonly NewJob[]) => Promise<PushResult[]>,
  find: (id: string) => Promise<Job | null>,
): Promise<PushResult> {
  let takeOverFrom: string | undefined;
  let waitedMs = 0;
  for (;;) {
    const held = await claims.claim(job, now, takeOverFrom);
    if (!held) {
      const [result] = await push([job]);
      // The id was taken by a job of another topic (the service refuses the push): the key stays free.
      if (!result!.created && result!.job.topic !== job.topic) await claims.release(job);
      return result!;
    }
    const first = await find(held.jobId);
    if (first && first.topic === job.topic) return { created: false, job: first, duplicate: true };
    if (now - held.claimedAt < CLAIM_SETTLE_MS && waitedMs < CLAIM_SETTLE_MS) {
      await sleep(CLAIM_POLL_MS);
      waitedMs += CLAIM_POLL_MS;
      takeOverFrom = undefined;
      continue;
    }
    takeOverFrom = held.jobId;
  }
}
