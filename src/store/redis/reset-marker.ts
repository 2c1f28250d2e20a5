import { randomUUID } from 'node:crypto';
import type { EpochMs } from '../../core/clock.js';
import type { StoreNoticeListener } from '../store-notices.js';
import type { RedisClient } from './connection.js';

/** How often a running store looks at its markers (besides at every reconnect). */
export const RESET_CHECK_INTERVAL_MS = 1000;

/**
 * Notices a Redis that came back empty. Each partition (one Cluster slot, so one node) holds a marker key
 * whose value this process remembers: a partition whose marker is gone, or holds another value (written by
 * a process that noticed first), lost its data since. Each write takes a fresh value, so every process on
 * the store notices each loss once. Checked at open, at every reconnect and every RESET_CHECK_INTERVAL_MS.
 * At open, some markers missing while others are there is a partial loss; all missing is taken for a
 * first start (a wipe while no delayq process ran cannot be told from one).
 */
export class ResetMarker {
  /** The markers, one per partition: read when used, as the partition count is known only once the store is open. */
  private readonly keys: () => readonly string[];
  private readonly client: () => RedisClient | undefined;
  private readonly now: () => EpochMs;
  private readonly notices: StoreNoticeListener;
  private readonly afterReset: () => Promise<void>;
  private seen: (string | null)[];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    keys: () => readonly string[],
    client: () => RedisClient | undefined,
    now: () => EpochMs,
    notices: StoreNoticeListener,
    afterReset: () => Promise<void>,
  ) {
    this.keys = keys;
    this.client = client;
    this.now = now;
    this.notices = notices;
    this.afterReset = afterReset;
    this.seen = [];
  }

  /** Reads (or writes, on a first start) every marker; reports a partial loss found at open. */
  async open(client: RedisClient): Promise<void> {
    const values = await Promise.all(this.keys().map((key) => client.get(key)));
    const missing = values.flatMap((v, p) => (v === null ? [p] : []));
    this.seen = await Promise.all(values.map((v, p) => v ?? this.write(client, p)));
    if (missing.length > 0 && missing.length < this.keys().length) await this.reset(missing);
    this.timer = setInterval(() => void this.check().catch(() => undefined), RESET_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look at every marker; concurrent callers share it. Errors (Redis down) reject: the next check retries. */
  check(): Promise<void> {
    this.running ??= this.look().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async look(): Promise<void> {
    const client = this.client();
    if (!client) return;
    const values = await Promise.all(this.keys().map((key) => client.get(key)));
    const lost = values.flatMap((v, p) => (v === this.seen[p] ? [] : [p]));
    for (const p of lost) this.seen[p] = values[p] ?? null;
    // Reported even when writing the markers again fails (the next check writes them, without a second report).
    try {
      for (const [p, v] of values.entries()) if (v === null) this.seen[p] = await this.write(client, p);
      if (lost.length) await this.afterReset();
    } finally {
      if (lost.length) this.notices.onReset({ at: this.now(), parts: lost, of: this.keys().length });
    }
  }

  private async reset(parts: number[]): Promise<void> {
    try {
      await this.afterReset();
    } finally {
      this.notices.onReset({ at: this.now(), parts, of: this.keys().length });
    }
  }

  /** Writes a fresh marker unless another process just did; answers the value that stands. */
  private async write(client: RedisClient, partition: number): Promise<string> {
    const key = this.keys()[partition]!;
    await client.set(key, randomUUID(), 'NX');
    return (await client.get(key)) ?? '';
  }
}
