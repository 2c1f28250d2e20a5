import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { startCluster, waitFor } from '../helpers/redis-servers.js';

const prefixes = prefixPool('mp');
afterAll(() => prefixes.sweep());

const WORKER = fileURLToPath(new URL('../helpers/redis-worker.ts', import.meta.url));
const TOTAL = 20_000;

interface Report {
  name: string;
  pushed: string[];
  delivered: string[];
}

/** Starts 3 worker processes on `url`, waits until `total` jobs are finished, checks once-only delivery. */
async function runThreeProcesses(url: string, prefix: string, total: number): Promise<void> {
  const topic = 'shared';
  const children: ChildProcess[] = [];
  const reports: Promise<Report>[] = [];
  const shares = [Math.ceil(total / 3), Math.ceil(total / 3), total - 2 * Math.ceil(total / 3)];
  shares.forEach((n, i) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, url, prefix, topic, `proc-${i}`, String(n)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    reports.push(
      new Promise((resolve, reject) => {
        child.once('message', (m) => resolve(m as Report));
        // 'close', not 'exit': a process can exit before its last message has been read from the channel.
        child.once('close', (code) => reject(new Error(`worker proc-${i} exited with ${code} before reporting`)));
      }),
    );
  });
  const observer = new RedisStore({ url, prefix, nodeId: 'observer' });
  await observer.open();
  try {
    const finished = async (): Promise<number> =>
      (await observer.stats()).find((s) => s.topic === topic)?.counts.finished ?? 0;
    await waitFor(`${total} finished jobs`, async () => (await finished()) === total, 120_000, 250);
    for (const child of children) child.send('stop');
    const results = await Promise.all(reports);

    const pushed = results.flatMap((r) => r.pushed);
    const delivered = results.flatMap((r) => r.delivered);
    expect(pushed).toHaveLength(total);
    expect(delivered).toHaveLength(total);
    expect(new Set(delivered).size).toBe(total);
    expect(new Set(delivered)).toEqual(new Set(pushed));
    expect(results.every((r) => r.delivered.length > 0)).toBe(true);

    const stats = (await observer.stats()).find((s) => s.topic === topic)!;
    expect(stats.counts).toMatchObject({ delayed: 0, ready: 0, reserved: 0, finished: total, dead: 0 });
    const promoters = new Set<string>();
    let promotedTwice = 0;
    let reservedTwice = 0;
    for (let i = 0; i < pushed.length; i += 1000) {
      const histories = await Promise.all(pushed.slice(i, i + 1000).map((id) => observer.history(id)));
      for (const h of histories) {
        const promotes = h.filter((e) => e.event === 'promote');
        if (promotes.length + (h[0]!.state === 'ready' ? 1 : 0) > 1) promotedTwice++;
        if (h.filter((e) => e.event === 'reserve').length !== 1) reservedTwice++;
        promotes.forEach((e) => promoters.add(e.node));
      }
    }
    expect(promotedTwice).toBe(0);
    expect(reservedTwice).toBe(0);
    expect(promoters.size).toBeGreaterThan(1);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    await observer.close();
  }
}

describe('three delayq processes sharing Redis', () => {
  it('deliver 20k jobs exactly once each on one Redis: none lost, none promoted twice', async () => {
    await runThreeProcesses('redis://127.0.0.1:6379', prefixes.next(), TOTAL);
  }, 180_000);

  it('deliver 6k jobs exactly once each on a 3-master Cluster (7004–7006)', async () => {
    const servers = await startCluster([7004, 7005, 7006]);
    try {
      await runThreeProcesses('redis-cluster://127.0.0.1:7004,127.0.0.1:7005,127.0.0.1:7006', 'mpc', 6000);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 180_000);
});
