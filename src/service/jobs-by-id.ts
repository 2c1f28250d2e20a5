import type { Clock, EpochMs } from '../core/clock.js';
import type { DelayqError } from '../core/errors.js';
import { validateJobId, validateTopic, type PushInput } from '../core/job-input.js';
import type { HistoryEntry, Job, NewJob } from '../core/job.js';
import { notDelayed, unwrap } from '../store/outcome-errors.js';
import type { CancelledJob, RedriveTarget, Store } from '../store/store.js';
import { pickTime } from './service-options.js';

export interface JobsByIdDeps {
  store: Store;
  clock: Clock;
  run: <T>(operation: () => Promise<T>) => Promise<T>;
  /** A push validated without storing it: a reschedule's new due time is read as a push's. */
  normalize: (input: PushInput, now: EpochMs) => NewJob;
  /** The answer to a job id the store does not hold. */
  notFound: (id: string) => DelayqError;
  /** Tells the timer and the waiters about jobs that were just moved. */
  afterWrite: (jobs: readonly Job[]) => void;
  /** Wakes the long-polls of these topics. */
  wake: (topics: readonly string[]) => void;
}

/** One job by its id, outside a reservation: read it and its history, cancel, reschedule, run now, redrive. */
export class JobsById {
  private readonly deps: JobsByIdDeps;

  constructor(deps: JobsByIdDeps) {
    this.deps = deps;
  }

  get(id: string): Promise<Job> {
    const { store, run, notFound } = this.deps;
    return run(async () => {
      const job = await store.get(validateJobId(id));
      if (!job) throw notFound(id);
      return job;
    });
  }

  history(id: string): Promise<HistoryEntry[]> {
    const { store, run, notFound } = this.deps;
    return run(async () => {
      validateJobId(id);
      const entries = await store.history(id);
      if (entries.length === 0 && !(await store.get(id))) throw notFound(id);
      return entries;
    });
  }

  /** Cancels a delayed, ready or reserved job; `dispatched` says whether it was out (reserved) at that moment. */
  cancel(id: string, reason?: string): Promise<CancelledJob> {
    const { store, clock, run } = this.deps;
    return run(async () => unwrap(await store.cancel(validateJobId(id), clock.now(), { reason }), id, 'cancel'));
  }

  /** Moves a delayed (or ready) job to a new due time. */
  reschedule(
    id: string,
    when: { delayMs?: number | string; runAt?: number | string; timeZone?: string },
  ): Promise<Job> {
    const { store, clock, run, normalize, afterWrite } = this.deps;
    return run(async () => {
      const now = clock.now();
      const probe = normalize({ topic: 'reschedule', ...pickTime(when) }, now);
      const job = unwrap(await store.reschedule(validateJobId(id), probe.runAt, now), id, 'reschedule');
      afterWrite([job]);
      return job;
    });
  }

  /** Makes a delayed job (waiting for its due time or for a retry) ready at once; its history records it. */
  runNow(id: string): Promise<Job> {
    const { store, clock, run, afterWrite } = this.deps;
    return run(async () => {
      const outcome = await store.runNow(validateJobId(id), clock.now());
      if (!outcome.ok && outcome.reason === 'wrong_state') throw notDelayed(id, outcome.state);
      const job = unwrap(outcome, id, 'run now');
      afterWrite([job]);
      return job;
    });
  }

  /** Dead jobs (of a topic, or by id) made ready again; the long-polls of their topics are woken. */
  redrive(target: RedriveTarget): Promise<number> {
    const { store, clock, run, wake } = this.deps;
    return run(async () => {
      if ('topic' in target) validateTopic(target.topic);
      else target.ids.forEach((id, i) => validateJobId(id, `ids[${i}]`));
      const count = await store.redrive(target, clock.now());
      if (count > 0) wake('topic' in target ? [target.topic] : await this.topicsOf(target.ids));
      return count;
    });
  }

  private async topicsOf(ids: readonly string[]): Promise<string[]> {
    const jobs = await Promise.all(ids.map((id) => this.deps.store.get(id)));
    return [...new Set(jobs.filter((j): j is Job => j !== null).map((j) => j.topic))];
  }
}
