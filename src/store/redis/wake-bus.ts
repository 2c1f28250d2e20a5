import { randomBytes } from 'node:crypto';
import type { EpochMs } from '../../core/clock.js';
import type { StoreWatcher } from '../store.js';
import { closeClient, type RedisClient } from './connection.js';

/**
 * Cross-process wake-ups over one pub/sub channel. A process publishes when it made jobs ready (its
 * peers' long-polls should try again) or stored a delayed job earlier than the partition's head (their
 * timers should wake earlier). Publishes are coalesced per event-loop turn, so a burst of pushes costs one
 * PUBLISH. Messages are hints: a lost one is covered by the timer's safety wake-up.
 * Wire format: `<sender>|r|topic1,topic2` or `<sender>|d|<epoch ms>`.
 */
export class WakeBus {
  private readonly sender = randomBytes(6).toString('base64url');
  private readyTopics = new Set<string>();
  private dueAt = Number.POSITIVE_INFINITY;
  private flushing = false;
  private subscriber: RedisClient | undefined;
  private readonly publisher: () => RedisClient | undefined;
  private readonly channel: string;

  constructor(publisher: () => RedisClient | undefined, channel: string) {
    this.publisher = publisher;
    this.channel = channel;
  }

  ready(topics: Iterable<string>): void {
    for (const t of topics) this.readyTopics.add(t);
    this.schedule();
  }

  due(at: EpochMs): void {
    this.dueAt = Math.min(this.dueAt, at);
    this.schedule();
  }

  private schedule(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    const client = this.publisher();
    const messages: string[] = [];
    if (this.readyTopics.size) messages.push(`${this.sender}|r|${[...this.readyTopics].join(',')}`);
    if (this.dueAt !== Number.POSITIVE_INFINITY) messages.push(`${this.sender}|d|${this.dueAt}`);
    this.readyTopics = new Set();
    this.dueAt = Number.POSITIVE_INFINITY;
    if (!client) return;
    // A failed publish is only a late wake-up: peers fall back to their safety timer.
    for (const m of messages) client.publish(this.channel, m).catch(() => undefined);
  }

  /** Subscribes on a dedicated connection (a subscribed connection can run nothing else). */
  async watch(subscriber: RedisClient, watcher: StoreWatcher): Promise<void> {
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const [sender, kind, payload = ''] = message.split('|');
      if (sender === this.sender) return;
      if (kind === 'r') watcher.onReady(payload.split(',').filter(Boolean));
      else if (kind === 'd' && Number.isFinite(Number(payload))) watcher.onDue(Number(payload));
    });
    // Subscribe on every 'ready', so a subscriber that could not connect at first (or lost its server)
    // starts hearing peers as soon as Redis is back; subscribing twice to a channel is harmless.
    subscriber.on('ready', () => void subscriber.subscribe(this.channel).catch(() => undefined));
    await subscriber.connect().catch(() => undefined);
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await closeClient(subscriber);
  }
}
