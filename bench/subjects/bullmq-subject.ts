// BullMQ 6.7 used as its docs recommend: Queue.add with `delay`, addBulk, one Worker with `concurrency`,
// completed jobs removed (removeOnComplete) so Redis does not fill with history.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { bodyFor, type Consumer, type OnJob, type Subject } from '../subject.js';
import { redisCommandCalls, redisCpuMs, usedMemory } from './delayq-subject.js';

const QUEUE = 'bench';

export class BullmqSubject implements Subject {
  readonly family = 'bullmq' as const;
  readonly resolutionMs = 1;
  readonly memoryKind = 'Redis used_memory';
  readonly name: string;
  readonly note: string;
  private readonly port: number;
  private readonly hz: number;
  private admin: Redis | undefined;
  private queue: Queue | undefined;

  constructor(port: number, hz: number) {
    this.port = port;
    this.hz = hz;
    this.name = `BullMQ · hz ${hz}`;
    this.note = `BullMQ 6.7 on the same Redis, CONFIG SET hz ${hz}`;
  }

  private connection() {
    // A Worker's blocking connection must not give up on retries (BullMQ's own requirement).
    return { host: '127.0.0.1', port: this.port, maxRetriesPerRequest: null };
  }

  async open(): Promise<void> {
    this.admin = new Redis({ host: '127.0.0.1', port: this.port, lazyConnect: true });
    await this.admin.connect();
    await this.admin.flushall(); // our own benchmark Redis, never the shared 6379
    await this.admin.config('SET', 'hz', String(this.hz));
    this.queue = new Queue(QUEUE, { connection: this.connection() });
    await this.queue.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.queue?.close();
    this.queue = undefined;
    // Leave the shared benchmark Redis at its default for the next subject.
    await this.admin?.config('SET', 'hz', '10');
    await this.admin?.quit();
    this.admin = undefined;
  }

  private get q(): Queue {
    if (!this.queue) throw new Error('BullMQ queue not open');
    return this.queue;
  }

  async push(dueAt: number): Promise<void> {
    await this.q.add('job', bodyFor(dueAt), { delay: Math.max(0, dueAt - Date.now()) });
  }

  async pushBulk(dueAts: readonly number[]): Promise<void> {
    const now = Date.now();
    await this.q.addBulk(
      dueAts.map((dueAt) => ({ name: 'job', data: bodyFor(dueAt), opts: { delay: Math.max(0, dueAt - now) } })),
    );
  }

  memoryBytes(): Promise<number> {
    return usedMemory(this.admin!);
  }

  serverCpuMs(): Promise<number> {
    return redisCpuMs(this.admin!);
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return redisCommandCalls(this.admin!);
  }

  async consume(concurrency: number, onJob: OnJob): Promise<Consumer> {
    const worker = new Worker(
      QUEUE,
      async (job) => {
        onJob((job.data as { d: number }).d);
      },
      { connection: this.connection(), concurrency, removeOnComplete: { count: 0 }, removeOnFail: { count: 1000 } },
    );
    await worker.waitUntilReady();
    return { stop: () => worker.close() };
  }
}
