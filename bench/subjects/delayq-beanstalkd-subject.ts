// delayq on the Redis or the embedded store behind its beanstalkd front end (src/beanstalkd/), driven by the very same
// jackd clients as beanstalkd itself (beanstalkd-subject.ts): puts over 10 producer connections, one
// consumer connection per slot, reserve-with-timeout then delete. Like beanstalkd, the server runs in its
// own process: the built dist/ as `delayq serve` runs it (bench/http-server.mjs with a beanstalkd port),
// warmed up first as a running server would be. Every job is durable in the store before it is answered.
// BENCH_BEANSTALKD_SERVER=PATH runs another build's server script instead (e.g. a copy of an older dist/ beside
// its bench/http-server.mjs), so builds can be alternated run by run.
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { drainOverBeanstalkd } from '../protocol-drain.js';
import { IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cpuMsOf, freePort, rssBytes, startProcess, tempDir } from '../servers.js';
import { bodyFor } from '../subject.js';
import { BeanstalkdSubject, connect } from './beanstalkd-subject.js';
import { redisCpuMs, redisCommandCalls, usedMemory } from './delayq-subject.js';

/** Jobs put and drained on a tube of their own before measuring: a long-running server is warm (JIT). */
const WARM_UP_JOBS = 3000;
const WARM_UP_TUBE = 'bench-warm-up';

/** The store behind the listener: the benchmark's Redis (its port), or the embedded SQLite store. */
export type BeanstalkdBackend = { kind: 'redis'; port: number } | { kind: 'sqlite' };

export class DelayqBeanstalkdSubject extends BeanstalkdSubject {
  override readonly name: string;
  override readonly family = 'delayq' as const;
  override readonly memoryKind: string;
  override readonly note: string;
  private readonly backend: BeanstalkdBackend;
  private admin: Redis | undefined;
  private pid = 0;

  constructor(backend: BeanstalkdBackend) {
    super();
    this.backend = backend;
    const store = backend.kind === 'redis' ? 'Redis' : 'embedded';
    this.name = `delayq · ${store} · beanstalkd protocol`;
    this.memoryKind = backend.kind === 'redis' ? 'Redis used_memory' : 'delayq RSS';
    this.note =
      `delayq ${backend.kind === 'redis' ? 'RedisStore' : 'SqliteStore'} behind its beanstalkd listener, the server in its own process (built dist/, as beanstalkd ` +
      `runs in its own); the same jackd 2.2.2 clients as the beanstalkd row; server CPU = delayq process${backend.kind === 'redis' ? ' + Redis' : ''}`;
  }

  protected override async startServer(): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
    let store: string;
    if (this.backend.kind === 'redis') {
      this.admin = new Redis({ host: '127.0.0.1', port: this.backend.port, lazyConnect: true });
      await this.admin.connect();
      await this.admin.flushall(); // the benchmark's own Redis, never the shared 6379
      store = String(this.backend.port);
    } else {
      const path = join(tempDir('bs-sqlite'), 'delayq.db');
      store = JSON.stringify({ store: { kind: 'sqlite' }, sqlite: { path } });
    }
    const script = process.env['BENCH_BEANSTALKD_SERVER'] ?? SERVER_SCRIPT;
    if (script === SERVER_SCRIPT) ensureServerBuilt((line) => process.stderr.write(`${line}\n`));
    const [httpPort, port] = [await freePort(), await freePort()];
    // No gRPC port (''); the beanstalkd listener binds last, so once it answers the server is up.
    const server = await startProcess(
      'delayq server (beanstalkd protocol)',
      process.execPath,
      [script, String(httpPort), store, '', String(port)],
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
    return this.admin ? usedMemory(this.admin) : rssBytes(this.pid);
  }

  /** The delayq process and Redis: together they do what beanstalkd's one process does. */
  override async serverCpuMs(): Promise<number> {
    return (this.admin ? await redisCpuMs(this.admin) : 0) + cpuMsOf(this.pid);
  }

  async redisCpuMs(): Promise<number | undefined> {
    return this.admin ? redisCpuMs(this.admin) : undefined;
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return this.admin ? redisCommandCalls(this.admin) : Promise.resolve(new Map());
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
