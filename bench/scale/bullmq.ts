// BullMQ beside the scale run's shapes, on a Redis of its own: the same jobs (100-byte bodies, 8 queues for
// the 8 topics, each delayed to its due time over the next 30 days) loaded with `addBulk` of 1000 (4 calls in
// flight) to the same backlogs; at each, Redis's memory and RSS, then the push rates: `queue.add` at 100 in
// flight and `addBulk` of 1000, 4 calls in flight (their jobs join the backlog).
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { withInFlight } from '../scenarios.js';
import { rssBytes, startRedis, type Server } from '../servers.js';
import { usedMemory } from '../subjects/delayq-subject.js';
import type { Metrics } from './checkpoint.js';
import { BATCH, BATCHES_IN_FLIGHT, scaleJob, SINGLE_IN_FLIGHT, TOPICS } from './jobs.js';
import type { ScaleCounts } from './options.js';

export const BULLMQ_SHAPE = 'BullMQ 6.7 (Redis)';

export class BullmqWalk {
  private readonly redis: Server;
  private readonly admin: Redis;
  private readonly queues: Queue[];
  private readonly counts: ScaleCounts;
  private readonly t0: number;
  private pushed = 0;

  private constructor(redis: Server, counts: ScaleCounts, t0: number) {
    this.redis = redis;
    this.admin = new Redis({ host: '127.0.0.1', port: redis.port });
    const connection = { host: '127.0.0.1', port: redis.port };
    this.queues = Array.from({ length: TOPICS }, (_, i) => new Queue(`t${i}`, { connection }));
    this.counts = counts;
    this.t0 = t0;
  }

  static async start(counts: ScaleCounts, t0: number): Promise<BullmqWalk> {
    const walk = new BullmqWalk(await startRedis(), counts, t0);
    await Promise.all(walk.queues.map((q) => q.waitUntilReady()));
    return walk;
  }

  private async bulk(from: number, to: number): Promise<number> {
    const batches = Math.ceil((to - from) / BATCH);
    const started = performance.now();
    await withInFlight(batches, BATCHES_IN_FLIGHT, async (b) => {
      const first = from + b * BATCH;
      const now = Date.now();
      const jobs = Array.from({ length: Math.min(BATCH, to - first) }, (_, i) => {
        const job = scaleJob(first + i, this.t0);
        return { name: 'job', data: job.body, opts: { delay: Math.max(0, job.runAt - now) } };
      });
      await this.queues[b % TOPICS]!.addBulk(jobs);
    });
    return (to - from) / ((performance.now() - started) / 1000);
  }

  private async singles(from: number, to: number): Promise<number> {
    const started = performance.now();
    await withInFlight(to - from, SINGLE_IN_FLIGHT, async (i) => {
      const job = scaleJob(from + i, this.t0);
      await this.queues[(from + i) % TOPICS]!.add('job', job.body, { delay: Math.max(0, job.runAt - Date.now()) });
    });
    return (to - from) / ((performance.now() - started) / 1000);
  }

  async at(backlog: number): Promise<Metrics> {
    const m: Metrics = {};
    if (backlog > this.pushed) m['fillRate'] = await this.bulk(this.pushed, backlog);
    this.pushed = Math.max(this.pushed, backlog);
    m['usedMemory'] = await usedMemory(this.admin);
    m['rssRedis'] = rssBytes(this.redis.pid);
    m['pushBatch'] = await this.bulk(this.pushed, this.pushed + this.counts.batchJobs);
    this.pushed += this.counts.batchJobs;
    m['pushSingle'] = await this.singles(this.pushed, this.pushed + this.counts.singleJobs);
    this.pushed += this.counts.singleJobs;
    return m;
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close()));
    this.admin.disconnect();
    await this.redis.stop();
  }
}
