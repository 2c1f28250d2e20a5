/**
 * The SQLite store's side of the dedup window (core/push-dedup.ts): the claims table (migration 049) is read and
 * written in the push's own transaction, so a claim and the job it names are made together or not at all.
 */
import type { EpochMs } from '../../core/clock.js';
import type { Job, NewJob } from '../../core/job.js';
import { rowToJob, type JobRow } from './job-row.js';
import type { Statements } from './sqlite-reads.js';

type DedupStatements = Pick<Statements, 'liveDedupClaim' | 'putDedupClaim' | 'getJob'>;

/** The job a live claim of the push's topic and key names; null when none (or that job was deleted). */
export function claimedJob(stmt: DedupStatements, job: NewJob, now: EpochMs): Job | null {
  const claim = stmt.liveDedupClaim.get(job.topic, job.dedup!.key, now) as { job_id: string } | undefined;
  if (!claim) return null;
  const row = stmt.getJob.get(claim.job_id) as JobRow | undefined;
  return row && row.topic === job.topic ? rowToJob(row) : null;
}

/** The job the push just created claims its key for its window (replacing a claim that ended or lost its job). */
export function claimKey(stmt: DedupStatements, job: NewJob, now: EpochMs): void {
  stmt.putDedupClaim.run(job.topic, job.dedup!.key, job.id, now + job.dedup!.windowMs);
}
