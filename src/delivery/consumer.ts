import type { Reservation } from '../core/job.js';
import type { FailureDecision } from '../core/retry-policy.js';

/**
 * What delivery needs from the service: the calls a pull consumer makes over the API, so a sink's
 * jobs follow the same reserve → finish | fail | release path. DelayqService satisfies it.
 */
export interface Consumer {
  reserve(
    request: { topics: readonly string[]; count?: number; waitMs?: number; ttrMs?: number },
    signal?: AbortSignal,
  ): Promise<Reservation[]>;
  finish(id: string, token: string): Promise<unknown>;
  fail(
    id: string,
    token: string,
    request: { error?: string | null; bury?: boolean },
  ): Promise<{ decision: FailureDecision }>;
  release(id: string, token: string): Promise<unknown>;
}
