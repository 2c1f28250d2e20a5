/**
 * Replicated Redis topologies for the failover tests, on loopback ports 7600–7699 (Cluster bus ports
 * +10000), data under /tmp: a Cluster of 3 masters with one replica each, and a Sentinel set (master,
 * replica, 3 sentinels). Every node is a child of the test process, so a fault is a real signal:
 * kill -9, SIGSTOP/SIGCONT, or a restart with an empty data set (no node persists data).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ping, waitFor } from './redis-servers.js';

export const TOPOLOGY_ROOT = '/tmp/delayq-failover-test';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function checkPort(port: number): void {
  if (port < 7600 || port > 7699) throw new Error(`topology port ${port} is outside 7600–7699`);
}

/** One redis-server (or sentinel) process on a fixed port, which can be killed, paused and started again. */
export class RedisNode {
  readonly port: number;
  readonly dir: string;
  private readonly argv: (extra: string[]) => string[];
  private child: ChildProcess | undefined;

  constructor(port: number, argv: (extra: string[]) => string[]) {
    checkPort(port);
    this.port = port;
    this.dir = join(TOPOLOGY_ROOT, String(port));
    this.argv = argv;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process; `wipe` removes its directory first (a Cluster node then forgets its identity). */
  async start(options: { wipe?: boolean; extra?: string[] } = {}): Promise<void> {
    if (this.alive) throw new Error(`redis node ${this.port} is already running`);
    spawnSync('redis-cli', ['-p', String(this.port), 'shutdown', 'nosave'], { timeout: 3000, stdio: 'ignore' });
    if (options.wipe) rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    const child = spawn('redis-server', this.argv(options.extra ?? []), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    running.add(child);
    child.once('exit', () => running.delete(child));
    this.child = child;
    await waitFor(`redis node on 127.0.0.1:${this.port}`, async () => {
      if (child.exitCode !== null) throw new Error(`redis node ${this.port} exited: ${stderr}`);
      return ping(this.port);
    });
  }

  /** kill -9: the process is gone, with whatever it had not replicated. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGCONT'); // a paused process would take the SIGKILL only once resumed
    child.kill('SIGKILL');
    await exited;
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** One redis-cli command; the reply's text. */
  cli(...args: string[]): string {
    const out = spawnSync('redis-cli', ['-p', String(this.port), ...args], { encoding: 'utf8', timeout: 5000 });
    return out.stdout ?? '';
  }

  /** `INFO replication` as a map. */
  replication(): Record<string, string> {
    const entries = this.cli('info', 'replication')
      .split(/\r?\n/)
      .flatMap((line) => (line.includes(':') ? [line.split(':', 2) as [string, string]] : []));
    return Object.fromEntries(entries);
  }
}

const serverArgs =
  (port: number, dir: string, more: string[]) =>
  (extra: string[]): string[] => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    ...more,
    ...extra,
  ];

/** The Cluster's node timeout: a master silent this long is failed over by its replica. */
export const CLUSTER_NODE_TIMEOUT_MS = 1000;

/** A Cluster of 3 masters (first three ports) and 3 replicas (last three), node timeout 1 s. */
export class ReplicatedCluster {
  readonly nodes: RedisNode[];

  constructor(ports: readonly number[]) {
    if (ports.length !== 6) throw new Error('a replicated Cluster takes 6 ports (3 masters, 3 replicas)');
    this.nodes = ports.map((port) => {
      const dir = join(TOPOLOGY_ROOT, String(port));
      return new RedisNode(
        port,
        serverArgs(port, dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          String(CLUSTER_NODE_TIMEOUT_MS),
          // a replica that lost its master for long still takes over: the test decides what is lost
          '--cluster-replica-validity-factor',
          '0',
        ]),
      );
    });
  }

  get url(): string {
    return `redis-cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
  }

  async start(): Promise<void> {
    for (const node of this.nodes) await node.start({ wipe: true });
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...this.nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await this.waitHealthy();
  }

  /** Every node answers cluster_state:ok and each of the 3 masters has a replica in sync. */
  async waitHealthy(timeoutMs = 30_000): Promise<void> {
    await waitFor(
      'a healthy Cluster (3 masters, each with a replica in sync)',
      async () => {
        if (!this.nodes.every((n) => n.alive && n.cli('cluster', 'info').includes('cluster_state:ok'))) return false;
        const masters = this.masters();
        return (
          masters.length === 3 &&
          masters.every((m) => /slave0:.*state=online/.test(m.cli('info', 'replication'))) &&
          this.replicas().every((r) => r.replication()['master_link_status'] === 'up')
        );
      },
      timeoutMs,
      100,
    );
  }

  /** Nodes that are masters now (by their own account). */
  masters(): RedisNode[] {
    return this.nodes.filter((n) => n.alive && n.replication()['role'] === 'master');
  }

  replicas(): RedisNode[] {
    return this.nodes.filter((n) => n.alive && n.replication()['role'] === 'slave');
  }

  /** The replica of `master` (by port). */
  replicaOf(master: RedisNode): RedisNode {
    const replica = this.replicas().find((r) => Number(r.replication()['master_port']) === master.port);
    if (!replica) throw new Error(`no replica of ${master.port}`);
    return replica;
  }

  /** Waits until `replica` reports itself master (a failover happened). */
  async waitPromoted(replica: RedisNode, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `${replica.port} promoted to master`,
      async () => replica.replication()['role'] === 'master',
      timeoutMs,
    );
    await waitFor(
      'cluster_state:ok after the failover',
      async () => replica.cli('cluster', 'info').includes('cluster_state:ok'),
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill9()));
  }
}

/** Sentinel's down-after time: a master silent this long is failed over. */
export const SENTINEL_DOWN_AFTER_MS = 1000;

/** A master and a replica (first two ports) and three sentinels (last three), quorum 2. */
export class SentinelTopology {
  readonly servers: [RedisNode, RedisNode];
  readonly sentinels: RedisNode[];
  readonly masterName: string;

  constructor(ports: readonly number[], masterName = 'dqfailover') {
    if (ports.length !== 5) throw new Error('a Sentinel topology takes 5 ports (master, replica, 3 sentinels)');
    this.masterName = masterName;
    const [a, b, ...s] = ports as [number, number, ...number[]];
    this.servers = [
      new RedisNode(a, serverArgs(a, join(TOPOLOGY_ROOT, String(a)), [])),
      new RedisNode(b, serverArgs(b, join(TOPOLOGY_ROOT, String(b)), [])),
    ];
    this.sentinels = s.map((port) => {
      const dir = join(TOPOLOGY_ROOT, String(port));
      return new RedisNode(port, () => [join(dir, 'sentinel.conf'), '--sentinel']);
    });
  }

  get url(): string {
    return `redis-sentinel://${this.sentinels.map((n) => `127.0.0.1:${n.port}`).join(',')}/${this.masterName}`;
  }

  async start(): Promise<void> {
    const [master, replica] = this.servers;
    await master.start({ wipe: true });
    await replica.start({ wipe: true, extra: ['--replicaof', '127.0.0.1', String(master.port)] });
    await waitFor('the replica in sync', async () => replica.replication()['master_link_status'] === 'up');
    for (const sentinel of this.sentinels) {
      rmSync(sentinel.dir, { recursive: true, force: true });
      mkdirSync(sentinel.dir, { recursive: true });
      writeFileSync(
        join(sentinel.dir, 'sentinel.conf'),
        [
          `port ${sentinel.port}`,
          'bind 127.0.0.1',
          `dir ${sentinel.dir}`,
          `sentinel monitor ${this.masterName} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${this.masterName} ${SENTINEL_DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${this.masterName} 3000`,
          `sentinel parallel-syncs ${this.masterName} 1`,
          '',
        ].join('\n'),
      );
      await sentinel.start();
    }
    await this.waitHealthy(30_000, true);
  }

  /** The server the sentinels name as master now. */
  masterPort(): number {
    const out = this.sentinels[0]!.cli('sentinel', 'get-master-addr-by-name', this.masterName);
    return Number(out.trim().split('\n')[1]);
  }

  master(): RedisNode {
    const port = this.masterPort();
    const node = this.servers.find((s) => s.port === port);
    if (!node) throw new Error(`sentinels name an unknown master ${port}`);
    return node;
  }

  replica(): RedisNode {
    const port = this.masterPort();
    return this.servers.find((s) => s.port !== port)!;
  }

  /**
   * Every sentinel agrees on a master that says it is master and its replica is in sync; with `discovered`,
   * the sentinels also list the replica and each other (a first failover needs both; later ones reuse what
   * they learnt, and the listing refreshes only every 10 s).
   */
  async waitHealthy(timeoutMs = 30_000, discovered = false): Promise<void> {
    await waitFor(
      'a healthy Sentinel set (one master, its replica in sync, 3 sentinels agreeing)',
      async () => {
        const ports = this.sentinels.map((s) =>
          Number(s.cli('sentinel', 'get-master-addr-by-name', this.masterName).trim().split('\n')[1]),
        );
        if (new Set(ports).size !== 1) return false;
        const master = this.master();
        const replica = this.replica();
        if (!master.alive || !replica.alive || master.replication()['role'] !== 'master') return false;
        if (replica.replication()['master_link_status'] !== 'up') return false;
        if (Number(replica.replication()['master_port']) !== master.port) return false;
        if (!discovered) return true;
        const info = this.sentinels[0]!.cli('info', 'sentinel');
        return /slaves=1,sentinels=3/.test(info);
      },
      timeoutMs,
      100,
    );
  }

  /** Waits until the sentinels name `port` as master and it has taken the role. */
  async waitMaster(port: number, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `${port} as master`,
      async () =>
        this.sentinels.every(
          (s) => Number(s.cli('sentinel', 'get-master-addr-by-name', this.masterName).trim().split('\n')[1]) === port,
        ) && this.servers.find((s) => s.port === port)!.replication()['role'] === 'master',
      timeoutMs,
      100,
    );
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.servers].map((n) => n.kill9()));
  }
}
