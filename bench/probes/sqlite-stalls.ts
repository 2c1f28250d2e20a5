// What holds the event loop on the embedded store at a steady rate: the service on a SQLite file, a producer
// at RATE jobs/s (each due 500 ms after its push) and a consumer (reserve 100, finishMany), for SECONDS.
// Reports each group commit's synchronous time (the transaction and its COMMIT, where an automatic WAL
// checkpoint would run) and the jobs' lateness; a loaded host inflates both, so compare runs side by side.
// Usage: npx tsx bench/probes/sqlite-stalls.ts [RATE=1000] [SECONDS=5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { DelayqService } from '../../src/service/service.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { sleep, summarize } from '../lib.js';

const rate = Number(process.argv[2] ?? 1000);
const seconds = Number(process.argv[3] ?? 5);
const flushMs: number[] = [];
const proto = GroupCommit.prototype as unknown as { flush: () => void };
const flush = proto.flush;
proto.flush = function (this: unknown) {
  const t0 = performance.now();
  flush.call(this);
  flushMs.push(performance.now() - t0);
};

const dir = mkdtempSync(join(tmpdir(), 'delayq-stalls-'));
const service = new DelayqService({ store: new SqliteStore({ path: join(dir, 's.db'), nodeId: 'p' }), nodeId: 'p' });
await service.start();
const lateness: number[] = [];
let stopped = false;
const consumer = (async () => {
  while (!stopped) {
    const got = await service.reserve({ topics: ['t'], count: 100, waitMs: 200 });
    const now = Date.now();
    for (const r of got) lateness.push(now - r.job.runAt);
    if (got.length) void service.finishMany(got.map((r) => ({ id: r.job.id, token: r.token })));
  }
})();
const total = rate * seconds;
const startedAt = Date.now();
let produced = 0;
while (produced < total) {
  const due = Math.min(total, Math.floor(((Date.now() - startedAt) * rate) / 1000) + 1);
  const batch: Promise<unknown>[] = [];
  for (; produced < due; produced++)
    batch.push(service.push({ topic: 't', runAt: startedAt + (produced * 1000) / rate + 500, body: '{"n":1}' }));
  await Promise.all(batch);
  await sleep(5);
}
while (lateness.length < total) await sleep(20);
stopped = true;
await consumer;
await service.close();
rmSync(dir, { recursive: true, force: true });
const f = summarize(flushMs);
const l = summarize(lateness);
console.log(`load ${loadavg()[0]!.toFixed(2)}; ${total} jobs at ${rate}/s`);
console.log(
  `  group commits: ${f.n}, p50 ${f.p50} ms, p99 ${f.p99} ms, max ${f.max} ms, over 5 ms: ${flushMs.filter((ms) => ms > 5).length}`,
);
console.log(`  lateness p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms`);
