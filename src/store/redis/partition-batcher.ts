/**
 * Items sent group by group (`groupOf`, e.g. the job's topic), each group in arrival order: a script's work per
 * topic (its counters, id index, due heads) is then paid once a chunk, not once per topic in every chunk. Left
 * in arrival order when two items share `keyOf` (one id pushed twice in a wave: the first must come first).
 */
export interface Grouping<T> {
  groupOf(item: T): string;
  keyOf(item: T): string;
}

/** Where the replies of one call's items go: one per call, however many items it queued. */
interface Sink {
  replies: unknown[];
  left: number;
  resolve(replies: unknown[]): void;
  reject(err: unknown): void;
}

interface Pending<T> {
  item: T;
  sink: Sink;
  /** The item's place in its call's replies. */
  index: number;
}

/**
 * Groups concurrent calls of one kind (push, finish): every call made during one event-loop turn goes out
 * as script calls per partition of at most `maxItems` each, instead of one EVALSHA per call. While a
 * partition's calls are out, the items that arrive wait and go together when they are answered (a group
 * commit): requests that arrive one per turn, as single pushes from plain clients do, then share a call
 * instead of each paying a script's fixed work, and an idle partition sends at once. `send` gets the items
 * of one chunk and answers one reply per item, in order. Pending items are bounded by the callers' own
 * concurrency; nothing is held across a failed call: its callers are rejected with the error. The chunk size
 * bounds a script's run and its Lua unpack; why this size: docs/performance.md.
 */
export class PartitionBatcher<T> {
  private pending = new Map<number, Pending<T>[]>();
  private scheduled = false;
  /** Partitions with calls out: their next items wait for the answer. */
  private readonly busy = new Set<number>();
  private readonly send: (partition: number, items: T[]) => Promise<unknown[]>;
  private readonly maxItems: number;
  private readonly grouping: Grouping<T> | undefined;

  constructor(
    send: (partition: number, items: T[]) => Promise<unknown[]>,
    options: { maxItems?: number; grouping?: Grouping<T> } = {},
  ) {
    this.send = send;
    this.maxItems = options.maxItems ?? 64;
    this.grouping = options.grouping;
  }

  /** Resolves with the script's reply for this item. */
  add(partition: number, item: T): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue(partition, {
        item,
        sink: { replies: [undefined], left: 1, resolve: (r) => resolve(r[0]), reject },
        index: 0,
      });
    });
  }

  /** Resolves with the script's replies for these items (item i goes to partitions[i]), in order. */
  addMany(partitions: readonly number[], items: readonly T[]): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      const sink: Sink = { replies: new Array<unknown>(items.length), left: items.length, resolve, reject };
      if (!items.length) {
        resolve(sink.replies);
        return;
      }
      for (let i = 0; i < items.length; i++) this.queue(partitions[i]!, { item: items[i]!, sink, index: i });
    });
  }

  private queue(partition: number, pending: Pending<T>): void {
    let list = this.pending.get(partition);
    if (!list) this.pending.set(partition, (list = []));
    list.push(pending);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    for (const partition of [...this.pending.keys()]) if (!this.busy.has(partition)) this.sendPartition(partition);
  }

  /** Sends what waits for `partition` as one wave of chunks; when the wave is answered, what came meanwhile. */
  private sendPartition(partition: number): void {
    let entries = this.pending.get(partition);
    if (!entries) return;
    this.pending.delete(partition);
    this.busy.add(partition);
    if (this.grouping && entries.length > 1) entries = grouped(entries, this.grouping);
    // Equal chunks (100 → 2 × 50, not 64 + 36): Redis replies to the first while it reads the next.
    const size = Math.ceil(entries.length / Math.ceil(entries.length / this.maxItems));
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < entries.length; i += size) {
      const chunk = entries.slice(i, i + size);
      let sent: Promise<unknown[]>;
      try {
        sent = this.send(
          partition,
          chunk.map((e) => e.item),
        );
      } catch (err) {
        sent = Promise.reject(err); // a throw must not leave the partition busy for good
      }
      const call = sent.then(
        (replies) => {
          for (let k = 0; k < chunk.length; k++) {
            const { sink, index } = chunk[k]!;
            sink.replies[index] = replies[k];
            if (--sink.left === 0) sink.resolve(sink.replies);
          }
        },
        // A call is rejected once (its first failed chunk); a settled promise ignores the rest.
        (err: unknown) => chunk.forEach((e) => e.sink.reject(err)),
      );
      calls.push(call);
    }
    void Promise.all(calls).then(() => {
      this.busy.delete(partition);
      if (this.pending.has(partition)) this.sendPartition(partition);
    });
  }
}

/** The entries regrouped (stable within a group), or as they are when a key repeats or there is one group. */
function grouped<T>(entries: Pending<T>[], grouping: Grouping<T>): Pending<T>[] {
  const groups = new Map<string, Pending<T>[]>();
  const keys = new Set<string>();
  for (const e of entries) {
    const key = grouping.keyOf(e.item);
    if (keys.has(key)) return entries;
    keys.add(key);
    const group = grouping.groupOf(e.item);
    const list = groups.get(group);
    if (list) list.push(e);
    else groups.set(group, [e]);
  }
  return groups.size === 1 ? entries : [...groups.values()].flat();
}
