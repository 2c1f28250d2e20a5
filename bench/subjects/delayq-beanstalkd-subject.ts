// delayq on the Redis store behind its beanstalkd front end (src/beanstalkd/), driven by the very same
// jackd clients as beanstalkd itself (beanstalkd-subject.ts): puts over 10 producer connections, one
// consumer connection per slot, reserve-with-timeout then delete. The delayq service runs in this process
// (as delayq-subject.ts does); every job is durable in Redis.
import { Redis } from 'ioredis';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { BeanstalkdSubject } from './beanstalkd-subject.js';
import { redisCpuMs, redisCommandCalls, usedMemory } from './delayq-subject.js';

export class DelayqBeanstalkdSubject extends BeanstalkdSubject {
  override readonly name = 'delayq · Redis · beanstalkd protocol';
  override readonly family = 'delayq' as const;
  override readonly memoryKind = 'Redis used_memory';
  override readonly note =
    'delayq RedisStore (1 partition) behind its beanstalkd listener, in the bench process; the same jackd 2.2.2 clients as the beanstalkd row';
  private readonly redisPort: number;
  private admin: Redis | undefined;

  constructor(redisPort: number) {
    super();
    this.redisPort = redisPort;
  }

  protected override async startServer(): Promise<{ port: number; stop(): Promise<void> }> {
    this.admin = new Redis({ host: '127.0.0.1', port: this.redisPort, lazyConnect: true });
    await this.admin.connect();
    await this.admin.flushall(); // the benchmark's own Redis, never the shared 6379
    const store = new RedisStore({ url: `redis://127.0.0.1:${this.redisPort}`, nodeId: 'bench', partitions: 1 });
    const service = new DelayqService({ store, nodeId: 'bench', clock: store.clock });
    await service.start();
    const listener = new BeanstalkdServer(service, { host: '127.0.0.1', port: 0, maxJobSize: 1024 * 1024 });
    const port = await listener.listen();
    return {
      port,
      stop: async () => {
        await listener.close();
        await service.close();
        await this.admin?.quit();
        this.admin = undefined;
      },
    };
  }

  override async memoryBytes(): Promise<number> {
    return usedMemory(this.admin!);
  }

  override async serverCpuMs(): Promise<number> {
    return redisCpuMs(this.admin!);
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return redisCommandCalls(this.admin!);
  }
}
