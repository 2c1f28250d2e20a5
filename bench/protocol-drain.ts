// A burst of ready jobs drained through each wire protocol of one delayq server (Redis store, server in its
// own process, bench/http-server.mjs): over HTTP by the TypeScript SDK's Worker (concurrency 100), and over
// the gRPC reserve stream (credit 100, each batch finished by acks on the same stream, credit given back
// with them). Jobs are pushed first, ready at once; rate = jobs ÷ (last finish answered − drain start); over HTTP the Worker's close() sends its last acks.
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { DelayqClient } from '../src/client/client.js';
import { Worker } from '../src/client/worker.js';
import { delayqClientConstructor } from '../src/grpc/proto.js';
import { ensureServerBuilt, SERVER_SCRIPT } from './build-server.js';
import { freePort, startProcess, type Server } from './servers.js';
import { bodyFor } from './subject.js';

export interface DrainResult {
  jobsPerS: number;
  missing: number;
}

/** Reservations asked for at once over the stream, and the Worker's concurrency over HTTP. */
export const DRAIN_IN_FLIGHT = 100;

export class ProtocolDrain {
  private server: Server | undefined;
  private readonly redisPort: number;
  private url = '';
  private grpcTarget = '';
  private round = 0;

  constructor(redisPort: number) {
    this.redisPort = redisPort;
  }

  async open(): Promise<void> {
    const redis = new Redis({ host: '127.0.0.1', port: this.redisPort, lazyConnect: true });
    await redis.connect();
    await redis.flushall(); // our own benchmark Redis
    await redis.quit();
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    ensureServerBuilt((line) => process.stderr.write(`${line}\n`));
    const args = [SERVER_SCRIPT, String(httpPort), String(this.redisPort), String(grpcPort)];
    // gRPC binds after HTTP: once its port answers, both do.
    this.server = await startProcess('delayq http+gRPC server', process.execPath, args, grpcPort, 60_000);
    this.url = `http://127.0.0.1:${httpPort}`;
    this.grpcTarget = `127.0.0.1:${grpcPort}`;
  }

  async close(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }

  /** Pushes `count` ready jobs to a fresh topic, 1000 per batch. */
  private async fill(count: number): Promise<string> {
    const topic = `bench-drain-${++this.round}`;
    const client = new DelayqClient({ url: this.url });
    for (let i = 0; i < count; i += 1000) {
      await client.pushBatch(Array.from({ length: Math.min(1000, count - i) }, () => ({ topic, body: bodyFor(0) })));
    }
    return topic;
  }

  async http(count: number): Promise<DrainResult> {
    const topic = await this.fill(count);
    const client = new DelayqClient({ url: this.url });
    let done = 0;
    let allDone!: () => void;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const started = performance.now();
    const worker = new Worker(client, {
      concurrency: DRAIN_IN_FLIGHT,
      waitMs: 1000,
      handlers: {
        [topic]: () => {
          if (++done === count) allDone();
        },
      },
    }).start();
    const timedOut = await Promise.race([finished.then(() => false), sleep(120_000).then(() => true)]);
    await worker.close(); // sends the acks still queued: the drain ends when the last finish was answered
    const elapsedS = (performance.now() - started) / 1000;
    return { jobsPerS: (timedOut ? done : count) / elapsedS, missing: count - done };
  }

  async grpc(count: number): Promise<DrainResult> {
    const topic = await this.fill(count);
    const Ctor = delayqClientConstructor();
    const client = new Ctor(this.grpcTarget, credentials.createInsecure()) as any;
    const stream: ClientDuplexStream<any, any> = client.Reserve();
    let finished = 0;
    const started = performance.now();
    const outcome = await new Promise<'done' | 'timeout' | Error>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), 120_000);
      stream.on(
        'data',
        (message: { reservations: { job: { id: string }; token: string }[]; ackResults: { ok: boolean }[] }) => {
          finished += message.ackResults.filter((r) => r.ok).length;
          if (finished >= count) {
            clearTimeout(timer);
            resolve('done');
            return;
          }
          if (message.reservations.length) {
            const acks = message.reservations.map((r) => ({ id: r.job.id, token: r.token, op: 'finish' }));
            stream.write({ acks, credit: acks.length });
          }
        },
      );
      stream.on('error', (err: Error) => resolve(err));
      stream.write({ subscribe: { topics: [topic] }, credit: DRAIN_IN_FLIGHT });
    });
    const elapsedS = (performance.now() - started) / 1000;
    stream.end();
    client.close();
    if (outcome instanceof Error) throw outcome;
    return { jobsPerS: finished / elapsedS, missing: count - finished };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
