// Embedded store (SQLite, WAL) in-process: push throughput and timer lateness.
// Run: npx tsx bench/embedded.bench.ts [--quick]   → prints markdown, writes bench/results/embedded.md
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DelayqService } from '../src/service/service.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { fmt, machine, median, summarize } from './lib.js';

const quick = process.argv.includes('--quick');
const BODY = { payload: 'x'.repeat(80) }; // ≈ 100 bytes of JSON, as in PERFORMANCE.md
const dir = mkdtempSync(join(tmpdir(), 'delayq-bench-'));
let n = 0;

async function withService<T>(fn: (service: DelayqService) => Promise<T>): Promise<T> {
  const path = join(dir, `bench-${n++}.db`);
  const service = new DelayqService({ store: new SqliteStore({ path, nodeId: 'bench' }), nodeId: 'bench' });
  await service.start();
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

async function pushRate(mode: 'sequential' | 'inflight100' | 'batch1000', count: number): Promise<number> {
  return withService(async (service) => {
    const started = performance.now();
    if (mode === 'sequential') {
      for (let i = 0; i < count; i++) await service.push({ topic: 'bench', delayMs: 3_600_000, body: BODY });
    } else if (mode === 'inflight100') {
      let next = 0;
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          while (next < count) {
            next++;
            await service.push({ topic: 'bench', delayMs: 3_600_000, body: BODY });
          }
        }),
      );
    } else {
      for (let i = 0; i < count; i += 1000) {
        await service.pushBatch(
          Array.from({ length: Math.min(1000, count - i) }, () => ({ topic: 'bench', delayMs: 3_600_000, body: BODY })),
        );
      }
    }
    return count / ((performance.now() - started) / 1000);
  });
}

/** `count` jobs due evenly over `spreadMs`; one long-polling consumer reserves and finishes them. */
async function lateness(count: number, spreadMs: number) {
  return withService(async (service) => {
    const base = Date.now() + 8000;
    for (let i = 0; i < count; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, count - i) }, (_, k) => ({
        topic: 'late',
        runAt: base + Math.floor(((i + k) * spreadMs) / count),
        body: BODY,
      }));
      await service.pushBatch(batch);
    }
    if (Date.now() > base) throw new Error('pushing took longer than the lead time; raise it');
    const promoted: number[] = [];
    const delivered: number[] = [];
    let done = 0;
    while (done < count) {
      const reserved = await service.reserve({ topics: ['late'], count: 100, waitMs: 1000 });
      const at = Date.now();
      for (const r of reserved) {
        promoted.push(r.job.readyAt! - r.job.runAt);
        delivered.push(at - r.job.runAt);
      }
      await Promise.all(reserved.map((r) => service.finish(r.job.id, r.token)));
      done += reserved.length;
    }
    return { promoted: summarize(promoted), delivered: summarize(delivered) };
  });
}

const runs = quick ? 1 : 3;
const pushCount = quick ? 5_000 : 50_000;
const rows: string[] = [];
for (const mode of ['sequential', 'inflight100', 'batch1000'] as const) {
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) rates.push(await pushRate(mode, pushCount));
  rows.push(
    `| push, ${mode} (${fmt(pushCount)} jobs) | ${fmt(median(rates))} jobs/s | ${fmt(Math.min(...rates))}–${fmt(Math.max(...rates))} |`,
  );
}
const lateCount = quick ? 10_000 : 100_000;
const late = await lateness(lateCount, quick ? 2000 : 10_000);
rmSync(dir, { recursive: true, force: true });

const md = `### Embedded store (SQLite, WAL, synchronous=NORMAL), in-process

Machine: ${machine()}. Command: \`npx tsx bench/embedded.bench.ts${quick ? ' --quick' : ''}\`. Body ≈ 100 bytes. ${runs} run(s), median (min–max).

| scenario | median | range |
| --- | --- | --- |
${rows.join('\n')}

Lateness with ${fmt(lateCount)} jobs due evenly over ${quick ? 2 : 10} s, one consumer long-polling 100 at a time:

| measure | p50 | p99 | max |
| --- | --- | --- | --- |
| promotion (readyAt − runAt) | ${late.promoted.p50} ms | ${late.promoted.p99} ms | ${late.promoted.max} ms |
| delivery (reserve returned − runAt) | ${late.delivered.p50} ms | ${late.delivered.p99} ms | ${late.delivered.max} ms |
`;
process.stdout.write(md);
writeFileSync(new URL(`./results/embedded${quick ? '-quick' : ''}.md`, import.meta.url), md);
