/**
 * What a journaled store keeps of a job after it ends. Outcomes: kept in the inner store and, once kept
 * there (the inner store fences them by token), in the journal, so a job's outcome outlives the inner
 * store's short retention and a restore. Retention is kept by the inner store; what it deletes (and
 * deleteEndedMany) leaves the journal too.
 */
import type { EpochMs } from '../../core/clock.js';
import type { JobError, JobOutcome, NewOutcome } from '../../core/job-outcome.js';
import type { Store } from '../../store/store.js';
import type { Journal } from '../journal.js';

/** An outcome as journaled: the reporting token beside what it reported. */
interface JournaledOutcome {
  token: string;
  result: string | null;
  error: JobError | null;
  at: EpochMs;
}

export class JournaledOutcomes {
  private readonly inner: Store;
  private readonly journal: Journal;

  constructor(inner: Store, journal: Journal) {
    this.inner = inner;
    this.journal = journal;
  }

  async recordOutcome(id: string, token: string, outcome: NewOutcome, now: EpochMs): Promise<boolean> {
    if (!(await this.inner.recordOutcome(id, token, outcome, now))) return false;
    const journaled: JournaledOutcome = { token, result: outcome.result, error: outcome.error, at: now };
    await this.journal.saveOutcome(id, JSON.stringify(journaled), now);
    return true;
  }

  /**
   * The inner store's answer while it holds the job; then the journal's. The journal does not keep the
   * finishing token, so there a result shows when the job finished after the outcome was reported.
   */
  async outcomeOf(id: string): Promise<JobOutcome | null> {
    if (await this.inner.get(id)) return this.inner.outcomeOf(id);
    const [text, row] = await Promise.all([this.journal.outcomeOf(id), this.journal.get(id)]);
    if (text === null || row === null) return null;
    const kept = JSON.parse(text) as JournaledOutcome;
    const counts = row.state === 'finished' && (row.finishedAt ?? 0) >= kept.at;
    return { result: counts ? kept.result : null, error: kept.error, at: kept.at };
  }

  /** The inner store decides (it holds the retention); the journal then drops the same jobs. */
  async purgeRetained(now: EpochMs, limit: number): Promise<string[]> {
    const ids = await this.inner.purgeRetained(now, limit);
    if (ids.length) await this.journal.deleteEnded(ids);
    return ids;
  }

  async deleteEndedMany(ids: readonly string[]): Promise<number> {
    const [inner, journal] = await Promise.all([this.inner.deleteEndedMany(ids), this.journal.deleteEnded(ids)]);
    return Math.max(inner, journal);
  }
}
