// delayq on the Redis store behind its beanstalkd front end (src/beanstalkd/), driven by the very same
// jackd clients as beanstalkd itself (beanstalkd-subject.ts): puts over 10 producer connections, one
// consumer connection per slot, reserve-with-timeout then delete. Like beanstalkd, the server runs in its
// own process: the built dist/ as `delayq serve` runs it (bench/http-server.mjs with a beanstalkd port),
// warmed up first as a running server would be. Every job is durable in Redis before it is answered.
// BENCH_BEANSTALKD_SERVER=PATH runs another build's server script instead (e.g. a copy of an older dist/ beside
// its bench/http-server.mjs), so builds can be alternated run by run.
import { Redis } from 'ioredis';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { drainOverBeanstalkd } from '../protocol-drain.js';
import { IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cpuMsOf, freePort, startProcess } from '../servers.js';
import { bodyFor } from '../subject.js';
import { BeanstalkdSubject, connect } from './beanstalkd-subject.js';
import { redisCpuMs, redisCommandCalls, usedMemory } from './delayq-subject.js';

/** Jobs put and drained on a tube of their own before measuring: a long-running server is warm (JIT). */
const WARM_UP_JOBS = 3000;
const WARM_UP_TUBE = 'bench-warm-up';

export class DelayqBeanstalkdSubject extends BeanstalkdSubject {
  override readonly name = 'delayq · Redis · beanstalkd protocol';
  override readonly family = 'delayq' as const;
  override readonly memoryKind = 'Redis used_memory';
  override readonly note =
    'delayq RedisStore behind its beanstalkd listener, the server in its own process (built dist/, as beanstalkd ' +
    'runs in its own); the same jackd 2.2.2 clients as the beanstalkd row; server CPU = delayq process + Redis';
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
    const script = process.env['BENCH_BEANSTALKD_SERVER'] ?? SERVER_SCRIPT;
    if (script === SERVER_SCRIPT) ensureServerBuilt((line) => process.stderr.write(`${line}\n`));
    const [httpPort, port] = [await freePort(), await freePort()];
    // No gRPC port (''); the beanstalkd listener binds last, so once it answers the server is up.
    const server = await startProcess(
      'delayq server (beanstalkd protocol)',
      process.execPath,
      [script, String(httpPort), String(this.redisPort), '', String(port)],
      port,
      60_000,
    );
    this.pid = server.pid;
    await warmUp(port);
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
    return usedMemory(this.admin!);
  }

  /** The delayq process and Redis: together they do what beanstalkd's one process does. */
  override async serverCpuMs(): Promise<number> {
    return (await redisCpuMs(this.admin!)) + cpuMsOf(this.pid);
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return redisCommandCalls(this.admin!);
  }
}

async function warmUp(port: number): Promise<void> {
  const producer = await connect(port);
  await producer.use(WARM_UP_TUBE);
  const body = JSON.stringify(bodyFor(0));
  await withInFlight(WARM_UP_JOBS, IN_FLIGHT, async () => void (await producer.put(body)));
  await producer.quit();
  const { missing } = await drainOverBeanstalkd(port, WARM_UP_TUBE, WARM_UP_JOBS);
  if (missing > 0) throw new Error(`warm-up: ${missing} of ${WARM_UP_JOBS} jobs did not come back`);
}
