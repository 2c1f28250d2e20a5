import { randomBytes } from 'node:crypto';
import type { DelayqService } from '../service/service.js';
import { NumberCache } from './number-cache.js';
import { ReserveCoalescer } from './reserve-coalescer.js';

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
}

/** What stats needs to know of a connection. */
export interface ConnectionView {
  readonly used: string;
  readonly watched: readonly string[];
  readonly isWaiting: boolean;
  readonly isProducer: boolean;
  readonly isWorker: boolean;
}
