// beanstalkd 1.12 (Debian) through jackd: `put` with a whole-second delay over a pool of producer
// connections (jackd pipelines, but parses replies slowly: 10 connections put ≈ 1.6× what one does), and
// one connection per concurrent consumer (reserve blocks its connection), as beanstalkd's protocol
// intends. A fresh server per run, so RSS deltas start from the same baseline.
import type { JackdClient } from 'jackd';
import { sleep } from '../lib.js';
import { cpuMsOf, rssBytes, startBeanstalkd, type Server } from '../servers.js';
import { bodyFor, type Consumer, type OnJob, type Subject } from '../subject.js';

// Loaded on first use, so a missing jackd fails the beanstalkd rows only, with a clear message.
// jackd is CommonJS with `module.exports = JackdClient`: at run time the default import is the class
// itself, while its typings describe a module object; the cast reconciles the two.
let clientClass: typeof JackdClient | undefined;
async function jackdClass(): Promise<typeof JackdClient> {
  if (!clientClass) {
    try {
      clientClass = (await import('jackd')).default as unknown as typeof JackdClient;
    } catch (err) {
      throw new Error(`the beanstalkd client jackd is not installed (npm ci installs it): ${(err as Error).message}`);
    }
  }
  return clientClass;
}

const TUBE = 'bench';
const TTR_S = 30;
const PRODUCER_CONNECTIONS = 10;

export async function connect(port: number): Promise<JackdClient> {
  const client = new (await jackdClass())();
  await client.connect({ host: '127.0.0.1', port });
  return client;
}

export class BeanstalkdSubject implements Subject {
  readonly family: Subject['family'] = 'beanstalkd';
  readonly resolutionMs = 1000;
  readonly memoryKind: string = 'beanstalkd RSS';
  readonly name: string = 'beanstalkd';
  readonly note: string =
    'beanstalkd 1.12 (Debian), no binlog; delays in whole seconds (rounded up). Client jackd 2.2.2 over 10 producer connections ' +
    'and one connection per consumer slot; jackd, not the server, limits its push rate (one connection put ≈ 22k/s here)';
  protected server: (Pick<Server, 'port' | 'stop'> & { pid?: number }) | undefined;
  private producers: JackdClient[] = [];
  private nextProducer = 0;

  async open(): Promise<void> {
    this.server = await this.startServer();
    const port = this.server.port;
    this.producers = await Promise.all(
      Array.from({ length: PRODUCER_CONNECTIONS }, async () => {
        const client = await connect(port);
        await client.use(TUBE);
        return client;
      }),
    );
  }

  /** The server the jackd clients talk to: beanstalkd itself here. */
  protected startServer(): Promise<Pick<Server, 'port' | 'stop'> & { pid?: number }> {
    return startBeanstalkd();
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.producers.map((c) => c.quit()));
    this.producers = [];
    await this.server?.stop();
    this.server = undefined;
  }

  /** Whole seconds only: the job is due at the first whole second at or after `dueAt`, counted from now. */
  async push(dueAt: number): Promise<void> {
    const now = Date.now();
    const delayS = Math.max(0, Math.ceil((dueAt - now) / 1000));
    const producer = this.producers[this.nextProducer++ % this.producers.length]!;
    await producer.put(JSON.stringify(bodyFor(now + delayS * 1000)), { delay: delayS, ttr: TTR_S });
  }

  async memoryBytes(): Promise<number> {
    return rssBytes(this.server!.pid!);
  }

  async serverCpuMs(): Promise<number> {
    return cpuMsOf(this.server!.pid!);
  }

  async consume(concurrency: number, onJob: OnJob): Promise<Consumer> {
    const port = this.server!.port;
    let stopped = false;
    const clients = await Promise.all(Array.from({ length: concurrency }, () => connect(port)));
    const loops = clients.map(async (client) => {
      await client.watch(TUBE);
      await client.ignore('default');
      while (!stopped) {
        let job;
        try {
          job = await client.reserveWithTimeout(1);
        } catch (err) {
          if (stopped || /TIMED_OUT|DEADLINE_SOON/.test(String((err as Error).message ?? err))) continue;
          throw err;
        }
        const payload = typeof job.payload === 'string' ? job.payload : job.payload.toString('utf8');
        onJob((JSON.parse(payload) as { d: number }).d);
        await client.delete(job.id);
      }
    });
    return {
      stop: async () => {
        stopped = true;
        // jackd never settles a reserve whose connection closed, so the loops are awaited only briefly:
        // each ends within its 1 s reserve timeout or is left pending on a closed socket.
        await Promise.race([Promise.allSettled(loops), sleep(100)]);
        await Promise.allSettled(clients.map((c) => c.quit()));
      },
    };
  }
}
