import type { Clock, EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import { newJobId } from '../core/ids.js';
import { normalizePush, type JobDefaults, type PushInput } from '../core/job-input.js';
import type { Job, NewJob } from '../core/job.js';
import { groupsUnsupported } from '../core/topic-settings.js';
import type { PushResult, Store } from '../store/store.js';
import { refuseIdConflicts } from './id-conflict.js';
import type { PushFieldNames } from './job-retention.js';
import { SinglePushes } from './single-pushes.js';

export interface PushDeps {
  store: Store;
  clock: Clock;
  defaults: JobDefaults;
  run: <T>(operation: () => Promise<T>) => Promise<T>;
  /** Tells the timer and the waiters about jobs that were just stored or moved. */
  afterWrite: (jobs: readonly Job[]) => void;
}

/** Pushes: validated one by one (a refusal names its field), stored one store call per batch or per turn. */
export class PushApi {
  private readonly deps: PushDeps;
  /** Single pushes, one store call per event-loop turn (single-pushes.ts). */
  private readonly singlePushes: SinglePushes;

  constructor(deps: PushDeps) {
    this.deps = deps;
    this.singlePushes = new SinglePushes({ store: deps.store, afterWrite: deps.afterWrite });
  }

  /** Validates a push without storing it (the HTTP layer uses it to name bad fields in a batch). */
  normalize(input: PushInput, now: EpochMs = this.deps.clock.now(), ownIds = false): NewJob {
    const { store, defaults } = this.deps;
    const job = normalizePush(input, { now, defaults, newId: newJobId, ownIds });
    if (job.group !== undefined && !store.capabilities.groups) throw groupsUnsupported('group', store.kind);
    return job;
  }

  /** One job, validated alone, stored with the other single pushes of this event-loop turn in one store call. */
  push(input: PushInput): Promise<PushResult> {
    return this.deps.run(async () => {
      const now = this.deps.clock.now();
      return this.singlePushes.push(this.normalize(input, now), now);
    });
  }

  /**
   * Validates every job first, then stores them all in one call; an id held by a job of another topic is refused
   * (id-conflict.ts). A refusal names `jobs[i].field` (a batch request, whatever its size) or, for `'single'`
   * (one job's own request), the field alone. `ownIds`: delayq's own ids (ticks), which may hold `~`.
   */
  pushBatch(
    inputs: readonly PushInput[],
    { fieldNames = 'batch', ownIds }: { fieldNames?: PushFieldNames; ownIds?: boolean } = {},
  ): Promise<PushResult[]> {
    return this.deps.run(async () => {
      const now = this.deps.clock.now();
      const jobs = inputs.map((input, index) => {
        try {
          return this.normalize(input, now, ownIds);
        } catch (err) {
          if (err instanceof DelayqError && fieldNames === 'batch' && err.field !== undefined) {
            throw new DelayqError(err.code, `jobs[${index}].${err.message}`, { field: `jobs[${index}].${err.field}` });
          }
          throw err;
        }
      });
      const results = await this.deps.store.pushMany(jobs, now);
      this.deps.afterWrite(results.filter((r) => r.created || r.change).map((r) => r.job));
      refuseIdConflicts(jobs, results, fieldNames === 'batch');
      return results;
    });
  }
}
