import type { EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import type { Job } from '../core/job.js';
import type { DelayqService } from '../service/service.js';
import type { CancelledJob } from '../store/store.js';

/**
 * The seed protocols finish a job by id alone (mykit `GET /finish?jobId=`, Youzan `{command: finish}`),
 * while delayq fences every finish with the reservation token. This remembers the token of each job
 * reserved through a seed endpoint of this process until the reservation's deadline, so the id-only
 * finish can present it. Bounded: expired entries are dropped as new ones arrive.
 */
export class CompatReservations {
  private readonly tokens = new Map<string, { token: string; deadlineAt: EpochMs }>();
  private readonly maxEntries: number;

  constructor(maxEntries = 100_000) {
    this.maxEntries = maxEntries;
  }

  remember(id: string, token: string, deadlineAt: EpochMs): void {
    if (this.tokens.size >= this.maxEntries) this.sweep(Date.now());
    if (this.tokens.size >= this.maxEntries) {
      const oldest = this.tokens.keys().next();
      if (!oldest.done) this.tokens.delete(oldest.value);
    }
    this.tokens.set(id, { token, deadlineAt });
  }

  /** The token of a reservation made here, even past its deadline (the store then says it is stale). */
  tokenOf(id: string): string | undefined {
    return this.tokens.get(id)?.token;
  }

  forget(id: string): void {
    this.tokens.delete(id);
  }

  get size(): number {
    return this.tokens.size;
  }

  private sweep(now: EpochMs): void {
    for (const [id, entry] of this.tokens) if (entry.deadlineAt <= now) this.tokens.delete(id);
  }
}

/**
 * Finish by id, as the seed protocols do. A job reserved through a seed endpoint is finished with the
 * remembered token; a job not yet delivered (delayed or ready) is cancelled, since the caller says no
 * delivery is needed any more; a finished job answers as done again. A job reserved through the REST API
 * (token unknown here) is refused with E_CONFLICT: finish it with its token.
 */
export async function finishById(service: DelayqService, compat: CompatReservations, id: string): Promise<Job> {
  const job = await service.get(id);
  switch (job.state) {
    case 'reserved': {
      const token = compat.tokenOf(id);
      if (!token) {
        throw new DelayqError(
          'E_CONFLICT',
          `job ${id} is reserved by a consumer of the REST API; finish it with its token`,
          {
            field: 'id',
            details: { id, state: job.state },
          },
        );
      }
      const finished = await service.finish(id, token);
      compat.forget(id);
      return finished;
    }
    case 'delayed':
    case 'ready':
      return (await service.cancel(id, 'finished by id before delivery (seed-compatible finish)')).job;
    case 'finished':
      return job;
    default:
      throw new DelayqError('E_WRONG_STATE', `cannot finish job ${id}: it is ${job.state}`, {
        field: 'id',
        details: { id, state: job.state },
      });
  }
}

/**
 * Cancel by id, as the seeds' delete does: a job already over (finished, cancelled…) answers as done,
 * with null (nothing was cancelled); else what cancel answers (whether the job was out, its attempts).
 */
export async function deleteById(
  service: DelayqService,
  compat: CompatReservations,
  id: string,
): Promise<CancelledJob | null> {
  const job = await service.get(id);
  compat.forget(id);
  if (job.state === 'delayed' || job.state === 'ready' || job.state === 'reserved')
    return service.cancel(id, 'deleted (seed-compatible delete)');
  return null;
}

/** A stored body as the seeds return it: a string body as the string, any other JSON value as its text. */
export function seedBody(job: Job): string {
  const value = JSON.parse(job.body) as unknown;
  return typeof value === 'string' ? value : job.body;
}
