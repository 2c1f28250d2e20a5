import type { EpochMs } from '../core/clock.js';
import type { ConsumerKind } from '../core/consumer-kind.js';

/** One consumer as the consumer list shows it (GET /v1/consumers). */
export interface ConsumerRecord {
  /** Unique among the consumers listed: the node's name and a number of its own. */
  id: string;
  /** The delayq process it is connected to. */
  node: string;
  kind: ConsumerKind;
  /** The topics it takes jobs of (a beanstalkd worker's watched tubes, a sink's bound topic). */
  topics: string[];
  /** Since when it has been waiting (long-poll) or connected (stream, beanstalkd, sink). */
  since: EpochMs;
  /** The client's address (`ip:port`); a sink's type and name. */
  remote: string | null;
  /** Reservations it holds now (jobs out with it). */
  held: number;
}

/**
 * Who consumes which topics, store-wide: each process publishes its own consumers under its node name, kept
 * for `ttlMs` unless published again, so a process that dies without a word drops out by itself. A store one
 * process uses keeps them in memory (LocalConsumerDirectory); Redis keeps one key per process with an expiry.
 */
export interface ConsumerDirectory {
  /** Replaces what `node` published before; an empty list withdraws the node at once. */
  publish(node: string, consumers: readonly ConsumerRecord[], ttlMs: number, now: EpochMs): Promise<void>;
  /** The consumers of every node whose publication has not expired by `now`. */
  list(now: EpochMs): Promise<ConsumerRecord[]>;
}

/** The directory of a store one process uses: in memory. */
export class LocalConsumerDirectory implements ConsumerDirectory {
  private readonly byNode = new Map<string, { until: EpochMs; consumers: readonly ConsumerRecord[] }>();

  async publish(node: string, consumers: readonly ConsumerRecord[], ttlMs: number, now: EpochMs): Promise<void> {
    if (consumers.length === 0) this.byNode.delete(node);
    else this.byNode.set(node, { until: now + ttlMs, consumers });
  }

  async list(now: EpochMs): Promise<ConsumerRecord[]> {
    const all: ConsumerRecord[] = [];
    for (const [node, entry] of this.byNode) {
      if (entry.until <= now) this.byNode.delete(node);
      else all.push(...entry.consumers);
    }
    return all;
  }
}
