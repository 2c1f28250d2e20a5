/**
 * Results and errors on the service (docs/job-api.md): a finish's result and a fail's structured error are
 * kept beside the job (fenced by the reporting token), and reads show the outcome kept. DelayqService owns
 * one (`service.outcomes`); settling a reservation (settle-api.ts) records through it.
 */
import { validateJobId } from '../core/job-input.js';
import {
  normalizeError,
  normalizeResult,
  type ErrorInput,
  type JobError,
  type JobOutcome,
} from '../core/job-outcome.js';
import type { StoreCalls } from './store-calls.js';

export class JobOutcomes {
  private readonly host: StoreCalls;

  constructor(host: StoreCalls) {
    this.host = host;
  }

  /** Keeps a finish's result (the finish follows; a refused one is explained by the finish's refusal); its JSON text. */
  async recordResult(id: string, token: string, result: unknown): Promise<string | null> {
    const text = normalizeResult(result);
    await this.host.store.recordOutcome(id, token, { result: text, error: null }, this.host.now());
    return text;
  }

  /** Keeps a fail's error (text or structured) and answers it (its message becomes the job's lastError). */
  async recordError(id: string, token: string, input: ErrorInput | undefined): Promise<JobError | null> {
    const error = normalizeError(input);
    if (error !== null) await this.host.store.recordOutcome(id, token, { result: null, error }, this.host.now());
    return error;
  }

  /** The outcome kept with a job, if any. */
  outcomeOf(id: string): Promise<JobOutcome | null> {
    return this.host.run(() => this.host.store.outcomeOf(validateJobId(id)));
  }
}
