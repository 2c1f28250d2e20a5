import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
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

function addressOf(node: Redis): string {
  const stream = node.stream as Socket | undefined;
  return stream?.remoteAddress
    ? `${stream.remoteAddress}:${stream.remotePort}`
    : `${node.options.host}:${node.options.port}`;
}

/**
 * Notices a failover that lost acknowledged writes, per master (one per Cluster shard, the one of a Sentinel
 * set). Each master's replication id and offset are sampled every FAILOVER_SAMPLE_INTERVAL_MS: whatever was
 * acknowledged before a sample lies at or below its offset. A promoted replica keeps its old master's id as
 * `master_replid2` and the offset it had reached as `second_repl_offset - 1`; a sample of the old master above
 * that offset means writes acknowledged after the last sample at or below it were lost. A loss only within the
 * last interval before a master died can go unnoticed; two failovers between two samples break the chain.
 */
export class FailoverWatch {
  private readonly histories = new Map<string, History>();
  private readonly client: () => RedisClient | undefined;
  private readonly now: () => EpochMs;
  private readonly notices: StoreNoticeListener;
  private writes = 0;
  private running: Promise<void> | undefined;
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

  /** One sample of every master; concurrent callers share it. Rejects only when no master answered. */
  check(): Promise<void> {
    this.running ??= this.sample().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sample(): Promise<void> {
    const client = this.client();
    if (!client) return;
    const nodes = masters(client);
    // taken before asking: every write counted here was acknowledged before the server's answer
    const [at, writes] = [this.now(), this.writes];
    const replies = await Promise.allSettled(nodes.map((node) => node.info('replication')));
    let answered = 0;
    replies.forEach((reply, i) => {
      if (reply.status !== 'fulfilled') return;
      answered++;
      this.observe(addressOf(nodes[i]!), parseReplication(reply.value), { offset: 0, at, writes });
    });
    for (const [id, history] of this.histories) if (at - history.seenAt > FORGET_AFTER_MS) this.histories.delete(id);
    const failed = replies.find((r) => r.status === 'rejected');
    if (answered === 0 && failed) throw failed.reason;
  }

  private observe(shard: string, info: ReplicationInfo, sample: Position): void {
    if (info.role !== 'master' || !info.replid || !Number.isFinite(info.offset)) return;
    let history = this.histories.get(info.replid);
    if (!history) {
      const before = this.histories.get(info.replid2);
      if (before) {
        this.histories.delete(info.replid2);
        this.compare(shard, before, info.secondOffset - 1, sample);
      }
      history = { positions: [], seenAt: sample.at };
      this.histories.set(info.replid, history);
    }
    history.seenAt = sample.at;
    history.positions.push({ ...sample, offset: info.offset });
    if (history.positions.length > POSITIONS_KEPT) history.positions.shift();
  }

  /** The old master's history against what its promoted replica holds (`kept`: the last offset it has). */
  private compare(shard: string, before: History, kept: number, now: Position): void {
    const { positions } = before;
    const last = positions[positions.length - 1];
    if (!last || last.offset <= kept) return;
    // no sample at or below `kept` left: the loss began before the oldest one kept
    const safe = positions.findLast((p) => p.offset <= kept) ?? positions[0]!;
    this.notices.onWriteLoss({
      at: now.at,
      shard,
      lostBytes: last.offset - kept,
      since: safe.at,
      writesAtMost: now.writes - safe.writes,
    });
  }
}
