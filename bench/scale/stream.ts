// The 1k due/s stream beside a backlog: the SDK pushes each job (topic `stream`) and its Worker takes them, so
// the scale run reuses the core lateness scenario (bench/scenarios.ts) on a server it did not start itself.
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import { bodyFor, type Consumer, type OnJob, type Subject } from '../subject.js';

export const STREAM_TOPIC = 'stream';

export class StreamSubject implements Subject {
  readonly name = 'the 1k/s stream';
  readonly family = 'delayq' as const;
  readonly resolutionMs = 1;
  readonly memoryKind = 'not measured';
  private readonly client: DelayqClient;

  constructor(port: number) {
    this.client = new DelayqClient({ url: `http://127.0.0.1:${port}` });
  }

  async open(): Promise<void> {}

  async close(): Promise<void> {
    await this.client.close();
  }

  async push(dueAt: number): Promise<void> {
    await this.client.push({ topic: STREAM_TOPIC, runAt: dueAt, body: bodyFor(dueAt) });
  }

  async memoryBytes(): Promise<undefined> {
    return undefined;
  }

  async serverCpuMs(): Promise<undefined> {
    return undefined;
  }

  async consume(concurrency: number, onJob: OnJob): Promise<Consumer> {
    const worker = new Worker(this.client, {
      handlers: { [STREAM_TOPIC]: (job) => onJob((job.body as { d: number }).d) },
      concurrency,
      waitMs: 1000,
    }).start();
    return { stop: () => worker.close() };
  }
}
