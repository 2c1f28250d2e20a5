/**
 * observeStore(store, events, clock): the same store, every method call timed ('storeCall') and every
 * transition it reports turned into a service event ('job'). A Proxy, so whatever else the store offers
 * (the journal's restore and status…) passes through, and so do its capabilities.
 */
import type { Clock, EpochMs } from '../core/clock.js';
import type { HistoryEvent, Job } from '../core/job.js';
import { UNKNOWN_TOPIC, type ServiceEvents } from './service-events.js';
import type { JournalOperations } from '../journal/journal.js';
import type { Outcome, Store } from '../store/store.js';

type AnyMethod = (...args: unknown[]) => unknown;

/** What a call may be observed on: the Store, and the journal's operations on a journaled store. */
type Observed = Store & JournalOperations;
type MethodName = {
  [K in keyof Observed]-?: Observed[K] extends (...args: never[]) => unknown ? K : never;
}[keyof Observed];
type ArgsOf<K extends MethodName> = Observed[K] extends (...args: infer A) => unknown ? A : never;
type ResultOf<K extends MethodName> = Observed[K] extends (...args: never[]) => infer R ? Awaited<R> : never;

/** How one method's call becomes service events, typed from the method itself: a reordered parameter fails to compile. */
type Reporter<K extends MethodName> = (
  events: ServiceEvents,
  args: ArgsOf<K>,
  result: ResultOf<K>,
  store: Store,
  clock: Clock,
) => void | Promise<void>;

/** The service event of one transition's outcome; a refusal or a repeated call has none. */
function reportOutcome(
  events: ServiceEvents,
  event: HistoryEvent,
  outcome: Outcome<Job | { job: Job }>,
  at: EpochMs,
  cancelReason?: string,
): void {
  if (!outcome.ok || outcome.repeated) return;
  // cancel answers { job, dispatched } and was given its reason, reserveJob a reservation; the others the job.
  const job = 'job' in outcome.value ? outcome.value.job : outcome.value;
  const error = event === 'cancel' ? (cancelReason ?? null) : job.lastError;
  events.job({ event, topic: job.topic, id: job.id, at, dueAt: job.runAt, error });
}

const REPORTERS: { [K in MethodName]?: Reporter<K> } = {
  pushMany(events, [, now], result) {
    for (const { created, change, job } of result) {
      if (created) events.job({ event: 'push', topic: job.topic, id: job.id, at: now, dueAt: job.runAt });
      else if (change) {
        const event = change === 'replaced' ? 'replace' : 'extend';
        events.job({ event, topic: job.topic, id: job.id, at: now, dueAt: job.runAt });
      }
    }
  },
  cancel: (events, [, now, params], result) => reportOutcome(events, 'cancel', result, now, params?.reason),
  finish: (events, [, , now], result) => reportOutcome(events, 'finish', result, now),
  finishMany(events, [, now], result) {
    for (const outcome of result) reportOutcome(events, 'finish', outcome, now);
  },
  retry: (events, [, , now], result) => reportOutcome(events, 'retry', result, now),
  bury: (events, [, , now], result) => reportOutcome(events, 'bury', result, now),
  release: (events, [, , now], result) => reportOutcome(events, 'release', result, now),
  reserveJob: (events, [, now], result) => reportOutcome(events, 'reserve', result, now),
  runNow(events, [, now], result) {
    if (!result.ok) return;
    const job = result.value;
    events.job({ event: 'promote', topic: job.topic, id: job.id, at: now, dueAt: job.runAt });
  },
  reserve(events, [, , now], { reservations, expired }) {
    // The expiries reserve met on the way are the same transition as the timer's expireDue.
    for (const { id, topic } of expired) events.job({ event: 'expire', topic, id, at: now });
    for (const { job } of reservations) {
      events.job({ event: 'reserve', topic: job.topic, id: job.id, at: now, dueAt: job.runAt, readyAt: job.readyAt });
    }
  },
  promoteDue(events, [now], { count, topics }) {
    if (count === 0) return;
    // One topic: the count is its own. Several (a store that does not split the count): not attributable.
    events.job({ event: 'promote', topic: topics.length === 1 ? topics[0]! : UNKNOWN_TOPIC, count, at: now });
  },
  expireDue(events, [at], expired) {
    for (const { id, topic } of expired) events.job({ event: 'expire', topic, id, at });
  },
  bulk(events, [request, at], result) {
    if (request.action.kind !== 'cancel') return;
    const error = request.action.reason ?? 'bulk cancel';
    for (const { id, topic } of result.cancelled) events.job({ event: 'cancel', topic, id, at, error });
  },
  async redrive(events, [target, now], count, store) {
    if (count === 0) return;
    if ('topic' in target) return events.job({ event: 'redrive', topic: target.topic, count, at: now });
    // By ids: the store answers a count only; the redriven jobs are the ones now ready since `now`.
    const jobs = await Promise.all(target.ids.map((id) => store.get(id)));
    for (const job of jobs) {
      if (job && job.state === 'ready' && job.readyAt === now)
        events.job({ event: 'redrive', topic: job.topic, id: job.id, at: now });
    }
  },
  restore(events, _args, { restored }, _store, clock) {
    if (restored > 0) events.job({ event: 'restore', topic: UNKNOWN_TOPIC, count: restored, at: clock.now() });
  },
  restoreJob(events, [id], { restored }, _store, clock) {
    if (restored > 0) events.job({ event: 'restore', topic: UNKNOWN_TOPIC, id, count: restored, at: clock.now() });
  },
};

/** The reporter of a method called by name through the Proxy: its arguments and result are that method's own. */
function reporterOf(operation: string): Reporter<MethodName> | undefined {
  return (REPORTERS as Record<string, Reporter<MethodName> | undefined>)[operation];
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
  const report = reporterOf(operation);
  const reported = (value: unknown, args: unknown[]): unknown => {
    if (report === undefined || events.listenerCount('job') === 0) return value;
    try {
      const pending = report(events, args as ArgsOf<MethodName>, value as ResultOf<MethodName>, target, clock);
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
