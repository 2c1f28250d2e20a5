// The first page of `GET /v1/delayed` over HTTP on a warm server: the built server on the benchmark's own
// Redis, N of bench:scale's jobs (8 topics, due over 30 days) pushed in batches, then 9 reads of each path,
// median. bench:scale reads right after a restart, so its figure includes the path's first, unoptimised runs.
// Usage: npx tsx bench/probes/delayed-page.ts [JOBS=100000]
import { ensureServerBuilt } from '../build-server.js';
import { cleanup, startRedis } from '../servers.js';
import { DelayqHttpSubject } from '../subjects/delayq-http-subject.js';
import { NodeHttpClient } from '../subjects/plain-http.js';
import { JobPusher } from '../scale/jobs.js';
ensureServerBuilt((l) => console.error(l));
const n = Number(process.argv[2] ?? 100_000);
const redis = await startRedis();
const s = new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'sdk');
await s.open();
const http = new NodeHttpClient(s.port);
const pusher = new JobPusher(http, Date.now());
await pusher.batches(0, n);
for (const path of ['/v1/delayed?limit=100', '/v1/delayed?limit=100&topic=t3', '/v1/delayed?limit=10']) {
  const times: number[] = [];
  for (let r = 0; r < 9; r++) {
    const t = performance.now();
    const body = await http.request('GET', path);
    times.push(performance.now() - t);
    if (r === 0) console.log(path, 'bytes', body.length);
  }
  times.sort((a, b) => a - b);
  console.log(path, 'median', times[4]!.toFixed(1), 'min', times[0]!.toFixed(1), 'max', times[8]!.toFixed(1));
}
await s.close();
await cleanup();
