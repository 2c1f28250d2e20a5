import type { Socket } from 'node:net';
import { Cluster, type Redis } from 'ioredis';
import type { EpochMs } from '../../core/clock.js';
import type { StoreNoticeListener } from '../store-notices.js';
import { masters, type RedisClient } from './connection.js';

/** How often a running store samples each master's replication position (besides at every reconnect). */
export const FAILOVER_SAMPLE_INTERVAL_MS = 100;
/** Positions kept per replication history: a minute, so a loss is dated across a long stale-master window. */
const POSITIONS_KEPT = 600;
/** A history no master has shown for this long is forgotten (its master restarted or was replaced). */
const FORGET_AFTER_MS = 10 * 60_000;

/** The fields of `INFO replication` the watch reads. */
export interface ReplicationInfo {
  role: string;
  replid: string;
  /** The replication id this server had before it was promoted ('000…' when never). */
  replid2: string;
  offset: number;
  /** One past the last offset of `replid2` this server holds. */
  secondOffset: number;
}

export function parseReplication(text: string): ReplicationInfo {
  const field = (name: string): string => new RegExp(`^${name}:(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  return {
    role: field('role'),
    replid: field('master_replid'),
    replid2: field('master_replid2'),
    offset: Number(field('master_repl_offset')),
    secondOffset: Number(field('second_repl_offset')),
  };
}

/** A sample: everything acknowledged before `at` (and `writes` of this process's writes) is at or below `offset`. */
interface Position {
  offset: number;
  at: EpochMs;
  writes: number;
}

interface History {
  positions: Position[];
  seenAt: EpochMs;
}

/**
 * A history another master took over: it holds the old history's writes up to `kept`. Whatever a server still
 * on the old history shows beyond that (a stale master that came back, a replica that had more) is lost.
 */
interface Fork {
  before: History;
  kept: number;
  /** The old history's furthest offset already reported as lost. */
  reported: number;
  /** The new master's address, named in the reports. */
  shard: string;
  seenAt: EpochMs;
}

function addressOf(node: Redis): string {
  const stream = node.stream as Socket | undefined;
  return stream?.remoteAddress
    ? `${stream.remoteAddress}:${stream.remotePort}`
    : `${node.options.host}:${node.options.port}`;
}

/**
 * Notices a failover that lost acknowledged writes, per shard (each Cluster shard, the one of a Sentinel set).
 * Each server's replication id and offset are sampled every FAILOVER_SAMPLE_INTERVAL_MS: whatever was
 * acknowledged before a sample lies at or below its offset. A promoted replica keeps its old master's id as
 * `master_replid2` and the offset it had reached as `second_repl_offset - 1`; a sample of the old history above
 * that offset, taken before the promotion was seen or after it (the old master back as a stale master,
 * acknowledging what it had queued), means writes were lost. Every server the client knows is sampled, replicas
 * too (a Cluster client may not yet know which one was promoted), each on its own, so one hung server does not
 * hold up the others. A loss only within the last interval before a master died can go unnoticed; two failovers
 * between two samples break the chain.
 */
export class FailoverWatch {
  private readonly histories = new Map<string, History>();
  private readonly forks = new Map<string, Fork>();
  private readonly asking = new WeakSet<Redis>();
  private readonly client: () => RedisClient | undefined;
  private readonly now: () => EpochMs;
  private readonly notices: StoreNoticeListener;
  private writes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(client: () => RedisClient | undefined, now: () => EpochMs, notices: StoreNoticeListener) {
    this.client = client;
    this.now = now;
    this.notices = notices;
  }

  /** Counts a write that got its answer: a loss holds at most the writes counted since its last safe sample. */
  wrote(): void {
    this.writes++;
  }

  /** Takes the first samples; warns when the server hides INFO (a loss then cannot be noticed). */
  async open(): Promise<void> {
    try {
      await this.check();
    } catch (err) {
      this.notices.onWarning({
        level: 'info',
        message: 'Redis refused INFO replication: a failover that loses acknowledged writes cannot be noticed',
        details: { error: String(err) },
      });
    }
    this.timer = setInterval(() => void this.check().catch(() => undefined), FAILOVER_SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * One sample of every server not still answering the previous one. Rejects only when none answered and one
   * failed.
   */
  async check(): Promise<void> {
    const client = this.client();
    if (!client) return;
    const nodes = serversOf(client).filter((node) => !this.asking.has(node));
    // taken before asking: every write counted here was acknowledged before the server's answer
    const [at, writes] = [this.now(), this.writes];
    const replies = await Promise.allSettled(nodes.map((node) => this.ask(node)));
    let answered = 0;
    replies.forEach((reply, i) => {
      if (reply.status !== 'fulfilled') return;
      answered++;
      this.observe(addressOf(nodes[i]!), parseReplication(reply.value), { offset: 0, at, writes });
    });
    this.forget(at);
    const failed = replies.find((r) => r.status === 'rejected');
    if (answered === 0 && failed) throw failed.reason;
  }

  private async ask(node: Redis): Promise<string> {
    this.asking.add(node);
    try {
      return await node.info('replication');
    } finally {
      this.asking.delete(node);
    }
  }

  private forget(at: EpochMs): void {
    for (const [id, history] of this.histories) if (at - history.seenAt > FORGET_AFTER_MS) this.histories.delete(id);
    for (const [id, fork] of this.forks) if (at - fork.seenAt > FORGET_AFTER_MS) this.forks.delete(id);
  }

  private observe(address: string, info: ReplicationInfo, sample: Position): void {
    if (!info.replid || !Number.isFinite(info.offset)) return;
    const fork = this.forks.get(info.replid);
    if (fork) {
      // a server still on a history that was taken over: what it holds beyond the fork is lost
      if (info.offset > fork.reported) {
        this.report(fork, fork.reported, info.offset, sample);
        fork.reported = info.offset;
      }
      return;
    }
    if (info.role !== 'master') return;
    let history = this.histories.get(info.replid);
    if (!history) {
      const before = this.histories.get(info.replid2);
      if (before) this.takeOver(info.replid2, before, { kept: info.secondOffset - 1, shard: address }, sample);
      history = { positions: [], seenAt: sample.at };
      this.histories.set(info.replid, history);
    }
    history.seenAt = sample.at;
    history.positions.push({ ...sample, offset: info.offset });
    if (history.positions.length > POSITIONS_KEPT) history.positions.shift();
  }

  /** The old master's history against what its promoted replica holds (`kept`: the last offset it has). */
  private takeOver(replid: string, before: History, to: { kept: number; shard: string }, now: Position): void {
    this.histories.delete(replid);
    const fork: Fork = { before, kept: to.kept, reported: to.kept, shard: to.shard, seenAt: now.at };
    this.forks.set(replid, fork);
    const last = before.positions[before.positions.length - 1];
    if (last && last.offset > to.kept) {
      this.report(fork, to.kept, last.offset, now);
      fork.reported = last.offset;
    }
  }

  private report(fork: Fork, from: number, to: number, now: Position): void {
    // no sample at or below the fork left: the loss began before the oldest one kept
    const { positions } = fork.before;
    const safe = positions.findLast((p) => p.offset <= fork.kept) ?? positions[0] ?? now;
    this.notices.onWriteLoss({
      at: now.at,
      shard: fork.shard,
      lostBytes: to - from,
      since: safe.at,
      writesAtMost: now.writes - safe.writes,
    });
  }
}

/** Every server a client talks to or may be sent to: a Cluster's masters and replicas, else the one. */
function serversOf(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('all') : masters(client);
}
