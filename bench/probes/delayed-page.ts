// The first page of `GET /v1/delayed` over HTTP on a warm server: the built server in one of bench:scale's
// shapes (redis, cluster, embedded…), N of bench:scale's jobs (8 topics, due over 30 days) pushed in batches,
// then 9 reads of each path, median. bench:scale reads each path a few times unrecorded first (--warm-reads).
// Usage: npx tsx bench/probes/delayed-page.ts [JOBS=100000] [SHAPE=redis]
import { ensureServerBuilt } from '../build-server.js';
import { JobPusher } from '../scale/jobs.js';
import { SHAPES, type ShapeKey } from '../scale/options.js';
import { ScaleShape } from '../scale/shapes.js';
import { cleanup } from '../servers.js';

const n = Number(process.argv[2] ?? 100_000);
const key = (process.argv[3] ?? 'redis') as ShapeKey;
if (!SHAPES.includes(key)) throw new Error(`shape: one of ${SHAPES.join(', ')}`);
ensureServerBuilt((l) => console.error(l));
const shape = await ScaleShape.start(key);
try {
  const pusher = new JobPusher(shape.http, Date.now());
  await pusher.batches(0, n);
  for (const path of ['/v1/delayed?limit=100', '/v1/delayed?limit=100&topic=t3', '/v1/delayed?limit=10']) {
    const times: number[] = [];
    for (let r = 0; r < 9; r++) {
      const t = performance.now();
      const body = await shape.http.request('GET', path);
      times.push(performance.now() - t);
      if (r === 0) console.log(path, 'bytes', body.length);
    }
    times.sort((a, b) => a - b);
    console.log(path, 'median', times[4]!.toFixed(1), 'min', times[0]!.toFixed(1), 'max', times[8]!.toFixed(1));
  }
} finally {
  await shape.close();
  await cleanup();
}
