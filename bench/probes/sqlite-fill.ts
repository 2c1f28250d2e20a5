// What the embedded store's push rate does as its backlog grows, by SQLite page cache: the service in this
// process on a fresh file, the jobs of `npm run bench:scale` (bench/scale/jobs.ts) pushed in batches of 1,000,
// 4 in flight, the rate printed per slice. Compare cache sizes one after the other on a quiet host.
// Usage: npx tsx bench/probes/sqlite-fill.ts [JOBS=1000000] [CACHE_MB=256] [SLICE=100000]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DelayqService } from '../../src/service/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { scaleJob } from '../scale/jobs.js';

const jobs = Number(process.argv[2] ?? 1_000_000);
const cacheMb = Number(process.argv[3] ?? 256);
const slice = Number(process.argv[4] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'delayq-fill-'));
const path = join(dir, 's.db');
const service = new DelayqService({ store: new SqliteStore({ path, nodeId: 'p', cacheMb }), nodeId: 'p' });
await service.start();
const t0 = Date.now();
let next = 0;
let sliceAt = performance.now();
async function pusher(): Promise<void> {
  while (next < jobs) {
    const from = next;
    next = Math.min(jobs, next + 1000);
    const batch = [];
    for (let n = from; n < next; n++) {
      const j = scaleJob(n, t0);
      batch.push({ topic: j.topic, bizKey: j.bizKey, runAt: j.runAt, body: JSON.stringify(j.body) });
    }
    await service.pushBatch(batch);
    if (Math.floor(next / slice) !== Math.floor(from / slice)) {
      const now = performance.now();
      const size = statSync(path).size;
      console.log(
        `${String(next).padStart(9)} jobs: ${Math.round((slice * 1000) / (now - sliceAt))} jobs/s, file ${(size / 2 ** 20).toFixed(0)} MiB, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB, load ${loadavg()[0]!.toFixed(2)}`,
      );
      sliceAt = now;
    }
  }
}
console.log(`cache ${cacheMb} MiB, ${jobs} jobs`);
await Promise.all([pusher(), pusher(), pusher(), pusher()]);
await service.close();
rmSync(dir, { recursive: true, force: true });
