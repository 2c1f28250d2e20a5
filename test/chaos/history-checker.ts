/**
 * A Jepsen-style checker for delayq's promise. The load generator and the consumers log what they saw;
 * this reads the log and reports every violation:
 *  - lost: a push was acknowledged (and not cancelled), its due time passed long enough ago, and it was
 *    never delivered;
 *  - early: a delivery before the job's runAt;
 *  - duplicate (an overlapping reservation): a delivery while an earlier delivery of the same job was still
 *    within its TTR and had not been failed — at-least-once allows a second delivery only after a lapse or a
 *    failure;
 *  - resurrected: a delivery after the job's finish or cancel was acknowledged;
 *  - deliveredAfterFinish / resurrectedAfterCancel: of those, the deliveries after an acknowledged finish (the
 *    consumer's 200, or the server showing the job finished), and after an acknowledged cancel;
 *  - time without service: the longest wait between two acknowledged pushes, and the longest time a due job
 *    waited while no delivery at all was made (`serviceGaps`).
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
  /** Jobs delivered after an acknowledged cancel. */
  resurrectedAfterCancel: string[];
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
    resurrectedAfterCancel: [],
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
          if (job.cancelledAt !== undefined && e.at > job.cancelledAt) result.resurrectedAfterCancel.push(e.id);
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

export interface ServiceGaps {
  /** Longest time between two consecutive acknowledged pushes (the load pushes steadily), ms. */
  pushGapMs: number;
  /** When that gap began (epoch ms), null without two pushes. */
  pushGapFrom: number | null;
  /**
   * Longest time without any delivery while an acknowledged, uncancelled job was due and waiting for its first
   * delivery, ms: from the later of the previous delivery and the waiting job's runAt, to the next delivery.
   */
  deliveryGapMs: number;
  deliveryGapFrom: number | null;
}

/** Time without service, read from the same history (jobs never delivered are reported as lost instead). */
export function serviceGaps(events: readonly HistoryEvent[]): ServiceGaps {
  const pushes = events
    .filter((e) => e.type === 'push')
    .map((e) => e.at)
    .sort((a, b) => a - b);
  const gaps: ServiceGaps = { pushGapMs: 0, pushGapFrom: null, deliveryGapMs: 0, deliveryGapFrom: null };
  for (let i = 1; i < pushes.length; i++) {
    if (pushes[i]! - pushes[i - 1]! > gaps.pushGapMs) {
      gaps.pushGapMs = pushes[i]! - pushes[i - 1]!;
      gaps.pushGapFrom = pushes[i - 1]!;
    }
  }
  const runAt = new Map<string, number>();
  const cancelled = new Set<string>();
  const first = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'push' && !runAt.has(e.id)) runAt.set(e.id, e.runAt);
    if (e.type === 'cancel') cancelled.add(e.id);
    if (e.type === 'deliver') first.set(e.id, Math.min(first.get(e.id) ?? Infinity, e.at));
  }
  // jobs by first delivery, with the earliest runAt among those first delivered at or after each one
  const waited = [...first]
    .filter(([id]) => runAt.has(id) && !cancelled.has(id))
    .map(([id, at]) => ({ at, runAt: runAt.get(id)! }))
    .sort((a, b) => a.at - b.at);
  const minRunAtFrom: number[] = new Array<number>(waited.length + 1).fill(Infinity);
  for (let i = waited.length - 1; i >= 0; i--) minRunAtFrom[i] = Math.min(waited[i]!.runAt, minRunAtFrom[i + 1]!);
  const deliveries = events
    .filter((e) => e.type === 'deliver')
    .map((e) => e.at)
    .sort((a, b) => a - b);
  let j = 0;
  for (let i = 1; i < deliveries.length; i++) {
    const [previous, next] = [deliveries[i - 1]!, deliveries[i]!];
    while (j < waited.length && waited[j]!.at < next) j++;
    // every job first delivered at `next` or later was waiting through (previous, next) if it was due
    const from = Math.max(previous, minRunAtFrom[j]!);
    if (next - from > gaps.deliveryGapMs) {
      gaps.deliveryGapMs = next - from;
      gaps.deliveryGapFrom = from;
    }
  }
  return gaps;
}
