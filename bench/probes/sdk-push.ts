// The SDK's pushes at 100 in flight beside BullMQ's queue.add at 100 in flight, on one Redis, alternated in one
// process: the built server (dist/) in its own process, fresh, measured in steps of JOBS pushes so its warm-up
// shows (pushes/s, the server's CPU and this process's CPU a push). Each step pushes once per request cap named:
// the SDK's requests held to at most that many jobs (1000: as it sends them; 50: requests of 50 always).
// Usage: npx tsx bench/probes/sdk-push.ts [JOBS=30000] [CAPS=1000,50] [ROUNDS=3]
//   WARM=N  pushes N jobs due at once and drains them (the SDK Worker) before measuring, as the bench warms.
import { Queue } from 'bullmq';
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import { LIMITS } from '../../src/core/limits.js';
import { ensureServerBuilt, serverArgs } from '../build-server.js';
import { FAR_MS, IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cleanup, cpuMsOf, freePort, startProcess, startRedis } from '../servers.js';
import { bodyFor } from '../subject.js';

const jobs = Number(process.argv[2] ?? 30_000);
const caps = (process.argv[3] ?? '1000,50').split(',').map(Number);
const rounds = Number(process.argv[4] ?? 3);
const warm = Number(process.env['WARM'] ?? 0);
ensureServerBuilt((line) => console.log(line));
const redis = await startRedis();
const port = await freePort();
const overrides = { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${redis.port}` } };
const server = await startProcess(
  'delayq server',
  process.execPath,
  serverArgs(String(port), JSON.stringify(overrides)),
  port,
  120_000,
);
const client = new DelayqClient({ url: `http://127.0.0.1:${port}` });
const queue = new Queue('probe', { connection: { host: '127.0.0.1', port: redis.port } });
// The probe's own knob: the coalescer splits a turn's pushes into requests of at most this many.
const limits = LIMITS as { pushBatchMax: number };
try {
  if (warm > 0) {
    await withInFlight(warm, IN_FLIGHT, async () => void (await client.push({ topic: 'warm', body: bodyFor(0) })));
    let drained = 0;
    const worker = new Worker(client, { concurrency: 100, waitMs: 1000, handlers: { warm: () => void drained++ } });
    worker.start();
    while (drained < warm) await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.close();
  }
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const cap of caps) {
      limits.pushBatchMax = cap;
      const [server0, self0, started] = [cpuMsOf(server.pid), process.cpuUsage(), performance.now()];
      const dueAt = Date.now() + FAR_MS;
      await withInFlight(jobs, IN_FLIGHT, async () => {
        await client.push({ topic: 'probe', runAt: dueAt, body: bodyFor(dueAt) });
      });
      const seconds = (performance.now() - started) / 1000;
      const self = process.cpuUsage(self0);
      line.push(
        `SDK (at most ${cap} a request) ${Math.round(jobs / seconds)}/s, server ${(((cpuMsOf(server.pid) - server0) * 1000) / jobs).toFixed(1)} µs, ` +
          `client ${((self.user + self.system) / jobs).toFixed(1)} µs a push`,
      );
    }
    const started = performance.now();
    await withInFlight(jobs, IN_FLIGHT, async () => void (await queue.add('j', bodyFor(0), { delay: FAR_MS })));
    line.push(`BullMQ ${Math.round(jobs / ((performance.now() - started) / 1000))}/s`);
    console.log(`round ${round}: ${line.join(' | ')}`);
  }
} finally {
  limits.pushBatchMax = 1000;
  await queue.close();
  await client.close();
  await server.stop();
  await cleanup();
}
