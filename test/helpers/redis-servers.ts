import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** Extra redis-server processes for tests, on loopback ports of this branch's range (7001–7099). */
export const REDIS_TEST_ROOT = '/tmp/delayq-redis-test';

export interface RedisServer {
  port: number;
  dir: string;
  process: ChildProcess;
  /** SHUTDOWN NOSAVE, then waits for the process to exit. */
  stop(): Promise<void>;
}

function requireBinary(name: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
  if (!found)
    throw new Error(
      `${name} is not installed: the Redis Cluster/Sentinel tests need it (apt-get install redis-server)`,
    );
}

/** Stops whatever a previous crashed run left on this port (only ever our own test ports). */
function shutdownLeftover(port: number): void {
  spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { timeout: 3000, stdio: 'ignore' });
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function ping(port: number): Promise<boolean> {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 500,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Starts redis-server (or a sentinel with `sentinelConf`) in the foreground as a child of this process. */
export async function startRedis(
  port: number,
  args: string[] = [],
  options: { sentinelConf?: string; fresh?: boolean } = {},
): Promise<RedisServer> {
  requireBinary('redis-server');
  const dir = join(REDIS_TEST_ROOT, String(port));
  shutdownLeftover(port);
  if (options.fresh !== false) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let argv: string[];
  if (options.sentinelConf !== undefined) {
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(conf, `port ${port}\nbind 127.0.0.1\ndir ${dir}\n${options.sentinelConf}\n`);
    argv = [conf, '--sentinel'];
  } else {
    argv = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args];
  }
  const child = spawn('redis-server', argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitFor(`redis-server on 127.0.0.1:${port}${stderr ? ` (${stderr})` : ''}`, () => ping(port)).catch(
    (err: unknown) => {
      child.kill('SIGKILL');
      throw err;
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    dir,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      shutdownLeftover(port);
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** A 3-master Cluster (no replicas), ready when every node reports cluster_state:ok. */
export async function startCluster(ports: [number, number, number]): Promise<RedisServer[]> {
  const servers: RedisServer[] = [];
  for (const port of ports) {
    servers.push(
      await startRedis(port, [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '2000',
      ]),
    );
  }
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
    {
      encoding: 'utf8',
      timeout: 20_000,
    },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  for (const port of ports) {
    await waitFor(`cluster_state:ok on ${port}`, async () => {
      const out = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout;
      return out.includes('cluster_state:ok');
    });
  }
  return servers;
}

export interface SentinelSet {
  master: RedisServer;
  replica: RedisServer;
  sentinels: RedisServer[];
  masterName: string;
  url: string;
  stopAll(): Promise<void>;
}

/** A master, one replica and three sentinels watching them (quorum 2, 1 s down-after). */
export async function startSentinels(
  masterPort: number,
  replicaPort: number,
  sentinelPorts: number[],
  masterName = 'dqmaster',
): Promise<SentinelSet> {
  const master = await startRedis(masterPort);
  const replica = await startRedis(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
  await waitFor('replica in sync', async () => {
    const out = spawnSync('redis-cli', ['-p', String(replicaPort), 'info', 'replication'], { encoding: 'utf8' }).stdout;
    return out.includes('master_link_status:up');
  });
  const conf = [
    `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 2`,
    `sentinel down-after-milliseconds ${masterName} 1000`,
    `sentinel failover-timeout ${masterName} 3000`,
    `sentinel parallel-syncs ${masterName} 1`,
  ].join('\n');
  const sentinels: RedisServer[] = [];
  for (const port of sentinelPorts) sentinels.push(await startRedis(port, [], { sentinelConf: conf }));
  return {
    master,
    replica,
    sentinels,
    masterName,
    url: `redis-sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${masterName}`,
    async stopAll() {
      await Promise.all([...sentinels, master, replica].map((s) => s.stop()));
    },
  };
}

/** The port Sentinel currently names as the master. */
export function currentMasterPort(sentinelPort: number, masterName: string): number {
  const out = spawnSync('redis-cli', ['-p', String(sentinelPort), 'sentinel', 'get-master-addr-by-name', masterName], {
    encoding: 'utf8',
  }).stdout;
  return Number(out.trim().split('\n')[1]);
}
