// One delayq server for the flow-control scenarios (flow-control.ts, debounce-storm.ts): the built server in its
// own process (bench/http-server.mjs) on the embedded store or on the benchmark's Redis, reached over HTTP with
// the SDK (client pushes, Worker consumer), as the other over-the-API scenarios reach it. Warmed up before it
// is measured: a fresh process runs its first few thousand requests several times slower (its JIT).
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { DelayqClient } from '../src/client/client.js';
import { Worker, type JobHandler } from '../src/client/worker.js';
import { ensureServerBuilt, serverArgs } from './build-server.js';
import { sleep } from './lib.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY, IN_FLIGHT, withInFlight } from './scenarios.js';
import { freePort, startProcess, tempDir, type Server } from './servers.js';
import { bodyFor } from './subject.js';

export type FlowStore = 'embedded' | 'redis';

/** The long-poll of the SDK Worker, as DelayqHttpSubject's. */
const RESERVE_WAIT_MS = 1000;
const WARM_UP_JOBS = 3000;

export class FlowServer {
  readonly store: FlowStore;
  readonly name: string;
  private readonly redisPort: number;
  private server: Server | undefined;
  private sdk: DelayqClient | undefined;

  constructor(store: FlowStore, redisPort: number) {
    this.store = store;
    this.redisPort = redisPort;
    this.name = `delayq · ${store === 'embedded' ? 'embedded' : 'Redis'} · SDK`;
  }

  /** The server process's pid, for its CPU (servers.ts cpuMsOf). */
  get pid(): number {
    if (!this.server) throw new Error(`${this.name}: not open`);
    return this.server.pid;
  }

  get client(): DelayqClient {
    if (!this.sdk) throw new Error(`${this.name}: not open`);
    return this.sdk;
  }

  async open(): Promise<void> {
    ensureServerBuilt((line) => process.stderr.write(`${line}\n`));
    let overrides: Record<string, unknown>;
    if (this.store === 'embedded') {
      overrides = { store: { kind: 'sqlite' }, sqlite: { path: join(tempDir('flow'), 'flow.db') } };
    } else {
      const admin = new Redis({ host: '127.0.0.1', port: this.redisPort, lazyConnect: true });
      await admin.connect();
      await admin.flushall(); // the benchmark's own Redis, never the shared 6379
      await admin.quit();
      overrides = { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${this.redisPort}` } };
    }
    const port = await freePort();
    this.server = await startProcess(
      `delayq server (${this.name})`,
      process.execPath,
      serverArgs(String(port), JSON.stringify(overrides)),
      port,
      60_000,
    );
    this.sdk = new DelayqClient({ url: `http://127.0.0.1:${port}` });
    await this.warmUp();
  }

  async close(): Promise<void> {
    await this.sdk?.close();
    this.sdk = undefined;
    await this.server?.stop();
    this.server = undefined;
  }

  /** The SDK Worker on one topic, concurrency 100 (the other drains' consumer). */
  consume(topic: string, handler: JobHandler): { close(): Promise<void> } {
    return new Worker(this.client, {
      concurrency: CONSUMER_CONCURRENCY,
      waitMs: RESERVE_WAIT_MS,
      handlers: { [topic]: handler },
    }).start();
  }

  /** Pushes, one by one and in a batch, due at once, drained, on a topic the scenarios never read. */
  private async warmUp(): Promise<void> {
    const topic = 'flow-warm-up';
    await withInFlight(WARM_UP_JOBS, IN_FLIGHT, async () => {
      await this.client.push({ topic, body: bodyFor(0) });
    });
    await this.client.pushBatch(Array.from({ length: BULK_SIZE }, () => ({ topic, body: bodyFor(0) })));
    let drained = 0;
    const worker = this.consume(topic, () => void drained++);
    const deadline = Date.now() + 60_000;
    while (drained < WARM_UP_JOBS + BULK_SIZE && Date.now() < deadline) await sleep(20);
    await worker.close();
    if (drained < WARM_UP_JOBS + BULK_SIZE)
      throw new Error(`${this.name} warm-up: ${drained} of ${WARM_UP_JOBS + BULK_SIZE} jobs came back`);
  }
}
