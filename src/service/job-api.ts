/**
 * The job API of issue 23 on the service (docs/job-api.md): finish with a result, fail with a structured
 * error, outcomes on reads, retention per job or topic, bulk operations by selector, and the due-time
 * and reserved listings. DelayqService owns one (`service.jobApi`) and hands it its guard and wake-ups.
 */
import type { EpochMs } from '../core/clock.js';
import { invalid } from '../core/errors.js';
import { delayIn, validateJobId, validateTopic, type PushInput } from '../core/job-input.js';
import {
  normalizeError,
  normalizeResult,
  normalizeRetention,
  type ErrorInput,
  type JobError,
  type JobOutcome,
  type Retention,
  type RetentionInput,
} from '../core/job-outcome.js';
import { normalizeSelector, type SelectorInput } from '../core/job-selector.js';
import { LIMITS } from '../core/limits.js';
import type { BulkAction, BulkResult } from '../store/bulk.js';
import type { DuePage, ReservedPage } from '../store/listings.js';
import type { PushResult, Store } from '../store/store.js';

/** What the job API needs of DelayqService. */
export interface JobApiHost {
  readonly store: Store;
  now(): EpochMs;
  /** The service's guard: refused while closing, tracked for graceful close. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  pushBatch(inputs: readonly PushInput[]): Promise<PushResult[]>;
  /** Wakes consumers of these topics (every waiting one when none is named) and the timer. */
  moved(topics: readonly string[], earliestDueAt: EpochMs | null): void;
}

export type PushWithRetention = PushInput & { retention?: RetentionInput | undefined };

export interface BulkInput {
  action: 'cancel' | 'reschedule' | 'redrive' | 'delete';
  selector: SelectorInput;
  /** reschedule: a new due time (epoch ms) … */
  runAt?: number | undefined;
  /** … or a shift of each job's due time (ms or a duration text; negative: earlier, in ms). */
  shiftMs?: number | string | undefined;
  /** cancel: the reason kept in each job's history. */
  reason?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  dryRun?: boolean | undefined;
}

const CURSOR_RE = /^-?\d{1,16}:[A-Za-z0-9._:@+=-]{1,128}$/;

export class JobApi {
  private readonly host: JobApiHost;
  private readonly byTopic: ReadonlyMap<string, Retention>;
  /** The bulk slice running in this process: concurrent bulk calls take turns (see bulk). */
  private bulkRunning: Promise<unknown> = Promise.resolve();

  constructor(host: JobApiHost, retentionByTopic: Readonly<Record<string, RetentionInput>> = {}) {
    this.host = host;
    this.byTopic = new Map(
      Object.entries(retentionByTopic).flatMap(([topic, input]) => {
        const retention = normalizeRetention(input, `jobs.retentionByTopic.${topic}`);
        return retention ? [[topic, retention] as const] : [];
      }),
    );
  }

  /** Keeps a finish's result (the finish follows; a refused one is explained by the finish's refusal); its JSON text. */
  async recordResult(id: string, token: string, result: unknown): Promise<string | null> {
    const text = normalizeResult(result);
    await this.host.store.recordOutcome(id, token, { result: text, error: null }, this.host.now());
    return text;
  }

  /** Keeps a fail's error (text or structured) and answers it (its message becomes the job's lastError). */
  async recordError(id: string, token: string, input: ErrorInput | undefined): Promise<JobError | null> {
    const error = normalizeError(input);
    if (error !== null) await this.host.store.recordOutcome(id, token, { result: null, error }, this.host.now());
    return error;
  }

  /** The outcome kept with a job, if any. */
  outcomeOf(id: string): Promise<JobOutcome | null> {
    return this.host.run(() => this.host.store.outcomeOf(validateJobId(id)));
  }

  /** Whether a push needs pushBatch here: it names a retention, or its topic has one configured. */
  retains(input: PushWithRetention): boolean {
    return input.retention !== undefined || this.byTopic.has(input.topic);
  }

  /** Pushes jobs, then gives each its retention: its own, else its topic's (jobs.retentionByTopic). */
  async pushBatch(inputs: readonly PushWithRetention[]): Promise<PushResult[]> {
    const own = inputs.map((input, i) =>
      normalizeRetention(input.retention, inputs.length > 1 ? `jobs[${i}].retention` : 'retention'),
    );
    const results = await this.host.pushBatch(inputs.map(({ retention: _, ...input }) => input));
    const groups = new Map<string, { retention: Retention; ids: string[] }>();
    results.forEach((r, i) => {
      const retention = own[i] ?? this.byTopic.get(r.job.topic);
      if (!r.created || !retention) return;
      const key = `${retention.finishedMs},${retention.deadMs}`;
      const group = groups.get(key) ?? { retention, ids: [] };
      group.ids.push(r.job.id);
      groups.set(key, group);
    });
    if (groups.size === 0) return results;
    const now = this.host.now();
    await this.host.run(() =>
      Promise.all([...groups.values()].map((g) => this.host.store.setRetentionMany(g.ids, g.retention, now))),
    );
    return results;
  }

  /** One bounded slice of a bulk operation; the answer's `next` continues it. */
  bulk(input: BulkInput): Promise<Omit<BulkResult, 'cancelled'>> {
    return this.host.run(async () => {
      const now = this.host.now();
      const action = this.actionOf(input, now);
      const selector = normalizeSelector(input.selector);
      const limit = input.limit ?? LIMITS.bulkMaxPerCall;
      if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.bulkMaxPerCall)
        throw invalid('limit', `must be an integer from 1 to ${LIMITS.bulkMaxPerCall}`);
      if (input.cursor !== undefined) validateJobId(input.cursor, 'cursor');
      // One slice at a time per process: each slice already keeps one chunk in the store at once
      // (store/bulk-by-selector.ts), and callers running side by side would multiply that.
      const run = this.bulkRunning.then(() =>
        this.host.store.bulk(
          { action, selector, limit, cursor: input.cursor ?? null, dryRun: input.dryRun ?? false },
          this.host.now(),
        ),
      );
      this.bulkRunning = run.catch(() => undefined);
      const result = await run;
      if (result.applied > 0 && (action.kind === 'redrive' || action.kind === 'reschedule' || action.kind === 'shift'))
        // Where the moved jobs went is not known per job: wake the timer, and the selector's topic's consumers.
        this.host.moved(selector.topic === null ? [] : [selector.topic], now);
      // The cancelled jobs' refs are for their events (observe/observed-store.ts), not for the answer.
      return { matched: result.matched, applied: result.applied, next: result.next };
    });
  }

  private actionOf(input: BulkInput, now: EpochMs): BulkAction {
    switch (input.action) {
      case 'cancel':
        if (input.reason !== undefined && input.reason.length > LIMITS.errorMaxLength)
          throw invalid('reason', `at most ${LIMITS.errorMaxLength} characters`);
        return { kind: 'cancel', reason: input.reason ?? null };
      case 'reschedule': {
        if ((input.runAt === undefined) === (input.shiftMs === undefined))
          throw invalid('runAt', 'give either runAt or shiftMs');
        if (input.runAt !== undefined) {
          if (!Number.isSafeInteger(input.runAt) || input.runAt > now + LIMITS.maxDelayMs)
            throw invalid('runAt', 'must be epoch ms at most 10 years ahead');
          return { kind: 'reschedule', runAt: input.runAt };
        }
        const shift = input.shiftMs!;
        const shiftMs = typeof shift === 'number' ? shift : delayIn(shift, 'shiftMs');
        if (!Number.isSafeInteger(shiftMs) || Math.abs(shiftMs) > LIMITS.maxDelayMs)
          throw invalid('shiftMs', 'must be ms (or a duration text) of at most 10 years either way');
        return { kind: 'shift', shiftMs };
      }
      case 'redrive':
        return { kind: 'redrive' };
      case 'delete':
        return { kind: 'delete' };
      default:
        throw invalid('action', 'must be cancel, reschedule, redrive or delete');
    }
  }

  /** Delayed jobs due in [from, to) (default: from now, 10 years), next to fire first. */
  listDue(query: { topic?: string; from?: number; to?: number; limit?: number; cursor?: string }): Promise<DuePage> {
    return this.host.run(() => {
      const from = query.from ?? 0;
      const to = query.to ?? this.host.now() + LIMITS.maxDelayMs;
      if (from >= to) throw invalid('to', 'must be after from');
      return this.host.store.listDue({
        topic: query.topic === undefined ? undefined : validateTopic(query.topic, 'topic'),
        from,
        to,
        limit: this.pageSize(query.limit),
        cursor: this.cursor(query.cursor),
      });
    });
  }

  /** Reserved jobs, earliest deadline first, with the node holding each. */
  listReserved(query: { topic?: string; limit?: number; cursor?: string }): Promise<ReservedPage> {
    return this.host.run(() =>
      this.host.store.listReserved({
        topic: query.topic === undefined ? undefined : validateTopic(query.topic, 'topic'),
        limit: this.pageSize(query.limit),
        cursor: this.cursor(query.cursor),
      }),
    );
  }

  private pageSize(limit: number | undefined): number {
    const n = limit ?? 100;
    if (!Number.isInteger(n) || n < 1 || n > LIMITS.listingMaxPage)
      throw invalid('limit', `must be an integer from 1 to ${LIMITS.listingMaxPage}`);
    return n;
  }

  private cursor(cursor: string | undefined): string | undefined {
    if (cursor !== undefined && !CURSOR_RE.test(cursor))
      throw invalid('cursor', 'must be a cursor from a previous page');
    return cursor;
  }
}
