import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

/** Test data lives here; every server a test starts binds 127.0.0.1 on a port from 7200–7299. */
export const TEST_DATA_DIR = '/tmp/delayq-sinks-test';

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Fails loudly when a shared server the tests need is not running (never skips). */
export async function requireServer(name: string, port: number): Promise<void> {
  if (!(await portOpen(port))) {
    throw new Error(
      `${name} is not running on 127.0.0.1:${port}; start it (see .ci/services.sh) — these tests need the real ${name}`,
    );
  }
}

async function waitPort(port: number, open: boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await portOpen(port)) !== open) {
    if (Date.now() > deadline)
      throw new Error(`${what}: port ${port} did not ${open ? 'open' : 'close'} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A broker process this test owns: started on its own loopback port with its data under TEST_DATA_DIR,
 * killed and restarted at will (the "broker down" tests), always stopped by the test's teardown.
 */
export class LocalServer {
  readonly name: string;
  readonly port: number;
  readonly dir: string;
  private readonly command: () => { cmd: string; args: string[] };
  private readonly startTimeoutMs: number;
  private child: ChildProcess | undefined;

  constructor(options: {
    name: string;
    port: number;
    dir: string;
    command: (dir: string) => { cmd: string; args: string[] };
    startTimeoutMs?: number;
  }) {
    this.name = options.name;
    this.port = options.port;
    this.dir = options.dir;
    this.command = () => options.command(this.dir);
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
  }

  async start(): Promise<this> {
    if (await portOpen(this.port))
      throw new Error(`${this.name}: port ${this.port} is already taken; a previous run may have leaked a server`);
    const { cmd, args } = this.command();
    const child = spawn(cmd, args, { cwd: this.dir, stdio: 'ignore' });
    const spawnError = new Promise<never>((_, reject) =>
      child.once('error', (err) => reject(new Error(`${this.name}: cannot run ${cmd}: ${err.message}`))),
    );
    this.child = child;
    await Promise.race([waitPort(this.port, true, this.startTimeoutMs, this.name), spawnError]);
    return this;
  }

  /** Kills the process (SIGKILL by default: a crash, not a polite shutdown) and waits until its port is closed. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
    await waitPort(this.port, false, 10_000, this.name);
  }

  /** Final stop: kills the process and removes its data. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function freshDir(name: string): string {
  const dir = join(TEST_DATA_DIR, `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function natsServer(port: number): LocalServer {
  return new LocalServer({
    name: 'nats-server',
    port,
    dir: freshDir(`nats-${port}`),
    command: (dir) => ({
      cmd: 'nats-server',
      args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'js')],
    }),
  });
}

export function mosquittoServer(port: number): LocalServer {
  const dir = freshDir(`mosquitto-${port}`);
  chmodSync(dir, 0o777); // mosquitto started as root drops to its own user, which must write the session file
  // Persistence on: a broker stopped with SIGTERM saves its sessions and restores them on start.
  writeFileSync(
    join(dir, 'mosquitto.conf'),
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location ${dir}/\n`,
  );
  return new LocalServer({
    name: 'mosquitto',
    port,
    dir,
    command: (d) => ({ cmd: 'mosquitto', args: ['-c', join(d, 'mosquitto.conf')] }),
  });
}

export function redisServer(port: number): LocalServer {
  return new LocalServer({
    name: 'redis-server',
    port,
    dir: freshDir(`redis-${port}`),
    command: (dir) => ({
      cmd: 'redis-server',
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir],
    }),
  });
}

/**
 * ActiveMQ Classic from Debian's `activemq` package (STACK.md §4): our own broker XML (STOMP and OpenWire
 * on loopback, KahaDB under the test dir), run straight from activemq.jar, not the service wrapper.
 */
export function activemqServer(stompPort: number, openwirePort: number): LocalServer {
  const dir = freshDir(`activemq-${stompPort}`);
  for (const sub of ['conf', 'data', 'tmp']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(
    join(dir, 'conf', 'activemq.xml'),
    `<beans xmlns="http://www.springframework.org/schema/beans" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.springframework.org/schema/beans http://www.springframework.org/schema/beans/spring-beans-2.0.xsd
  http://activemq.apache.org/schema/core http://activemq.apache.org/schema/core/activemq-core.xsd">
  <broker xmlns="http://activemq.apache.org/schema/core" useJmx="false" brokerName="delayq-test" dataDirectory="${dir}/data">
    <persistenceAdapter><kahaDB directory="${dir}/data/kahadb"/></persistenceAdapter>
    <transportConnectors>
      <transportConnector name="openwire" uri="tcp://127.0.0.1:${openwirePort}"/>
      <transportConnector name="stomp" uri="stomp://127.0.0.1:${stompPort}"/>
    </transportConnectors>
  </broker>
</beans>
`,
  );
  return new LocalServer({
    name: 'ActiveMQ',
    port: stompPort,
    dir,
    startTimeoutMs: 60_000,
    command: (d) => ({
      cmd: 'java',
      args: [
        '-Xmx256m',
        `-Djava.io.tmpdir=${d}/tmp`,
        '-Dactivemq.home=/usr/share/activemq',
        `-Dactivemq.base=${d}`,
        `-Dactivemq.conf=${d}/conf`,
        `-Dactivemq.data=${d}/data`,
        '-jar',
        '/usr/share/activemq/bin/activemq.jar',
        'start',
        `xbean:file:${d}/conf/activemq.xml`,
      ],
    }),
  });
}
