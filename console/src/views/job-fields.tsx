import type { Backoff, HistoryEntry, Job } from '../api.js';
import { span, time, utcOffset, viewerZone, wallTime } from '../format.js';
import { backoffDelayMs } from '../../../src/core/retry-policy.js';
import { dedupOfPushReason } from '../../../src/core/push-dedup.js';

/** A time in UTC and in the viewer's zone, both named. */
export function BothZones({ at }: { at: number | null }) {
  if (at === null) return <>—</>;
  const zone = viewerZone();
  return (
    <span data-at={at}>
      {wallTime(at, 'UTC')} UTC
      {zone !== 'UTC' && (
        <span class="muted">
          {' '}
          · {wallTime(at, zone)} {zone} ({utcOffset(at, zone)})
        </span>
      )}
    </span>
  );
}

export function describeBackoff(backoff: Backoff): string {
  switch (backoff.type) {
    case 'fixed':
      return `fixed, ${span(backoff.delayMs)} between attempts`;
    case 'exponential':
      return `exponential from ${span(backoff.delayMs)}, ×${backoff.factor}, at most ${span(backoff.maxDelayMs)}`;
    case 'list':
      return `list: ${backoff.delaysMs.map(span).join(', ')}`;
  }
}

/** What happens next by the job's retry policy, as the server would decide it (core/retry-policy.ts). */
export function nextRetry(job: Job): string {
  const { maxAttempts, backoff } = job.retry;
  if (job.state === 'delayed' && job.attempts > 0)
    return `attempt ${job.attempts + 1} of ${maxAttempts} is due at its due time (a retry after ${job.attempts} failed)`;
  if (job.state === 'reserved') {
    if (job.attempts >= maxAttempts) return `if attempt ${job.attempts} fails: dead (no attempts left)`;
    return `if attempt ${job.attempts} fails: attempt ${job.attempts + 1} of ${maxAttempts}, ${span(backoffDelayMs(backoff, job.attempts))} after the failure`;
  }
  if (job.state === 'delayed' || job.state === 'ready') return `first attempt of ${maxAttempts} at its due time`;
  return 'none (the job ended)';
}

/**
 * The dedup key the job's push named, from its push entry (core/push-dedup.ts): until when a push of the topic
 * with the key answers this job. Null: pushed without one, or the entry is not at hand (a job only a journal holds).
 */
export function dedupWindow(history: readonly HistoryEntry[]): string | null {
  const push = history.find((h) => h.event === 'push');
  const rule = push ? dedupOfPushReason(push.reason) : null;
  if (!push || !rule) return null;
  const until = push.at + rule.windowMs;
  const open = until > Date.now() ? 'answer this job' : 'answered this job';
  return `${rule.key}: pushes of the topic with it until ${time(until)} (${span(rule.windowMs)}) ${open}`;
}
