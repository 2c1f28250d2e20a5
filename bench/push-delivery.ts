/**
 * Delivery throughput and lateness: N jobs, all due at the same instant `leadMs` from now, delivered
 * to a webhook on 127.0.0.1, or spread at `rate` jobs/s. Prints jobs/s from the first due time to the
 * last arrival, and lateness (arrival − runAt) percentiles.
 *   npx tsx bench/push-delivery.ts [jobs=5000] [concurrency=32] [rate=0 (all at once)]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Dispatcher } from '../src/delivery/dispatcher.js';
import { DelayqService } from '../src/service/service.js';
import { createSink } from '../src/delivery/create-sink.js';
import { SinkBindings } from '../src/delivery/sink-bindings.js';
import { SqliteBindingStore } from '../src/delivery/sqlite-binding-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

const jobs = Number(process.argv[2] ?? 5000);
const concurrency = Number(process.argv[3] ?? 32);
const rate = Number(process.argv[4] ?? 0);
const leadMs = 2000;

const arrivals: number[] = [];
const server = http.createServer((req, res) => {
  const runAt = Number(req.headers['delayq-run-at']);
  req.resume();
  req.on('end', () => {
    arrivals.push(Date.now() - runAt);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;

const service = new DelayqService({ store: new SqliteStore({ path: ':memory:', nodeId: 'bench' }) });
const bindings = new SinkBindings({ store: new SqliteBindingStore({ path: ':memory:' }) });
const dispatcher = new Dispatcher({ service, bindings, createSink });
await service.start();
await bindings.start();
dispatcher.start();
await bindings.setBinding('bench', {
  type: 'webhook',
  url: `http://127.0.0.1:${port}/`,
  allowedRanges: ['loopback'],
  concurrency,
});

const runAt = Date.now() + leadMs;
const dueAt = (n: number): number => (rate > 0 ? runAt + Math.floor((n * 1000) / rate) : runAt);
for (let i = 0; i < jobs; i += 500) {
  await service.pushBatch(
    Array.from({ length: Math.min(500, jobs - i) }, (_, k) => ({
      topic: 'bench',
      body: { n: i + k },
      runAt: dueAt(i + k),
    })),
  );
}
while (arrivals.length < jobs) await new Promise((r) => setTimeout(r, 5));
const lastAt = Date.now();
let finished = 0;
for (;;) {
  finished = (await service.topics.stats()).find((s) => s.topic === 'bench')?.counts.finished ?? 0;
  if (finished >= jobs) break;
  await new Promise((r) => setTimeout(r, 5));
}
const sorted = [...arrivals].sort((a, b) => a - b);
const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
console.log(
  `webhook: ${jobs} jobs ${rate > 0 ? `due at ${rate}/s` : 'due at once'}, concurrency ${concurrency}: ${Math.round(jobs / ((lastAt - runAt) / 1000))} jobs/s; ` +
    `lateness p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${sorted.at(-1)} ms; all ${finished} finished`,
);
await dispatcher.stop();
await bindings.close();
await service.close();
server.close();
