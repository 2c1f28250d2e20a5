import type { HistoryEntry } from '../core/job.js';
import type { Journal, JournalBatch, JournalCommitObserver, JournalJob } from './journal.js';

export interface JournalWriterOptions {
  /** This process's name, recorded as the pusher of the jobs it inserts. */
  nodeId: string;
  /** How long asynchronous entries (reserve, retry, release, history) may wait to be batched. @defaultValue 20 ms */
  asyncFlushMs: number;
  /** Asynchronous entries kept for a retry after the journal failed; beyond this they are dropped (logged). */
  maxPendingAsync: number;
  onError(err: unknown, droppedAsync: number): void;
}

interface Waiter {
  resolve(created: Set<string>): void;
  reject(err: unknown): void;
  /** Ids this caller inserted; it is told which of them the batch created. */
  insertIds: readonly string[];
}

/** `queuedAt`: performance.now() when the entry was handed over (the start of its write lag). */
type Item =
  | { kind: 'insert'; job: JournalJob; durable: boolean; queuedAt: number }
  | { kind: 'upsert'; job: JournalJob; force: boolean; durable: boolean; queuedAt: number }
  | { kind: 'history'; entry: HistoryEntry & { jobId: string }; durable: boolean };

/**
 * Group commit for the journal. Callers that need durability (push, cancel, finish, bury) await their
 * entries; everything queued in the same turn of the event loop, or while the previous batch was being
 * written, goes out together as one transaction of multi-row statements. Asynchronous entries (live
 * transitions and history) wait up to `asyncFlushMs` for company and are retried if the journal fails.
 * One writer per process keeps this process's entries in order.
 */
export class JournalWriter {
  private readonly journal: Journal;
  private readonly options: JournalWriterOptions;
  private items: Item[] = [];
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly observers = new Set<JournalCommitObserver>();

  constructor(journal: Journal, options: JournalWriterOptions) {
    this.journal = journal;
    this.options = options;
  }

  /** Entries waiting to be written. */
  get pending(): number {
    return this.items.length;
  }

  /** Durable insert-if-absent of new jobs; resolves with the ids that were created by this call. */
  insert(
    jobs: readonly JournalJob[],
    history: readonly (HistoryEntry & { jobId: string })[] = [],
  ): Promise<Set<string>> {
    const queuedAt = performance.now();
    for (const job of jobs) this.items.push({ kind: 'insert', job, durable: true, queuedAt });
    for (const entry of history) this.items.push({ kind: 'history', entry, durable: true });
    return this.waitForFlush(jobs.map((j) => j.id));
  }

  /** Upserts jobs after a transition, with their history; durable ones resolve once committed. */
  upsert(
    jobs: readonly JournalJob[],
    history: readonly (HistoryEntry & { jobId: string })[],
    options: { force: boolean; durable: boolean },
  ): Promise<void> {
    const queuedAt = performance.now();
    for (const job of jobs)
      this.items.push({ kind: 'upsert', job, force: options.force, durable: options.durable, queuedAt });
    for (const entry of history) this.items.push({ kind: 'history', entry, durable: options.durable });
    if (options.durable) return this.waitForFlush([]).then(() => undefined);
    this.scheduleAsync();
    return Promise.resolve();
  }

  history(entries: readonly (HistoryEntry & { jobId: string })[], durable = false): Promise<void> {
    return this.upsert([], entries, { force: false, durable });
  }

  /** Hears of every job row committed, with its write lag; answers the unsubscribe function. */
  observeCommits(observer: JournalCommitObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Writes everything queued now (reads that must see the journal call this first). */
  async flush(): Promise<void> {
    while (this.items.length || this.flushing) {
      if (this.flushing) await this.flushing;
      else await this.startFlush();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    await this.flush().catch(() => undefined);
  }

  private waitForFlush(insertIds: readonly string[]): Promise<Set<string>> {
    return new Promise<Set<string>>((resolve, reject) => {
      this.waiters.push({ resolve, reject, insertIds });
      if (!this.flushing && !this.immediate) this.immediate = setImmediate(() => void this.startFlush());
    });
  }

  private scheduleAsync(): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => void this.startFlush(), this.options.asyncFlushMs);
  }

  private startFlush(): Promise<void> {
    if (this.flushing) return this.flushing;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    const items = this.items;
    const waiters = this.waiters;
    this.items = [];
    this.waiters = [];
    if (!items.length && !waiters.length) return Promise.resolve();
    this.flushing = this.writeBatch(items, waiters).finally(() => {
      this.flushing = undefined;
      // Whatever arrived meanwhile goes next: durable waiters at once, async ones after their delay.
      if (this.waiters.length) void this.startFlush();
      else if (this.items.length) this.scheduleAsync();
    });
    return this.flushing;
  }

  private reportCommit(items: readonly Item[]): void {
    const committedAt = performance.now();
    for (const item of items) {
      if (item.kind === 'history') continue;
      for (const observer of this.observers) observer(committedAt - item.queuedAt, item.durable);
    }
  }

  private async writeBatch(items: Item[], waiters: Waiter[]): Promise<void> {
    const batch: JournalBatch = { inserts: [], upserts: [], history: [], pushedBy: this.options.nodeId };
    const inserted = new Set<string>();
    const upserts = new Map<string, { job: JournalJob; force: boolean }>();
    for (const item of items) {
      if (item.kind === 'insert') {
        // Two pushes of one id in one batch: the first one inserts, the second is a duplicate.
        if (!inserted.has(item.job.id)) batch.inserts.push(item.job);
        inserted.add(item.job.id);
      } else if (item.kind === 'upsert') {
        // The last state of a job wins; forced if any of its upserts was (a terminal step happened).
        const prior = upserts.get(item.job.id);
        upserts.delete(item.job.id);
        upserts.set(item.job.id, { job: item.job, force: item.force || (prior?.force ?? false) });
      } else batch.history.push(item.entry);
    }
    batch.upserts = [...upserts.values()];
    try {
      const created = await this.journal.write(batch);
      if (this.observers.size) this.reportCommit(items);
      const claimed = new Set<string>();
      for (const waiter of waiters) {
        const mine = new Set<string>();
        for (const id of waiter.insertIds) {
          if (created.has(id) && !claimed.has(id)) mine.add(id);
          claimed.add(id);
        }
        waiter.resolve(mine);
      }
    } catch (err) {
      for (const waiter of waiters) waiter.reject(err);
      // Durable callers got the error; asynchronous entries are kept for the next attempt, within a bound.
      const retry = items.filter((i) => !i.durable);
      const room = Math.max(0, this.options.maxPendingAsync - this.items.length);
      this.items = [...retry.slice(0, room), ...this.items];
      this.options.onError(err, Math.max(0, retry.length - room));
    }
  }
}
