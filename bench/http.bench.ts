/**
 * HTTP throughput on the embedded (SQLite) store, measured with autocannon against `delayq serve`
 * running in its own process (so the load generator does not share its event loop):
 *   1. pushes/s, one job per request          POST /v1/jobs
 *   2. pushes/s, 100 jobs per request          POST /v1/jobs/batch
 *   3. reserve+finish cycles/s                 POST /v1/reserve → POST /v1/jobs/:id/finish
 * Run: npx tsx bench/http.bench.ts [--duration 10] [--connections 50]
 * Bodies are 100 bytes, as in PERFORMANCE.md. Results go to stdout as a Markdown table.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const durationS = flag('duration', 10);
const connections = flag('connections', 50);
const root = join(import.meta.dirname, '..');
const body100 = 'x'.repeat(100);

async function startServer(dataDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data', join(dataDir, 'bench.db')],
    {
      cwd: root,
      env: { ...process.env, DELAYQ_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // Requests log at debug, so at info the server prints only its start-up lines: read the URL there.
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /"url":"(http:[^"]+)"/.exec(buffer);
      if (match) resolve(match[1]!);
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ duration: durationS, connections, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

async function post(url: string, path: string, json: unknown): Promise<any> {
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  return response.json();
}

async function finishedCount(url: string, topic: string): Promise<number> {
  const stats = (await (await fetch(`${url}/v1/stats`)).json()) as {
    topics: { topic: string; counts: { finished: number } }[];
  };
  return stats.topics.find((t) => t.topic === topic)?.counts.finished ?? 0;
}

const rows: string[] = [];
const row = (scenario: string, rate: number, unit: string, result: autocannon.Result): void => {
  rows.push(
    `| ${scenario} | ${Math.round(rate).toLocaleString('en')} ${unit} | ${Math.round(result.requests.average).toLocaleString('en')} | ${result.latency.p50} / ${result.latency.p99} ms | ${result.non2xx + result.errors} |`,
  );
};

const dataDir = mkdtempSync(join(tmpdir(), 'delayq-bench-'));
const server = await startServer(dataDir);
try {
  const json = { 'content-type': 'application/json' };
  const single = await run({
    url: `${server.url}/v1/jobs`,
    method: 'POST',
    headers: json,
    body: JSON.stringify({ topic: 'bench-push', body: body100, delayMs: 3_600_000 }),
  });
  row('push, 1 job per request', single.requests.average, 'jobs/s', single);

  const batchSize = 100;
  const batch = await run({
    url: `${server.url}/v1/jobs/batch`,
    method: 'POST',
    headers: json,
    connections: Math.min(connections, 10),
    body: JSON.stringify({
      jobs: Array.from({ length: batchSize }, () => ({ topic: 'bench-batch', body: body100, delayMs: 3_600_000 })),
    }),
  });
  row(`push, ${batchSize} jobs per request`, batch.requests.average * batchSize, 'jobs/s', batch);

  // Fill the consumer topic with ready jobs, more than the cycle scenario can drain.
  const fill = 100_000;
  for (let i = 0; i < fill; i += 1000) {
    await Promise.all(
      Array.from({ length: 10 }, () =>
        post(server.url, '/v1/jobs/batch', {
          jobs: Array.from({ length: 100 }, () => ({ topic: 'bench-consume', body: body100 })),
        }),
      ),
    );
  }
  const before = await finishedCount(server.url, 'bench-consume');
  const cycles = await run({
    url: server.url,
    requests: [
      {
        method: 'POST',
        path: '/v1/reserve',
        headers: json,
        body: JSON.stringify({ topics: ['bench-consume'], count: 1 }),
        onResponse: (_status, body, context) => {
          const first = (JSON.parse(body) as { reservations: { job: { id: string }; token: string }[] })
            .reservations[0];
          context['id'] = first?.job.id ?? 'none';
          context['token'] = first?.token ?? 'none';
        },
      },
      {
        method: 'POST',
        headers: json,
        setupRequest: (request, context) => ({
          ...request,
          path: `/v1/jobs/${String(context['id'])}/finish`,
          body: JSON.stringify({ token: context['token'] }),
        }),
      },
    ],
  });
  const finished = (await finishedCount(server.url, 'bench-consume')) - before;
  row('reserve + finish (1 job per reserve)', finished / durationS, 'cycles/s', cycles);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(
  `\nnode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  `autocannon: ${connections} connections (batch: ${Math.min(connections, 10)}), ${durationS} s per scenario\n`,
);
console.log('| scenario | rate | requests/s | latency p50 / p99 | errors |');
console.log('| --- | --- | --- | --- | --- |');
for (const line of rows) console.log(line);
