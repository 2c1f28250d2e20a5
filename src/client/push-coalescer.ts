/**
 * Gathers the `push()` calls of one event-loop turn (or within `windowMs`) into `POST /v1/jobs/batch` requests:
 * the server answers the jobs in order, and each caller gets its own job. A batch is refused whole when one
 * item is bad (nothing of it is stored), naming that item (`jobs[i].field`): its caller is rejected with the
 * error a push of its own would have got, and the others go out again. A refusal that names no item and could
 * come from an item's content (E_VALIDATION, E_BODY_TOO_LARGE) sends every job on its own; any other error
 * (unreachable, unauthorized, rate limited) is every caller's, as it would have been alone. An id conflict
 * (`jobs[i].id`, E_CONFLICT) is found as the batch is stored, so the others were stored: sent again, those the
 * refused batch created (its `details.created`) still answer `created: true`.
 */
import { DelayqError, isDelayqError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { PushRequest, PushResponse } from '../protocol/schemas.js';

/** A push waiting for its answer; `text` is its job's JSON, taken when push() was called. */
interface Pending {
  text: string;
  resolve: (answer: PushResponse) => void;
  reject: (err: unknown) => void;
}

export interface PushSender {
  /** POST /v1/jobs with one job's JSON text. */
  one(text: string): Promise<PushResponse>;
  /** POST /v1/jobs/batch with `{"jobs":[…]}` built from the jobs' JSON texts; the answers in order. */
  batch(texts: readonly string[]): Promise<PushResponse[]>;
}

/**
 * Pushes gathered while no batch request is out go as two requests of half each, from this many on: the server
 * stores the first while the second arrives, and the client handles one answer while the other is stored, where
 * one request kept each side waiting on the other. At 100 pushes in flight that was 1.15–1.4× the rate of one
 * request (docs/performance.md, "Push over HTTP"); with a request out already, a turn's pushes go as one, so a
 * busy client never has more than a few requests out and the server's cost per job stays that of large batches.
 */
const SPLIT_FROM = 32;

export class PushCoalescer {
  private readonly sender: PushSender;
  private readonly windowMs: number;
  /** Batch requests sent and not yet answered. */
  private batchesOut = 0;
  private queue: Pending[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;

  /** `windowMs` 0: send at the end of the current event-loop turn (setImmediate). */
  constructor(sender: PushSender, windowMs: number) {
    if (!Number.isInteger(windowMs) || windowMs < 0 || windowMs > 10_000) {
      throw new DelayqError('E_VALIDATION', 'pushWindowMs: must be an integer from 0 to 10000', {
        field: 'pushWindowMs',
      });
    }
    this.sender = sender;
    this.windowMs = windowMs;
  }

  /** Queues a job, its JSON taken now (as a push of its own would send it). */
  add(job: PushRequest): Promise<PushResponse> {
    return new Promise<PushResponse>((resolve, reject) => {
      const text = JSON.stringify(job);
      this.queue.push({ text, resolve, reject });
      this.queuedBytes += text.length + 1;
      if (this.queue.length >= LIMITS.pushBatchMax || this.queuedBytes >= LIMITS.pushCoalesceMaxBytes) this.send();
      else if (!this.scheduled) {
        this.scheduled = true;
        if (this.windowMs > 0) this.timer = setTimeout(() => this.send(), this.windowMs);
        else setImmediate(() => this.send());
      }
    });
  }

  /** Sends what is gathered at once (before the client closes). */
  sendNow(): void {
    if (this.queue.length > 0) this.send();
  }

  /** Sends everything gathered now, in batches within the item and byte limits. */
  private send(): void {
    this.scheduled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    const queue = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    const most =
      this.batchesOut === 0 && queue.length >= SPLIT_FROM ? Math.ceil(queue.length / 2) : LIMITS.pushBatchMax;
    let start = 0;
    while (start < queue.length) {
      let end = start;
      let bytes = 0;
      while (end < queue.length && end - start < most) {
        bytes += queue[end]!.text.length + 1;
        if (end > start && bytes > LIMITS.pushCoalesceMaxBytes) break;
        end++;
      }
      const batch = queue.slice(start, end);
      this.batchesOut++;
      this.sendBatch(batch)
        .catch((err: unknown) => batch.forEach((p) => p.reject(err)))
        .finally(() => this.batchesOut--);
      start = end;
    }
  }

  private async sendBatch(items: Pending[]): Promise<void> {
    let pending = items;
    const createdBefore = new Set<Pending>();
    const answer = (p: Pending, a: PushResponse) =>
      p.resolve(createdBefore.has(p) ? { ...a, created: true, outcome: 'created' } : a);
    while (pending.length > 1) {
      let answers: PushResponse[];
      try {
        answers = await this.sender.batch(pending.map((p) => p.text));
      } catch (err) {
        const index = itemOf(err, pending.length);
        if (index !== undefined) {
          for (const i of createdIndices(err as DelayqError)) if (pending[i]) createdBefore.add(pending[i]);
          pending[index]!.reject(asAlone(err as DelayqError, index));
          pending = pending.filter((_, i) => i !== index);
          continue;
        }
        if (isDelayqError(err) && (err.code === 'E_VALIDATION' || err.code === 'E_BODY_TOO_LARGE')) break;
        for (const p of pending) p.reject(err);
        return;
      }
      pending.forEach((p, i) => {
        const a = answers[i];
        if (a) answer(p, a);
        else
          p.reject(new DelayqError('E_INTERNAL', `the batch answer has ${answers.length} jobs for ${pending.length}`));
      });
      return;
    }
    for (const p of pending) this.sender.one(p.text).then((a) => answer(p, a), p.reject);
  }
}

/** The items an id conflict's batch stored before it was refused (`details.created`). */
function createdIndices(err: DelayqError): number[] {
  const created = err.code === 'E_CONFLICT' ? err.details?.['created'] : undefined;
  return Array.isArray(created) ? created.filter((i): i is number => Number.isInteger(i)) : [];
}

/** The item a batch refusal names (`jobs[3].topic`, `jobs[3]`), if it names one within the batch. */
function itemOf(err: unknown, size: number): number | undefined {
  if (!isDelayqError(err) || err.field === undefined) return undefined;
  const match = /^jobs\[(\d+)\](?:\.|$)/.exec(err.field);
  const index = match ? Number(match[1]) : Number.NaN;
  return index < size ? index : undefined;
}

/** The refusal of item `index` as a push of that job alone is refused: `jobs[3].topic: …` → `topic: …`. */
function asAlone(err: DelayqError, index: number): DelayqError {
  const prefix = `jobs[${index}]`;
  const field = err.field === prefix ? 'body' : err.field!.slice(prefix.length + 1);
  const message = err.message.startsWith(`${prefix}.`)
    ? err.message.slice(prefix.length + 1)
    : err.message.startsWith(`${prefix}:`)
      ? `body${err.message.slice(prefix.length)}`
      : err.message;
  return new DelayqError(err.code, message, {
    field,
    ...(err.details === undefined ? {} : { details: err.details }),
  });
}
