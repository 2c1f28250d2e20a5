import type { HistoryEntry } from '../../core/job.js';
import type { Journal, JournalBatch, JournalCommitObserver, JournalJob } from '../journal.js';

export interface JournalWriterOptions {
  /** This process's name, recorded as the pusher of the jobs it inserts. */
  nodeId: string;
  /** How long asynchronous entries (reserve, retry, release, history) may wait to be batched, ms. */
  asyncFlushMs: number;
  /** Asynchronous entries kept for a retry after the journal failed; beyond this they are dropped (logged). */
  maxPendingAsync: number;
  /** Batches written at once, each in its own transaction on its own connection. */
  maxBatchesInFlight: number;
  onError(err: unknown, droppedAsync: number): void;
}

/** What a durable caller is told once its batch committed. */
interface Answer {
  /** Those of its inserts the batch created. */
  created: Set<string>;
  /** Its guarded upserts the batch wrote, with each row's token after the write; null: the journal does not say. */
  claimed: Map<string, string | null> | null;
}

interface Waiter {
  resolve(answer: Answer): void;
  reject(err: unknown): void;
  /** Ids this caller inserted; it is told which of them the batch created. */
  insertIds: readonly string[];
}

/** One call's entries: they go out together, in one batch, so its caller is answered by one commit. */
interface Group {
  inserts: readonly JournalJob[];
  upserts: readonly { job: JournalJob; force: boolean }[];
  history: readonly (HistoryEntry & { jobId: string })[];
  durable: boolean;
  waiter: Waiter | undefined;
  /** performance.now() when the group was handed over (the start of its write lag). */
  queuedAt: number;
}

/**
 * Group commit for the journal. Callers that need durability (push, cancel, finish, bury) await their
 * entries; everything queued in the same turn of the event loop goes out together as one batch (one
 * transaction of multi-row statements). Up to `maxBatchesInFlight` batches are written at once, so a
 * commit's wait for the disk overlaps the next batch instead of holding every caller behind it.
 * Order per job is kept: entries of a job that is in a batch still being written wait for the next batch,
 * and a batch never holds both the insert and an upsert of one job. Asynchronous entries (live transitions
 * and history) wait up to `asyncFlushMs` for company and are retried if the journal fails.
 */
export class JournalWriter {
  private readonly journal: Journal;
  private readonly options: JournalWriterOptions;
  private groups: Group[] = [];
  /** Job ids of the batches being written, with how many of those batches hold each. */
  private readonly busyIds = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly observers = new Set<JournalCommitObserver>();

  constructor(journal: Journal, options: JournalWriterOptions) {
    this.journal = journal;
    this.options = options;
  }

  /** Entries waiting to be written (not counting the batches being written). */
  get pending(): number {
    let n = 0;
    for (const g of this.groups) n += g.inserts.length + g.upserts.length + g.history.length;
    return n;
  }

  /** Durable insert-if-absent of new jobs; resolves with the ids that were created by this call. */
  insert(
    jobs: readonly JournalJob[],
    history: readonly (HistoryEntry & { jobId: string })[] = [],
  ): Promise<Set<string>> {
    return new Promise<Set<string>>((resolve, reject) => {
      const waiter = { resolve: (a: Answer) => resolve(a.created), reject, insertIds: jobs.map((j) => j.id) };
      this.groups.push({ inserts: jobs, upserts: [], history, durable: true, waiter, queuedAt: performance.now() });
      this.scheduleDurable();
    });
  }

  /** Upserts jobs after a transition, with their history; durable ones resolve once committed. */
  upsert(
    jobs: readonly JournalJob[],
    history: readonly (HistoryEntry & { jobId: string })[],
    options: { force: boolean; durable: boolean },
  ): Promise<void> {
    const upserts = jobs.map((job) => ({ job, force: options.force }));
    if (!options.durable) {
      this.groups.push({
        inserts: [],
        upserts,
        history,
        durable: false,
        waiter: undefined,
        queuedAt: performance.now(),
      });
      this.scheduleAsync();
      return Promise.resolve();
    }
    return this.durableUpsert(upserts, history).then(() => undefined);
  }

  /**
   * A durable guarded upsert of reservations (reservation-claims.ts): resolves with the token each job's row holds
   * as the batch wrote it, for the jobs it wrote (one the guard refused is absent), or null where the journal does
   * not report its writes (the caller reads the rows back).
   */
  async claim(
    jobs: readonly JournalJob[],
    history: readonly (HistoryEntry & { jobId: string })[],
  ): Promise<Map<string, string | null> | null> {
    const { claimed } = await this.durableUpsert(
      jobs.map((job) => ({ job, force: false })),
      history,
    );
    if (!claimed) return null;
    const mine = new Map<string, string | null>();
    for (const job of jobs) if (claimed.has(job.id)) mine.set(job.id, claimed.get(job.id)!);
    return mine;
  }

  private durableUpsert(
    upserts: Group['upserts'],
    history: readonly (HistoryEntry & { jobId: string })[],
  ): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const waiter = { resolve, reject, insertIds: [] };
      this.groups.push({ inserts: [], upserts, history, durable: true, waiter, queuedAt: performance.now() });
      this.scheduleDurable();
    });
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
    while (this.groups.length || this.inFlight.size) {
      this.startBatches();
      if (this.inFlight.size) await Promise.race(this.inFlight);
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    await this.flush().catch(() => undefined);
  }

  private scheduleDurable(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = undefined;
      this.startBatches();
    });
  }

  private scheduleAsync(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.startBatches();
    }, this.options.asyncFlushMs);
  }

  /** Starts batches while there is room and something can go; durable groups first decide that it is time. */
  private startBatches(): void {
    while (this.inFlight.size < this.options.maxBatchesInFlight && this.groups.length) {
      const groups = this.takeBatch();
      if (!groups.length) break;
      const ids = idsOf(groups);
      for (const id of ids) this.busyIds.set(id, (this.busyIds.get(id) ?? 0) + 1);
      const written: Promise<void> = this.writeBatch(groups).finally(() => {
        this.inFlight.delete(written);
        for (const id of ids) {
          const n = this.busyIds.get(id)! - 1;
          if (n) this.busyIds.set(id, n);
          else this.busyIds.delete(id);
        }
        // What waited for these ids, or arrived meanwhile: durable groups at once, async ones after their delay.
        if (this.groups.some((g) => g.durable)) this.scheduleDurable();
        else if (this.groups.length) this.scheduleAsync();
      });
      this.inFlight.add(written);
    }
    if (!this.groups.length) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Takes the queued groups that may go now, in order; a group touching a job still being written (or kept back) waits. */
  private takeBatch(): Group[] {
    const taken: Group[] = [];
    const kept: Group[] = [];
    const keptIds = new Set<string>();
    const insertIds = new Set<string>();
    const upsertIds = new Set<string>();
    for (const g of this.groups) {
      const ids = idsOf([g]);
      const blocked =
        ids.some((id) => this.busyIds.has(id) || keptIds.has(id)) ||
        g.inserts.some((j) => upsertIds.has(j.id)) ||
        g.upserts.some((u) => insertIds.has(u.job.id));
      if (blocked) {
        kept.push(g);
        for (const id of ids) keptIds.add(id);
        continue;
      }
      taken.push(g);
      for (const j of g.inserts) insertIds.add(j.id);
      for (const u of g.upserts) upsertIds.add(u.job.id);
    }
    this.groups = kept;
    return taken;
  }

  private reportCommit(groups: readonly Group[]): void {
    const committedAt = performance.now();
    for (const g of groups) {
      const rows = g.inserts.length + g.upserts.length;
      for (let i = 0; i < rows; i++) {
        for (const observer of this.observers) observer(committedAt - g.queuedAt, g.durable);
      }
    }
  }

  private async writeBatch(groups: Group[]): Promise<void> {
    const batch: JournalBatch = { inserts: [], upserts: [], history: [], pushedBy: this.options.nodeId };
    const inserted = new Set<string>();
    const upserts = new Map<string, { job: JournalJob; force: boolean }>();
    for (const g of groups) {
      for (const job of g.inserts) {
        // Two pushes of one id in one batch: the first one inserts, the second is a duplicate.
        if (!inserted.has(job.id)) batch.inserts.push(job);
        inserted.add(job.id);
      }
      for (const u of g.upserts) {
        // The last state of a job wins; forced if any of its upserts was (a terminal step happened).
        const prior = upserts.get(u.job.id);
        upserts.delete(u.job.id);
        upserts.set(u.job.id, { job: u.job, force: u.force || (prior?.force ?? false) });
      }
      for (const h of g.history) batch.history.push(h);
    }
    batch.upserts = [...upserts.values()];
    try {
      const { created, claimed } = await this.journal.write(batch);
      if (this.observers.size) this.reportCommit(groups);
      const told = new Set<string>();
      for (const g of groups) {
        if (!g.waiter) continue;
        const mine = new Set<string>();
        for (const id of g.waiter.insertIds) {
          if (created.has(id) && !told.has(id)) mine.add(id);
          told.add(id);
        }
        // The batch's whole report: a caller asks it only about its own ids (claim).
        g.waiter.resolve({ created: mine, claimed });
      }
    } catch (err) {
      for (const g of groups) g.waiter?.reject(err);
      // Durable callers got the error; asynchronous entries are kept for the next attempt, within a bound.
      const retry = groups.filter((g) => !g.durable);
      let room = Math.max(0, this.options.maxPendingAsync - this.pending);
      let dropped = 0;
      const kept: Group[] = [];
      for (const g of retry) {
        const size = g.upserts.length + g.history.length;
        if (size <= room) {
          kept.push(g);
          room -= size;
        } else dropped += size;
      }
      this.groups = [...kept, ...this.groups];
      this.options.onError(err, dropped);
    }
  }
}

function idsOf(groups: readonly Group[]): string[] {
  const ids: string[] = [];
  for (const g of groups) {
    for (const j of g.inserts) ids.push(j.id);
    for (const u of g.upserts) ids.push(u.job.id);
    for (const h of g.history) ids.push(h.jobId);
  }
  return ids;
}
