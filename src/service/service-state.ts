import { DelayqError } from '../core/errors.js';

export type ServicePhase = 'new' | 'open' | 'closing' | 'closed';

/**
 * The service's phase and its calls in flight: every public operation runs through `run`, which refuses it
 * unless the service is open, and `close` waits for what was admitted, so a graceful close loses nothing.
 */
export class ServiceState {
  private current: ServicePhase = 'new';
  /** Admitted calls not yet settled; `close` waits for the count to reach 0. */
  private inFlight = 0;
  /** What every caller of `closing` waits on while calls are in flight, and its resolver. */
  private idle: { promise: Promise<void>; resolve(): void } | undefined;
  /** One pair of callbacks for every call (no closure per call). */
  private readonly settled = (): void => {
    if (--this.inFlight > 0 || !this.idle) return;
    this.idle.resolve();
    this.idle = undefined;
  };

  get phase(): ServicePhase {
    return this.current;
  }

  get isOpen(): boolean {
    return this.current === 'open';
  }

  opened(): void {
    this.current = 'open';
  }

  /** Refuses new calls from now on; resolves when every admitted call has settled. */
  closing(): Promise<void> {
    this.current = 'closing';
    if (this.inFlight === 0) return Promise.resolve();
    if (!this.idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }

  closed(): void {
    this.current = 'closed';
  }

  /** Runs `operation` if the service is open (else E_SHUTTING_DOWN), tracked until it settles. */
  run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.current !== 'open') {
      return Promise.reject(
        new DelayqError(
          'E_SHUTTING_DOWN',
          this.current === 'new' ? 'the service has not started' : 'the service is shutting down',
        ),
      );
    }
    let promise: Promise<T>;
    try {
      promise = operation();
    } catch (err) {
      // A refusal thrown before the operation's first await is a rejection too, as for every other call.
      return Promise.reject(err as Error);
    }
    this.inFlight++;
    // Both outcomes count it out, and no derived promise is left to reject unhandled.
    promise.then(this.settled, this.settled);
    return promise;
  }
}
