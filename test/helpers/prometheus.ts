/**
 * A real Prometheus (Debian's `prometheus` package) scraping delayq instances on loopback, for tests that
 * evaluate the dashboard's and the alerts' queries as Prometheus itself does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PromSample {
  labels: Record<string, string>;
  value: number;
}

export interface Prometheus {
  /** An instant query at the current time; throws unless Prometheus answers success. */
  query(expr: string): Promise<PromSample[]>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Starts Prometheus scraping `targets` (http URLs) every second as job "delayq"; resolves once it is ready. */
export async function startPrometheus(targets: readonly string[]): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'delayq-prometheus-'));
  const hosts = targets.map((url) => new URL(url).host);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      '  - job_name: delayq',
      `    static_configs: [{ targets: [${hosts.map((h) => `'${h}'`).join(', ')}] }]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  try {
    child = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=error',
      ],
      { stdio: 'ignore' },
    );
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`prometheus is required (Debian: apt-get install prometheus): ${(err as Error).message}`);
  }
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${base}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus did not become ready on ${base}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    async query(expr) {
      const answer = (await (await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
        status: string;
        error?: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (answer.status !== 'success') throw new Error(`${expr}: ${answer.error}`);
      return answer.data!.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
    },
    stop,
  };
}
