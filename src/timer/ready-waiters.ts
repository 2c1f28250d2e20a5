/**
 * Long-poll consumers waiting for a topic to have ready jobs. A waiter resolves when one of its topics
 * is notified, when its time is up, or when its signal aborts; the caller then tries to reserve again.
 * Memory is one small record per waiting request, released on every exit path.
 */
export type WaitOutcome = 'notified' | 'timeout' | 'aborted';

interface Waiter {
  topics: readonly string[];
  resolve(outcome: WaitOutcome): void;
}

export class ReadyWaiters {
  private readonly byTopic = new Map<string, Set<Waiter>>();
  private count = 0;
  private epochValue = 0;

  /**
   * Increases on every notification. A caller reads it before trying to reserve and passes it to `wait`:
   * if a notification came in between (the reserve found nothing but jobs became ready right after),
   * `wait` returns at once instead of missing the wake-up.
   */
  get epoch(): number {
    return this.epochValue;
  }

  get size(): number {
    return this.count;
  }

  wait(topics: readonly string[], timeoutMs: number, signal?: AbortSignal, seenEpoch?: number): Promise<WaitOutcome> {
    if (signal?.aborted) return Promise.resolve('aborted');
    if (seenEpoch !== undefined && seenEpoch !== this.epochValue) return Promise.resolve('notified');
    return new Promise<WaitOutcome>((resolve) => {
      const waiter: Waiter = {
        topics,
        resolve: (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.remove(waiter);
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => waiter.resolve('timeout'), Math.max(0, timeoutMs));
      const onAbort = (): void => waiter.resolve('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      for (const topic of topics) {
        let set = this.byTopic.get(topic);
        if (!set) this.byTopic.set(topic, (set = new Set()));
        set.add(waiter);
      }
      this.count++;
    });
  }

  /** Wakes every waiter of these topics. */
  notify(topics: readonly string[]): void {
    this.epochValue++;
    for (const topic of topics) {
      const set = this.byTopic.get(topic);
      if (!set) continue;
      for (const waiter of [...set]) waiter.resolve('notified');
    }
  }

  /** Wakes everyone (shutdown). */
  notifyAll(): void {
    this.epochValue++;
    for (const set of [...this.byTopic.values()]) for (const waiter of [...set]) waiter.resolve('notified');
  }

  private remove(waiter: Waiter): void {
    let removed = false;
    for (const topic of waiter.topics) {
      const set = this.byTopic.get(topic);
      if (set?.delete(waiter)) removed = true;
      if (set && set.size === 0) this.byTopic.delete(topic);
    }
    if (removed) this.count--;
  }
}
