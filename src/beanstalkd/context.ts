import { randomBytes } from 'node:crypto';
import type { TopicStats } from '../core/job.js';
import type { DelayqService } from '../service/service.js';
import { NumberCache } from './number-cache.js';
import { ReserveCoalescer } from './reserve-coalescer.js';
import { TubeOrder } from './tube-order.js';

/** What every connection of one listener shares: the service, job numbers and the counters `stats` shows. */
export class BeanstalkdContext {
  readonly service: DelayqService;
  readonly numbers: NumberCache;
  readonly reserves: ReserveCoalescer;
  /** beanstalkd's max-job-size: delayq's body limit. */
  readonly maxJobSize: number;
  readonly startedAt = Date.now();
  readonly serverId = randomBytes(8).toString('hex');
  /** cmd-* counters of this process. */
  readonly commands = new Map<string, number>();
  /** Per tube: cmd-delete, cmd-pause-tube and the last pause's length in seconds (this process). */
  readonly tubes = new Map<string, { deletes: number; pauses: number; pauseSeconds: number }>();
  readonly connections = new Set<ConnectionView>();
  /** The order of list-tubes: the order tubes were made, as in beanstalkd. */
  readonly order = new TubeOrder();
  totalConnections = 0;
  jobTimeouts = 0;
  totalJobs = 0;

  constructor(service: DelayqService, maxJobSize: number) {
    this.service = service;
    this.numbers = new NumberCache(service.store.numbers);
    this.reserves = new ReserveCoalescer(service);
    this.maxJobSize = maxJobSize;
  }

  count(command: string): void {
    this.commands.set(command, (this.commands.get(command) ?? 0) + 1);
  }

  tube(name: string): { deletes: number; pauses: number; pauseSeconds: number } {
    let t = this.tubes.get(name);
    if (!t) this.tubes.set(name, (t = { deletes: 0, pauses: 0, pauseSeconds: 0 }));
    return t;
  }

  /**
   * The tubes that exist as beanstalkd sees them: `default`, those with jobs not yet ended (ready, reserved,
   * delayed, buried; a tube whose jobs all ended is gone, as in beanstalkd, though delayq keeps the ended jobs
   * for their retention), and those this process's connections use or watch. A tube found gone here loses
   * its counters at once: forgetGone does so too but only after a store read, and a client that saw the tube
   * gone (`stats-tube` NOT_FOUND) and made it again in between found the old counters.
   */
  liveTubes(topics: readonly TopicStats[]): Set<string> {
    const withJobs = topics.filter(({ counts: c }) => c.ready + c.reserved + c.delayed + c.dead > 0);
    const local = [...this.connections].flatMap((c) => [c.used, ...c.watched]);
    const live = new Set(['default', ...withJobs.map((t) => t.topic), ...local]);
    for (const t of this.tubes.keys())
      if (!live.has(t)) {
        this.tubes.delete(t);
        this.order.gone(t);
      }
    return live;
  }

  /**
   * Called when tubes may have just ceased to exist (a connection left them, or a job of theirs was deleted):
   * forgets the counters of those that did, as beanstalkd frees a tube with its stats, so a tube made again
   * starts from 0. Only tubes with counters and no connection of this process on them cost a store call.
   */
  async forgetGone(tubes: readonly string[]): Promise<void> {
    const candidates = tubes.filter((t) => this.tubes.has(t) && !this.isOnAnyConnection(t));
    if (candidates.length === 0) return;
    try {
      this.liveTubes(await this.service.topics.stats()); // forgets the counters of those found gone
    } catch {
      // The store is unreachable: the counters stay, as they would for a tube that still exists.
    }
  }

  private isOnAnyConnection(tube: string): boolean {
    for (const c of this.connections) if (c.used === tube || c.watched.includes(tube)) return true;
    return false;
  }
}

/** What stats and the consumer list need to know of a connection. */
export interface ConnectionView {
  readonly used: string;
  readonly watched: readonly string[];
  readonly isWaiting: boolean;
  readonly isProducer: boolean;
  readonly isWorker: boolean;
  /** The client's address (`ip:port`). */
  readonly remote: string | null;
  /** When it connected (the service clock). */
  readonly openedAt: number;
  /** How many jobs it holds reserved. */
  readonly heldCount: number;
}
