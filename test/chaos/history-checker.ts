/**
 * A Jepsen-style checker for delayq's promise. The load generator and the consumers log what they saw;
 * this reads the log and reports every violation:
 *  - lost: a push was acknowledged (and not cancelled), its due time passed long enough ago, and it was
 *    never delivered;
 *  - early: a delivery before the job's runAt;
 *  - duplicate: a delivery while an earlier delivery of the same job was still within its TTR and had not
 *    been failed — at-least-once allows a second delivery only after a lapse or a failure;
 *  - resurrected: a delivery after the job's finish or cancel was acknowledged;
 *  - deliveredAfterFinish: of those, the deliveries after an acknowledged finish (the consumer's 200, or the
 *    server showing the job finished).
 * Times are epoch ms from one machine's clock (the tests run everything on one host).
 */
export type HistoryEvent =
  | { type: 'push'; id: string; runAt: number; ttrMs: number; at: number }
  | { type: 'cancel'; id: string; at: number }
  | { type: 'deliver'; id: string; at: number }
  | { type: 'finish'; id: string; at: number }
  | { type: 'fail'; id: string; at: number };

export interface CheckResult {
  pushed: number;
  delivered: number;
  /** Deliveries beyond the first (allowed ones: after a lapse or a failure). */
  redeliveries: number;
  lost: string[];
  early: { id: string; byMs: number }[];
  duplicates: string[];
  resurrected: string[];
  /** Jobs delivered again after an acknowledged finish. */
  deliveredAfterFinish: string[];
}

export interface CheckOptions {
  /** The end of the observation window. */
  endAt: number;
  /** A job due this long before endAt must have been delivered. */
  graceMs: number;
  /** Slack on the TTR when judging duplicates (clock reads on both sides). */
  ttrSlackMs?: number;
}

export function checkHistory(events: readonly HistoryEvent[], options: CheckOptions): CheckResult {
  const slack = options.ttrSlackMs ?? 50;
  const jobs = new Map<
    string,
    { runAt: number; ttrMs: number; cancelledAt?: number; finishedAt?: number; deliveries: number[]; fails: number[] }
  >();
  for (const e of events) {
    if (e.type === 'push') {
      if (!jobs.has(e.id)) jobs.set(e.id, { runAt: e.runAt, ttrMs: e.ttrMs, deliveries: [], fails: [] });
    }
  }
  const result: CheckResult = {
    pushed: jobs.size,
    delivered: 0,
    redeliveries: 0,
    lost: [],
    early: [],
    duplicates: [],
    resurrected: [],
    deliveredAfterFinish: [],
  };
  const sorted = [...events].sort((a, b) => a.at - b.at);
  for (const e of sorted) {
    const job = jobs.get(e.id);
    if (!job) continue; // a delivery of a push whose ack was never seen is not a violation
    switch (e.type) {
      case 'cancel':
        job.cancelledAt ??= e.at;
        break;
      case 'finish':
        job.finishedAt ??= e.at;
        break;
      case 'fail':
        job.fails.push(e.at);
        break;
      case 'deliver': {
        if (e.at < job.runAt) result.early.push({ id: e.id, byMs: job.runAt - e.at });
        if (
          (job.finishedAt !== undefined && e.at > job.finishedAt) ||
          (job.cancelledAt !== undefined && e.at > job.cancelledAt)
        ) {
          result.resurrected.push(e.id);
          if (job.finishedAt !== undefined && e.at > job.finishedAt) result.deliveredAfterFinish.push(e.id);
        }
        const previous = job.deliveries[job.deliveries.length - 1];
        if (previous !== undefined) {
          result.redeliveries++;
          const failedSince = job.fails.some((f) => f >= previous && f <= e.at);
          if (!failedSince && e.at < previous + job.ttrMs - slack) result.duplicates.push(e.id);
        }
        job.deliveries.push(e.at);
        break;
      }
      case 'push':
        break;
    }
  }
  for (const [id, job] of jobs) {
    if (job.deliveries.length > 0) result.delivered++;
    else if (job.cancelledAt === undefined && job.runAt < options.endAt - options.graceMs) result.lost.push(id);
  }
  return result;
}
