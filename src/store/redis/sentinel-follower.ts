import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import type { HostPort, RedisClient, RedisConnection } from './connection.js';

/** Where every sentinel announces a failover's end: `<name> <old ip> <old port> <new ip> <new port>`. */
const SWITCH_MASTER = '+switch-master';
/**
 * Where it announces the promotion, seconds earlier (the switch waits for the other replicas to be reconfigured):
 * `slave <ip>:<port> <ip> <port> @ <name> <master ip> <master port>`. From then on the sentinels name it master.
 */
const PROMOTED = '+promoted-slave';
/** Forced reconnects are at least this far apart, so a disagreement about the address cannot loop. */
const FOLLOW_GAP_MS = 1000;
/**
 * How long an announced master is pursued: a reconnect asks the sentinels in turn, and one that has not yet heard
 * of the promotion names the old master again, so the client retries (FOLLOW_GAP_MS apart) until it is there.
 */
const PURSUE_MS = 10_000;

/**
 * Moves a Sentinel client to the new master as soon as the sentinels announce its promotion. Without this the client stays
 * on the old master until that one is demoted and answers READONLY, up to a sentinel's 10 s INFO period after a
 * manual failover or a stale master's return: all that time without service, writes the promoted replica never
 * sees. ioredis's own failover detector does the same but ends the client for good when the news arrives during a
 * reconnect; here a client that is not ready is left alone (its reconnect asks the sentinels anyway) and every
 * (re)connect is checked against the latest announcement, or else a sentinel's answer.
 */
export class SentinelFollower {
  private readonly sentinels: HostPort[];
  private readonly masterName: string;
  private readonly client: Redis;
  private subscribers: Redis[] = [];
  private followedAt = 0;
  private announced: { master: HostPort; at: number } | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(sentinels: HostPort[], masterName: string, client: Redis) {
    this.sentinels = sentinels;
    this.masterName = masterName;
    this.client = client;
  }

  /** Subscribes to every sentinel (any one may be down); errors only delay the news, so they are swallowed. */
  start(): void {
    this.client.on('ready', () => void this.checkAddress().catch(() => undefined));
    this.subscribers = this.sentinels.map(({ host, port }) => {
      const subscriber = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: null });
      subscriber.on('error', () => undefined);
      subscriber.on('message', (channel: string, message: string) => {
        const words = message.split(' ');
        const [name, host, port] =
          channel === PROMOTED ? [words[5], words[2], words[3]] : [words[0], words[3], words[4]];
        if (name !== this.masterName || !host || !port) return;
        this.announced = { master: { host, port: Number(port) }, at: Date.now() };
        this.follow(this.announced.master);
      });
      void subscriber.subscribe(SWITCH_MASTER, PROMOTED).catch(() => undefined);
      return subscriber;
    });
  }

  stop(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    for (const subscriber of this.subscribers) subscriber.disconnect();
    this.subscribers = [];
  }

  /**
   * A ready client connected elsewhere than `master` reconnects, through the sentinels; within FOLLOW_GAP_MS of the
   * last reconnect it tries again once the gap is over.
   */
  private follow(master: HostPort): void {
    if (this.client.status !== 'ready' || this.connectedTo(master)) return;
    const wait = this.followedAt + FOLLOW_GAP_MS - Date.now();
    if (wait > 0) {
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        void this.checkAddress().catch(() => undefined);
      }, wait);
      return;
    }
    this.followedAt = Date.now();
    this.client.disconnect(true);
  }

  private connectedTo(master: HostPort): boolean {
    const stream = this.client.stream as Socket | undefined;
    const host = stream?.remoteAddress?.replace(/^::ffff:/, '');
    return stream?.remotePort === master.port && host === master.host;
  }

  /**
   * After a (re)connect: a sentinel may have answered just before a failover it then announced, or not have heard
   * of one another sentinel announced. A recent announcement wins over the answer.
   */
  private async checkAddress(): Promise<void> {
    if (this.announced && Date.now() - this.announced.at < PURSUE_MS) {
      this.follow(this.announced.master);
      return;
    }
    const sentinel = this.subscribers.find((s) => s.status === 'ready');
    if (!sentinel) return;
    const probe = sentinel.duplicate();
    probe.on('error', () => undefined);
    try {
      const reply = await probe.call('SENTINEL', 'get-master-addr-by-name', this.masterName);
      const [host, port] = (reply ?? []) as string[];
      if (host && port) this.follow({ host, port: Number(port) });
    } finally {
      probe.disconnect();
    }
  }
}

/** A started follower for a Sentinel connection; none for the other modes. */
export function followSentinels(connection: RedisConnection, client: RedisClient): SentinelFollower | undefined {
  if (connection.mode !== 'sentinel' || !(client instanceof Redis)) return undefined;
  const follower = new SentinelFollower(connection.sentinels, connection.masterName, client);
  follower.start();
  return follower;
}
