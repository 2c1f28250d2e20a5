interface Pending<T> {
  item: T;
  resolve(reply: unknown): void;
  reject(err: unknown): void;
}

/**
 * Groups concurrent calls of one kind (push, finish): every call made during one event-loop turn goes out
 * as script calls per partition of at most `maxItems` each, instead of one EVALSHA per call. `send` gets
 * the items of one chunk and answers one reply per item, in order. Pending items are bounded by the
 * callers' own concurrency; nothing is held across a failed call: its callers are rejected with the error.
 * The chunk size bounds a script's run and its Lua unpack; the chosen size is in bench/profiling-notes.md.
 */
export class PartitionBatcher<T> {
  private pending = new Map<number, Pending<T>[]>();
  private scheduled = false;
  private readonly send: (partition: number, items: T[]) => Promise<unknown[]>;
  private readonly maxItems: number;

  constructor(send: (partition: number, items: T[]) => Promise<unknown[]>, maxItems = 64) {
    this.send = send;
    this.maxItems = maxItems;
  }

  /** Resolves with the script's reply for this item. */
  add(partition: number, item: T): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let list = this.pending.get(partition);
      if (!list) this.pending.set(partition, (list = []));
      list.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = new Map();
    for (const [partition, entries] of batches) {
      // Equal chunks (100 → 2 × 50, not 64 + 36): Redis replies to the first while it reads the next.
      const size = Math.ceil(entries.length / Math.ceil(entries.length / this.maxItems));
      for (let i = 0; i < entries.length; i += size) {
        const chunk = entries.slice(i, i + size);
        this.send(
          partition,
          chunk.map((e) => e.item),
        ).then(
          (replies) => chunk.forEach((e, k) => e.resolve(replies[k])),
          (err: unknown) => chunk.forEach((e) => e.reject(err)),
        );
      }
    }
  }
}
