// Child process of sqlite-crash.test.ts: pushes jobs as fast as it can and consumes some, printing
// `A <id>` once a push is acknowledged and `F <id>` once a finish is acknowledged. The parent kills it
// with SIGKILL in the middle of this.
import { DelayqService } from '../../src/service/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const [path, prefix] = process.argv.slice(2) as [string, string];
const service = new DelayqService({
  store: new SqliteStore({ path, nodeId: `child-${process.pid}` }),
  nodeId: `child-${process.pid}`,
});
await service.start();
const out = (line: string) => process.stdout.write(line + '\n');

async function produce(): Promise<void> {
  for (let i = 0; ; i++) {
    const { job } = await service.push({
      id: `${prefix}-${i}`,
      topic: 'crash',
      delayMs: i % 7 === 0 ? 0 : i % 300,
      ttrMs: 1000,
      // plenty of attempts: the unfinished fifth may lapse several times before the kill
      retry: { maxAttempts: 1000, backoff: { type: 'fixed', delayMs: 0 } },
    });
    out(`A ${job.id}`);
  }
}

async function consume(): Promise<void> {
  for (;;) {
    const reserved = await service.reserve({ topics: ['crash'], count: 20, waitMs: 200 });
    for (const r of reserved) {
      // leave every fifth reservation unfinished: those are in flight when the kill comes
      if (r.job.id.endsWith('5')) continue;
      await service.finish(r.job.id, r.token);
      out(`F ${r.job.id}`);
    }
  }
}

out('READY');
void produce();
void consume();
