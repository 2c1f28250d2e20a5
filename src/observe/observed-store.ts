/**
 * observeStore(store, events, clock): the same store, every method call timed ('storeCall') and every
 * transition it reports turned into a service event ('job'). A Proxy, so whatever else the store offers
 * (the journal's restore and status…) passes through, and so do its capabilities.
 */
import type { Clock, EpochMs } from '../core/clock.js';
import type { Job } from '../core/job.js';
import { UNKNOWN_TOPIC, type ServiceEvents, type ServiceJobEventName } from '../service/service-events.js';
import type { BulkRequest, BulkResult } from '../store/bulk.js';
import type {
  JobRef,
  Outcome,
  PromoteResult,
  PushResult,
  RedriveTarget,
  ReserveResult,
  Store,
} from '../store/store.js';

type AnyMethod = (...args: unknown[]) => unknown;

/** Store methods whose results carry transitions, with how each becomes events. */
type Reporter = (
  events: ServiceEvents,
  args: unknown[],
  result: unknown,
  store: Store,
  clock: Clock,
) => void | Promise<void>;

/** The service event of one transition's outcome; a refusal or a repeated call has none. */
function reportOutcome(
  events: ServiceEvents,
  event: ServiceJobEventName,
  result: unknown,
  at: EpochMs,
  cancelReason?: unknown,
): void {
  const outcome = result as Outcome<Job | { job: Job }>;
  if (!outcome.ok || outcome.repeated) return;
  // cancel answers { job, dispatched } and was given its reason; the other transitions the job itself.
  const job = 'job' in outcome.value ? outcome.value.job : outcome.value;
  const error = event === 'cancel' ? ((cancelReason as string | undefined) ?? null) : job.lastError;
  events.job({ event, topic: job.topic, id: job.id, at, dueAt: job.runAt, error });
}

const outcomeEvent =
  (event: ServiceJobEventName, nowArg: number): Reporter =>
  (events, args, result) =>
    reportOutcome(events, event, result, args[nowArg] as EpochMs, event === 'cancel' ? args[2] : undefined);

const REPORTERS: Record<string, Reporter> = {
  pushMany(events, args, result) {
    const now = args[1] as EpochMs;
    for (const { created, job } of result as PushResult[]) {
      if (created) events.job({ event: 'push', topic: job.topic, id: job.id, at: now, dueAt: job.runAt });
    }
  },
  cancel: outcomeEvent('cancel', 1),
  finish: outcomeEvent('finish', 2),
  finishMany(events, args, result) {
    for (const outcome of result as unknown[]) reportOutcome(events, 'finish', outcome, args[1] as EpochMs);
  },
  retry: outcomeEvent('retry', 3),
  bury: outcomeEvent('bury', 2),
  release: outcomeEvent('release', 2),
  reserveJob: outcomeEvent('reserve', 1),
  reserve(events, args, result) {
    const now = args[2] as EpochMs;
    const { reservations, expired } = result as ReserveResult;
    // The expiries reserve met on the way are the same transition as the timer's expireDue.
    for (const { id, topic } of expired) events.job({ event: 'expire', topic, id, at: now });
    for (const { job } of reservations) {
      events.job({ event: 'reserve', topic: job.topic, id: job.id, at: now, dueAt: job.runAt, readyAt: job.readyAt });
    }
  },
  promoteDue(events, args, result) {
    const { count, topics } = result as PromoteResult;
    if (count === 0) return;
    // One topic: the count is its own. Several (a store that does not split the count): not attributable.
    events.job({
      event: 'promote',
      topic: topics.length === 1 ? topics[0]! : UNKNOWN_TOPIC,
      count,
      at: args[0] as EpochMs,
    });
  },
  expireDue(events, args, result) {
    const at = args[0] as EpochMs;
    for (const { id, topic } of result as JobRef[]) events.job({ event: 'expire', topic, id, at });
  },
  bulk(events, args, result) {
    const request = args[0] as BulkRequest;
    if (request.action.kind !== 'cancel') return;
    const error = request.action.reason ?? 'bulk cancel';
    const at = args[1] as EpochMs;
    for (const { id, topic } of (result as BulkResult).cancelled) events.job({ event: 'cancel', topic, id, at, error });
  },
  async redrive(events, args, result, store) {
    const count = result as number;
    if (count === 0) return;
    const target = args[0] as RedriveTarget;
    const now = args[1] as EpochMs;
    if ('topic' in target) return events.job({ event: 'redrive', topic: target.topic, count, at: now });
    // By ids: the store answers a count only; the redriven jobs are the ones now ready since `now`.
    const jobs = await Promise.all(target.ids.map((id) => store.get(id)));
    for (const job of jobs) {
      if (job && job.state === 'ready' && job.readyAt === now)
        events.job({ event: 'redrive', topic: job.topic, id: job.id, at: now });
    }
  },
  restore(events, _args, result, _store, clock) {
    const { restored } = result as RestoreSummary;
    if (restored > 0) events.job({ event: 'restore', topic: UNKNOWN_TOPIC, count: restored, at: clock.now() });
  },
  restoreJob(events, args, result, _store, clock) {
    const { restored } = result as RestoreSummary;
    if (restored > 0)
      events.job({ event: 'restore', topic: UNKNOWN_TOPIC, id: args[0] as string, count: restored, at: clock.now() });
  },
};

/** What the journal's restore answers (journal/journal.ts RestoreSummary), as far as events need it. */
interface RestoreSummary {
  restored: number;
}

/** Methods not worth timing (synchronous accessors). */
const UNTIMED = new Set(['status', 'watch', 'observeCommits', 'constructor']);

/** One store call ended: its 'storeCall' event, unless nobody listens. */
function callEnded(events: ServiceEvents, operation: string, started: number, ok: boolean): void {
  if (events.listenerCount('storeCall') === 0) return;
  events.emit('storeCall', { operation, durationMs: performance.now() - started, ok });
}

/**
 * The timed and reported form of one store method. The method is looked up on each call (a store may swap
 * it); the continuation is a plain function, so a call costs the store's own promise and one `then`.
 */
function observedMethod(target: Store, operation: string, events: ServiceEvents, clock: Clock): AnyMethod {
  const report = REPORTERS[operation];
  const reported = (value: unknown, args: unknown[]): unknown => {
    if (report === undefined || events.listenerCount('job') === 0) return value;
    try {
      const pending = report(events, args, value, target, clock);
      // Only redrive by ids reads before it reports; its failure must not fail the call either.
      return pending instanceof Promise
        ? pending.then(
            () => value,
            () => value,
          )
        : value;
    } catch {
      return value; // reporting must never fail the call
    }
  };
  return function observed(...args: unknown[]): unknown {
    const started = performance.now();
    let result: unknown;
    try {
      result = (Reflect.get(target, operation) as AnyMethod).apply(target, args);
    } catch (err) {
      callEnded(events, operation, started, false);
      throw err;
    }
    if (!(result instanceof Promise)) {
      callEnded(events, operation, started, true);
      return result;
    }
    return result.then(
      (value: unknown) => {
        callEnded(events, operation, started, true);
        return reported(value, args);
      },
      (err: unknown) => {
        callEnded(events, operation, started, false);
        throw err;
      },
    );
  };
}

export function observeStore<S extends Store>(store: S, events: ServiceEvents, clock: Clock): S {
  // Each method's wrapper (or bound accessor) is made once, on first use: a property read costs a map lookup.
  const methods = new Map<PropertyKey, AnyMethod>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const known = methods.get(property);
      if (known) return known;
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method =
        typeof property === 'string' && !UNTIMED.has(property)
          ? observedMethod(target, property, events, clock)
          : (value as AnyMethod).bind(target);
      methods.set(property, method);
      return method;
    },
  });
}
