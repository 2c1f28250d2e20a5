/**
 * Gathers the acknowledgements a consumer makes in one event-loop turn (or within `delayMs`) and sends
 * them as one `POST /v1/ack`, so a hundred jobs finishing together cost one request, not a hundred. A
 * reserve about to go out can `take` what is gathered instead and carry it (one round trip per batch), then
 * `settle` the taken items with the results its answer carries. Each `add` resolves with its own item's
 * result; `flush` sends what is queued at once and waits for every send.
 */
import { LIMITS } from '../core/limits.js';
import type { Ack, AckResult } from '../protocol/ack-schemas.js';
import type { DelayqClient } from './client.js';

/** An acknowledgement waiting for its result. */
export interface Queued {
  ack: Ack;
  resolve: (result: AckResult) => void;
  reject: (err: unknown) => void;
}

export class AckBatcher {
  private readonly client: DelayqClient;
  private readonly delayMs: number;
  private queue: Queued[] = [];
  private scheduled = false;
  /** The gathering delay's timer, cleared on every send so a flushed batcher holds the process open no longer. */
  private timer: NodeJS.Timeout | undefined;
  private readonly sending = new Set<Promise<void>>();

  /** `delayMs` 0: send at the end of the current event-loop turn. */
  constructor(client: DelayqClient, delayMs = 0) {
    this.client = client;
    this.delayMs = delayMs;
  }

  add(ack: Ack): Promise<AckResult> {
    return new Promise<AckResult>((resolve, reject) => {
      this.queue.push({ ack, resolve, reject });
      if (this.queue.length >= LIMITS.ackBatchMax) this.send();
      else if (!this.scheduled) {
        this.scheduled = true;
        if (this.delayMs > 0) this.timer = setTimeout(() => this.send(), this.delayMs);
        else setImmediate(() => this.send());
      }
    });
  }

  /** Removes up to `max` gathered items, for a request that carries them; settle them with `settle`. */
  take(max: number = LIMITS.ackBatchMax): Queued[] {
    return this.queue.splice(0, max);
  }

  /** Settles taken items with the results of the request that carried them, in order. */
  settle(items: readonly Queued[], results: readonly AckResult[]): void {
    items.forEach((item, i) => {
      const result = results[i];
      if (result) item.resolve(result);
      else item.reject(new Error(`the answer carried ${results.length} ack results for ${items.length} acks`));
    });
  }

  /**
   * The request that carried `items` failed: whether the server settled them is unknown. A finish goes out
   * again (a finish repeated with its token is answered as the first one was); the others are not safe to
   * repeat and are rejected with `err` (a fail not applied is retried anyway when its TTR lapses).
   */
  giveBack(items: readonly Queued[], err: unknown): void {
    for (const item of items) {
      if (item.ack.op === 'finish') this.requeue(item);
      else item.reject(err);
    }
  }

  private requeue(item: Queued): void {
    this.queue.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.send());
    }
  }

  /** Sends the queue now and resolves when every batch sent so far has been answered. */
  async flush(): Promise<void> {
    this.send();
    await Promise.allSettled([...this.sending]);
  }

  private send(): void {
    this.scheduled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, LIMITS.ackBatchMax);
    const sent = this.client.ack(batch.map((q) => q.ack)).then(
      (results) => batch.forEach((q, i) => q.resolve(results[i]!)),
      (err: unknown) => batch.forEach((q) => q.reject(err)),
    );
    const tracked = sent.finally(() => this.sending.delete(tracked));
    this.sending.add(tracked);
    if (this.queue.length > 0) this.send();
  }
}
