// A burst of ready jobs drained through each wire protocol of one delayq server (Redis store, server in its
// own process, bench/http-server.mjs): over HTTP by the TypeScript SDK's Worker (concurrency 100), and over
// the gRPC reserve stream (credit 100, each batch finished by acks on the same stream, credit given back
// with them), and over the beanstalkd protocol (100 jackd connections, each reserve-with-timeout then
// delete, as beanstalkd's own consumers in the burst scenario). Jobs are pushed first, ready at once; rate = jobs ÷ (last finish answered − drain start); over HTTP the Worker's close() sends its last acks.
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import type { JackdClient } from 'jackd';
import JackdModule from 'jackd';
import { Redis } from 'ioredis';
import { DelayqClient } from '../src/client/client.js';
import { Worker } from '../src/client/worker.js';
import { delayqClientConstructor } from '../src/grpc/proto.js';
import { ensureServerBuilt, SERVER_SCRIPT } from './build-server.js';
import { freePort, startProcess, type Server } from './servers.js';
import { bodyFor } from './subject.js';
import { rotate } from './host-load.js';
import type { RunContext } from './run-context.js';

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
  private beanstalkdPort = 0;
  private round = 0;

  constructor(redisPort: number) {
    this.redisPort = redisPort;
  }

  async open(): Promise<void> {
    const redis = new Redis({ host: '127.0.0.1', port: this.redisPort, lazyConnect: true });
    await redis.connect();
    await redis.flushall(); // our own benchmark Redis
    await redis.quit();
    const [httpPort, grpcPort, beanstalkdPort] = [await freePort(), await freePort(), await freePort()];
    ensureServerBuilt((line) => process.stderr.write(`${line}\n`));
    const args = [SERVER_SCRIPT, String(httpPort), String(this.redisPort), String(grpcPort), String(beanstalkdPort)];
    // The beanstalkd listener binds last: once its port answers, all three do.
    this.server = await startProcess(
      'delayq http+gRPC+beanstalkd server',
      process.execPath,
      args,
      beanstalkdPort,
      60_000,
    );
    this.beanstalkdPort = beanstalkdPort;
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

  async beanstalkd(count: number): Promise<DrainResult> {
    return drainOverBeanstalkd(this.beanstalkdPort, await this.fill(count), count);
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

// jackd is CommonJS (`module.exports = JackdClient`): the default import is the class itself.
const Jackd = JackdModule as unknown as new () => JackdClient;

/** Drains `topic` over the beanstalkd protocol: each connection reserves then deletes until `count` are gone. */
export async function drainOverBeanstalkd(port: number, topic: string, count: number): Promise<DrainResult> {
  const clients = await Promise.all(
    Array.from({ length: DRAIN_IN_FLIGHT }, async () => {
      const client = new Jackd();
      await client.connect({ host: '127.0.0.1', port });
      await client.watch(topic);
      await client.ignore('default');
      return client;
    }),
  );
  let done = 0;
  const giveUpAt = performance.now() + 120_000;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (done < count && performance.now() < giveUpAt) {
        let job;
        try {
          job = await client.reserveWithTimeout(1);
        } catch (err) {
          if (/TIMED_OUT|DEADLINE_SOON/.test(String((err as Error).message ?? err))) continue;
          throw err;
        }
        await client.delete(job.id);
        done++;
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  await Promise.allSettled(clients.map((c) => c.quit()));
  return { jobsPerS: done / elapsedS, missing: count - done };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** One server, each protocol in turn, the order rotated each round. */
export async function drainRounds(ctx: RunContext): Promise<void> {
  const { add, failures, inRound, mode, runs } = ctx;
  const drain = new ProtocolDrain(ctx.redisPort);
  const jobs = mode['drain']!;
  try {
    await drain.open();
    await drain.grpc(Math.min(1000, jobs)); // unrecorded warm-up
    const protocols = {
      'HTTP (SDK Worker)': (count: number) => drain.http(count),
      'gRPC reserve stream': (count: number) => drain.grpc(count),
      'beanstalkd protocol (jackd)': (count: number) => drain.beanstalkd(count),
    } as const;
    for (let run = 1; run <= runs; run++) {
      await inRound('drain', run, `round ${run}/${runs}: drain of ${jobs} ready jobs per protocol`, async (order) => {
        for (const name of rotate(Object.keys(protocols) as (keyof typeof protocols)[], run)) {
          order.push(name);
          const r = await protocols[name](jobs).catch((err: unknown) => {
            failures.push(`drain · ${name}: ${(err as Error).message}`);
            return undefined;
          });
          if (!r) continue;
          add('drain', name, 'rate', r.jobsPerS);
          add('drain', name, 'missing', r.missing);
          if (r.missing > 0) failures.push(`drain · ${name}: ${r.missing} job(s) not finished`);
        }
      });
    }
  } catch (err) {
    failures.push(`drain: ${(err as Error).message}`);
  } finally {
    await drain.close();
  }
}
