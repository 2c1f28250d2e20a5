// The durable floor of a beanstalkd server on Redis (bench/probes/beanstalkd-redis-floor.mjs): a Node server
// answering the protocol with the least Redis work that keeps every job durable, no history, priorities,
// stats or events. Not a design: what any store keeping its jobs in Redis pays at least per job, driven by
// the same jackd clients as beanstalkd. It knows no delays (every put is ready), so it has no burst.
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { cpuMsOf, freePort, rssBytes, startProcess } from '../servers.js';
import { BeanstalkdSubject } from './beanstalkd-subject.js';
import { redisCommandCalls, redisCpuMs } from './delayq-subject.js';

export const REDIS_FLOOR = 'durable floor (Node + Redis)';
const SCRIPT = fileURLToPath(new URL('../probes/beanstalkd-redis-floor.mjs', import.meta.url));

export class RedisFloorSubject extends BeanstalkdSubject {
  override readonly name = REDIS_FLOOR;
  override readonly memoryKind = 'floor RSS';
  override readonly note =
    'bench/probes/beanstalkd-redis-floor.mjs in its own process: put stores the body and queues the id, reserve moves ids to a ' +
    'reserved set, delete removes both, one script call per kind per event-loop turn; nothing else. Same jackd clients; ' +
    'server CPU = floor process + Redis';
  private readonly redisPort: number;
  private admin: Redis | undefined;
  private pid = 0;

  constructor(redisPort: number) {
    super();
    this.redisPort = redisPort;
  }

  protected override async startServer(): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
    this.admin = new Redis({ host: '127.0.0.1', port: this.redisPort, lazyConnect: true });
    await this.admin.connect();
    await this.admin.flushall(); // the benchmark's own Redis, never the shared 6379
    const port = await freePort();
    const server = await startProcess(
      REDIS_FLOOR,
      process.execPath,
      [SCRIPT, String(port), String(this.redisPort)],
      port,
    );
    this.pid = server.pid;
    return {
      port,
      pid: server.pid,
      stop: async () => {
        await server.stop();
        await this.admin?.quit();
        this.admin = undefined;
      },
    };
  }

  override async memoryBytes(): Promise<number> {
    return rssBytes(this.pid);
  }

  override async serverCpuMs(): Promise<number> {
    return (await redisCpuMs(this.admin!)) + cpuMsOf(this.pid);
  }

  async redisCpuMs(): Promise<number | undefined> {
    return this.admin ? redisCpuMs(this.admin) : undefined;
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return redisCommandCalls(this.admin!);
  }
}
