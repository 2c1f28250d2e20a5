/**
 * This process's consumers (`service.consumers`): long-polls while their reserve waits, gRPC reserve streams
 * while open, and what the front ends and delivery report as sources (beanstalkd workers, push sinks). On a
 * shared store they are published to the store's ConsumerDirectory soon after each change and again before
 * their expiry, so every process lists every process's consumers; a process that dies drops out by itself.
 */
import type { Logger } from 'pino';
import type { Clock, EpochMs } from '../core/clock.js';
import type { ConsumerKind } from '../core/consumer-kind.js';
import type { ConsumerDirectory, ConsumerRecord } from '../store/consumer-directory.js';

/** A change is published this soon (changes in between go out together). */
const PUBLISH_DELAY_MS = 100;
/** While it has consumers, a process publishes them again this often… */
const REFRESH_MS = 2000;
/** …and each publication lives this long: a process gone silent drops out within it. */
const PUBLICATION_TTL_MS = 3 * REFRESH_MS;

/** What a front end says of a consumer it tracks. */
export interface ConsumerInfo {
  kind: ConsumerKind;
  topics: readonly string[];
  /** The client's address. */
  remote: string | null;
  /** Reservations it holds now; 0 when not given. */
  held?: () => number;
}

/** A tracked consumer: end it when it goes. */
export interface TrackedConsumer {
  end(): void;
}

/** A consumer a source reports each time it is asked (its key is stable across asks). */
export interface SourcedConsumer {
  key: string;
  kind: ConsumerKind;
  topics: readonly string[];
  since: EpochMs;
  remote: string | null;
  held: number;
}

export interface ConsumerRegistryOptions {
  directory: ConsumerDirectory;
  nodeId: string;
  clock: Clock;
  /** Publish to the directory (a shared store); otherwise the directory is not used. */
  shared: boolean;
  logger: Logger;
}

export class ConsumerRegistry {
  private readonly options: ConsumerRegistryOptions;
  private readonly tracked = new Map<number, { info: ConsumerInfo; topics: readonly string[]; since: EpochMs }>();
  private readonly sources = new Set<() => readonly SourcedConsumer[]>();
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = 0;
  private publishing: Promise<void> = Promise.resolve();
  /** Whether the directory holds a publication of ours that an empty list must withdraw. */
  private published = false;
  private running = false;

  constructor(options: ConsumerRegistryOptions) {
    this.options = options;
  }

  start(): void {
    this.running = true;
    this.changed();
  }

  /** Stops publishing and withdraws this node from the directory. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.publishing;
    if (this.options.shared && this.published) await this.publishNow([]).catch(() => undefined);
  }

  /** Starts tracking a consumer until `end()`. */
  track(info: ConsumerInfo): TrackedConsumer {
    const id = ++this.sequence;
    this.tracked.set(id, { info, topics: [...info.topics], since: this.options.clock.now() });
    this.changed();
    return {
      end: () => {
        if (this.tracked.delete(id)) this.changed();
      },
    };
  }

  /** Adds a source asked for its consumers at each publication and listing; returns its removal. */
  addSource(source: () => readonly SourcedConsumer[]): () => void {
    this.sources.add(source);
    this.changed();
    return () => {
      this.sources.delete(source);
      this.changed();
    };
  }

  /** This process's consumers now. */
  local(): ConsumerRecord[] {
    const node = this.options.nodeId;
    const records: ConsumerRecord[] = [];
    for (const [id, { info, topics, since }] of this.tracked) {
      records.push({
        id: `${node}#${id}`,
        node,
        kind: info.kind,
        topics: [...topics],
        since,
        remote: info.remote,
        held: info.held?.() ?? 0,
      });
    }
    for (const source of this.sources) {
      for (const c of source())
        records.push({
          id: `${node}#${c.key}`,
          node,
          kind: c.kind,
          topics: [...c.topics],
          since: c.since,
          remote: c.remote,
          held: c.held,
        });
    }
    return records;
  }

  /** Every process's consumers (this one's as they are now), oldest first. */
  async list(): Promise<ConsumerRecord[]> {
    const own = this.local();
    const others = this.options.shared
      ? (await this.options.directory.list(this.options.clock.now())).filter((c) => c.node !== this.options.nodeId)
      : [];
    return [...own, ...others].sort((a, b) => a.since - b.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Something changed: publish soon (a source may call it too). */
  changed(): void {
    if (this.options.shared && this.running) this.schedule(PUBLISH_DELAY_MS);
  }

  /** Publishes in `delayMs`, unless a publication is already due sooner. */
  private schedule(delayMs: number): void {
    const dueAt = performance.now() + delayMs;
    if (this.timer) {
      if (this.timerDueAt <= dueAt) return;
      clearTimeout(this.timer);
    }
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const snapshot = this.local();
      this.publishing = this.publishing
        .then(() => this.publishNow(snapshot))
        .catch((err: unknown) => this.options.logger.warn({ err }, 'publishing the consumer list failed; retrying'));
      // Refresh before the publication expires while there is something to keep (or sources to look at).
      if (this.running && (snapshot.length > 0 || this.sources.size > 0)) this.schedule(REFRESH_MS);
    }, delayMs);
    this.timer.unref();
  }

  private async publishNow(consumers: ConsumerRecord[]): Promise<void> {
    if (consumers.length === 0 && !this.published) return;
    await this.options.directory.publish(this.options.nodeId, consumers, PUBLICATION_TTL_MS, this.options.clock.now());
    this.published = consumers.length > 0;
  }
}
