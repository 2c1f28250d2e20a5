// What every system under test offers the scenarios: push jobs due at given instants, consume them with a
// given concurrency, report its memory. Each implementation uses its system the way its docs recommend.

/** ≈ 100 bytes of JSON: the due instant (so any consumer can compute lateness) padded with filler. */
export const BODY_BYTES = 100;
export function bodyFor(dueAt: number): { d: number; p: string } {
  // The padding depends only on how many digits dueAt has: made once, so the benchmark's own work per
  // job stays small next to the systems' (it runs in the same process as every client).
  const digits = String(dueAt).length;
  let p = paddings.get(digits);
  if (p === undefined) {
    p = 'x'.repeat(Math.max(0, BODY_BYTES - JSON.stringify({ d: dueAt, p: '' }).length));
    paddings.set(digits, p);
  }
  return { d: dueAt, p };
}
const paddings = new Map<number, string>();

export interface Consumer {
  /** Stops taking jobs; resolves when the consumer's connections are closed. */
  stop(): Promise<void>;
}

/** When the server made a job ready and reserved it (epoch ms), where its consumer sees them (over HTTP). */
export interface ServerTimes {
  readyAt: number | null;
  reservedAt: number | null;
}

/** Called once per delivered job, at delivery, with the instant the job was due (and the server's times, if seen). */
export type OnJob = (dueAt: number, times?: ServerTimes) => void;

export interface Subject {
  /** Row label, e.g. "delayq · Redis". */
  readonly name: string;
  readonly family: 'delayq' | 'bullmq' | 'beanstalkd';
  /** Smallest delay step the system honours: 1 ms, or 1000 ms for beanstalkd's whole seconds. */
  readonly resolutionMs: number;
  /** A note for the results (settings that matter, e.g. Redis hz). */
  readonly note?: string;
  /** Connects and starts from empty (a flushed Redis, a fresh server or file, a new SQL schema). */
  open(): Promise<void>;
  close(): Promise<void>;
  /** One job due at `dueAt` (epoch ms); resolves when the system acknowledged it. */
  push(dueAt: number): Promise<void>;
  /** Many jobs in one call of the system's bulk API, when it has one. */
  pushBulk?(dueAts: readonly number[]): Promise<void>;
  /**
   * `count` single pushes due at `dueAt`, `inFlight` outstanding, from a client process of its own (another
   * language); resolves with the seconds they took in that client, its start-up left out.
   */
  readonly pushMany?: ((count: number, inFlight: number, dueAt: number) => Promise<number>) | undefined;
  /** CPU used so far by client processes of the subject's own (pushMany's), ms. */
  clientCpuMs?(): number;
  /** Redis's CPU so far, ms, where the server is a process of its own beside Redis (over HTTP). */
  redisCpuMs?(): Promise<number | undefined>;
  /** Reserve requests the subject's consumers have sent so far (over HTTP). */
  reserveRequests?(): number;
  /** Bytes the system holds now: Redis used_memory, or the server's RSS. Undefined when not comparable. */
  memoryBytes(): Promise<number | undefined>;
  /** What memoryBytes measures, for the table. */
  readonly memoryKind: string;
  /** CPU time the server process has used so far, ms (Redis INFO cpu, /proc for beanstalkd); undefined in-process. */
  serverCpuMs(): Promise<number | undefined>;
  /** Redis commands run so far by name (INFO commandstats), for Redis-based systems. */
  commandCalls?(): Promise<Map<string, { calls: number; usec: number }>>;
  consume(concurrency: number, onJob: OnJob): Promise<Consumer>;
}
