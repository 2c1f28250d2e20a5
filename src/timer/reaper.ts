import type { EpochMs } from '../core/clock.js';
import { decideFailure } from '../core/retry-policy.js';
import type { Store } from '../store/store.js';

export interface ReapResult {
  lapsed: number;
  /** Topics where a lapsed job became ready again at once (zero backoff), to wake consumers. */
  readyTopics: string[];
}

const LAPSE_REASON = 'TTR lapsed at ';

/** The reason a TTR lapse records in the job's history. */
export function lapseReason(deadlineAt: EpochMs): string {
  return `${LAPSE_REASON}${new Date(deadlineAt).toISOString()} without finish`;
}

/** Whether a history entry's reason is a TTR lapse's (the beanstalkd listener counts them as timeouts). */
export function isLapseReason(reason: string | null): boolean {
  return reason !== null && reason.startsWith(LAPSE_REASON);
}

/**
 * TTR lapses: each lapsed reservation is retried with its backoff or buried, as core decides.
 * The lapsed token fences the transition, so a consumer finishing at this very instant either wins
 * (and the reaper gets token_mismatch/wrong_state) or loses (and gets E_TOKEN_MISMATCH): never both.
 */
export async function reapLapsed(store: Store, now: EpochMs, limit: number): Promise<ReapResult> {
  const lapsed = await store.listLapsed(now, limit);
  const readyTopics = new Set<string>();
  for (const r of lapsed) {
    const reason = lapseReason(r.deadlineAt);
    const decision = decideFailure(r.retry, r.attempts, now);
    const outcome =
      decision.action === 'retry'
        ? await store.retry(r.id, r.token, now, { runAt: decision.runAt, error: reason })
        : await store.bury(r.id, r.token, now, { error: reason });
    if (outcome.ok && outcome.value.state === 'ready') readyTopics.add(r.topic);
  }
  return { lapsed: lapsed.length, readyTopics: [...readyTopics] };
}
