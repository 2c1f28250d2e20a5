/**
 * Gathers the acknowledgements a consumer makes in one event-loop turn (or within `delayMs`) and sends
 * them as one `POST /v1/ack`, so a hundred jobs finishing together cost one request, not a hundred. Each
 * `add` resolves with its own item's result; `flush` sends what is queued at once and waits for every send.
 */
import { LIMITS } from '../core/limits.js';
import type { Ack, AckResult } from '../protocol/ack-schemas.js';
import type { DelayqClient } from './client.js';

interface Queued {
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
