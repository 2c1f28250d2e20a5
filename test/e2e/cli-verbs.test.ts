/**
 * Every CLI verb as a child process against a real server with a token: the table by default, the JSON
 * with --json, and the errors' exit codes and messages (docs/cli.md). The CLI is bundled once with esbuild
 * (beside copies of the assets its modules load by URL) so each call costs a node start, not a compile.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

const TOKEN = 'cli-admin-token-0123456789';
const root = join(import.meta.dirname, '..', '..');
// Inside the repository (.tmp/ is ignored) so the bundle's bare imports resolve to node_modules.
mkdirSync(join(root, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(root, '.tmp', 'cli-verbs-'));
const BUNDLE = join(dir, 'cli.mjs');
const CLI = [BUNDLE];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('delayq CLI verbs', { timeout: 180_000 }, () => {
  let server: TestServer;
  const run = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [...CLI, '--url', server.url, '--token', TOKEN, ...args],
        { cwd: root, env: { ...process.env, DELAYQ_TOKEN: '' } },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const json = async (...args: string[]) => {
    const r = await run('--json', ...args);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    return JSON.parse(r.stdout);
  };
  const api = (method: string, path: string, body?: unknown) =>
    http(server.url, method, path, { ...(body ? { json: body } : {}), headers: { authorization: `Bearer ${TOKEN}` } });

  beforeAll(async () => {
    await build({
      entryPoints: [join(root, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile: BUNDLE,
      logLevel: 'error',
    });
    cpSync(join(root, 'src/store/redis/lua'), join(dir, 'lua'), { recursive: true });
    cpSync(join(root, 'src/store/sqlite/migrations'), join(dir, 'migrations'), { recursive: true });
    server = await startServer({ overrides: { auth: { tokens: [{ token: TOKEN }] } } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('push, list, get, reschedule, run-now, cancel: tables by default, JSON with --json', async () => {
    expect(
      (
        await json(
          'push',
          'orders',
          '{"n":1}',
          '--id',
          'o-1',
          '--delay',
          '1h',
          '--biz-key',
          'order-42',
          '--tag',
          'close',
        )
      ).created,
    ).toBe(true);
    const listed = await run('list', '--biz-key', 'order-42');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+TOPIC\s+STATE/);
    expect(listed.stdout).toMatch(/o-1\s+orders\s+delayed/);
    expect(
      (await json('list', '--topic', 'orders', '--state', 'delayed')).jobs.map((j: { id: string }) => j.id),
    ).toEqual(['o-1']);
    expect((await json('list', '--tag', 'close')).jobs).toHaveLength(1);
    const got = await run('get', 'o-1', '--history');
    expect(got.stdout).toMatch(/bizKey\s+order-42/);
    expect(got.stdout).toMatch(/push\s+delayed/);
    const moved = await json('reschedule', 'o-1', '--delay', '2h');
    expect(moved.job.runAt).toBeGreaterThan(Date.now() + 3_600_000);
    expect((await json('run-now', 'o-1')).job).toMatchObject({ state: 'ready' });
    const again = await run('run-now', 'o-1');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('E_WRONG_STATE');
    expect((await run('cancel', 'o-1')).stdout).toBe('cancelled o-1\n');
    // debounce and spreading from the command line
    expect((await run('push', 'orders', '--id', 'deb-1', '--delay', '1m')).stdout).toMatch(/^pushed deb-1 \(delayed/);
    const extended = await run(
      'push',
      'orders',
      '--id',
      'deb-1',
      '--delay',
      '2m',
      '--on-exists',
      'extend',
      '--max-wait',
      '5m',
    );
    expect(extended.stdout).toMatch(/^extended deb-1 \(delayed/);
    expect((await run('push', 'orders', '--id', 'deb-1', '--on-exists', 'merge')).code).toBe(2);
    const tooShort = await run(
      'push',
      'orders',
      '--id',
      'deb-2',
      '--delay',
      '2m',
      '--on-exists',
      'extend',
      '--max-wait',
      '1m',
    );
    expect(tooShort.code).not.toBe(0);
    expect(tooShort.stderr).toContain('maxWaitMs');
    // the dedup window: a second push with the key answers the first job
    const dedup = ['--dedup-key', 'order-7', '--dedup-window', '10m'];
    expect((await run('push', 'orders', '--id', 'dd-1', ...dedup)).stdout).toMatch(/^pushed dd-1 /);
    expect((await run('push', 'orders', '--id', 'dd-2', ...dedup)).stdout).toMatch(/^duplicate of dd-1 /);
    const noWindow = await run('push', 'orders', '--dedup-key', 'order-8');
    expect(noWindow.code).not.toBe(0);
    expect(noWindow.stderr).toContain('dedupWindowMs');
    const before = Date.now();
    const spread = await json('push', 'orders', '--id', 'spread-1', '--delay', '1h', '--spread', '10m');
    expect(spread.job.runAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(spread.job.runAt).toBeLessThan(Date.now() + 3_600_000 + 600_000);
  });

  it('reserve, touch, release, fail, dead, redrive, finish', async () => {
    await json('push', 'pay', '--id', 'p-1', '--retry', '1s');
    const reserved = (await json('reserve', 'pay')).reservations[0];
    const touched = await run('touch', 'p-1', reserved.token, '--ttr', '60000');
    expect(touched.stdout).toMatch(/^touched p-1: deadline /);
    expect((await json('release', 'p-1', reserved.token)).job.state).toBe('ready');
    const again = (await json('reserve', 'pay')).reservations[0];
    expect((await run('fail', 'p-1', again.token, '--error', 'card declined', '--bury')).stdout).toBe('buried p-1\n');
    const dead = await run('dead', 'pay');
    expect(dead.stdout).toMatch(/p-1\s+pay\s+dead/);
    expect((await run('redrive', 'p-1')).stdout).toBe('redriven: 1\n');
    const third = (await json('reserve', 'pay')).reservations[0];
    expect((await json('finish', 'p-1', third.token)).job.state).toBe('finished');
    await json('push', 'pay', '--id', 'p-2');
    const fourth = (await json('reserve', 'pay')).reservations[0];
    await run('fail', 'p-2', fourth.token, '--bury');
    expect((await json('redrive', '--topic', 'pay')).count).toBe(1);
  });

  it('durations in every duration flag, reschedule --time-zone, stats of one topic (as --help and docs/cli.md say)', async () => {
    await json('push', 'cli-dur', '--id', 'dur-1');
    const before = Date.now();
    const [held] = (await json('reserve', 'cli-dur', '--ttr', '2h')).reservations;
    expect(held.deadlineAt).toBeGreaterThanOrEqual(before + 7_200_000);
    const touched = await json('touch', 'dur-1', held.token, '--ttr', '2m');
    expect(touched.job.deadlineAt).toBeLessThan(before + 7_200_000);
    expect(touched.job.deadlineAt).toBeGreaterThanOrEqual(before + 120_000);
    const failed = await json('fail', 'dur-1', held.token, '--retry-delay', '1s');
    expect(failed.job.runAt).toBeGreaterThanOrEqual(before + 1000);
    expect(failed.job.runAt).toBeLessThan(Date.now() + 60_000);
    const badTtr = await run('reserve', 'cli-dur', '--ttr', 'later');
    expect(badTtr.code).toBe(3);
    expect(badTtr.stderr).toContain('E_VALIDATION: ttrMs');

    await json('push', 'cli-dur', '--id', 'dur-2', '--delay', '1h');
    const moved = await json('reschedule', 'dur-2', '--run-at', '2030-12-01T10:00', '--time-zone', 'Asia/Shanghai');
    expect(moved.job.runAt).toBe(Date.parse('2030-12-01T02:00:00Z'));

    const one = await run('stats', 'cli-dur');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^TOPIC\s+DELAYED/);
    expect(one.stdout).toMatch(/\ncli-dur\s+\d+\s+\d+\s+0\s/); // dur-1 waits for its retry, or is ready again
    const { counts } = await json('stats', 'cli-dur');
    expect(counts.delayed + counts.ready).toBe(2);
    expect((await run('stats', 'no-such-topic')).code).toBe(4);
  });

  it('finish --result, bulk (dry run, then every slice), delayed, reserved', async () => {
    await json('push', 'cli-res', '{"n":1}', '--id', 'res-cli-1');
    const [r] = (await json('reserve', 'cli-res')).reservations;
    await json('finish', 'res-cli-1', r.token, '--result', '{"ok":true}');
    expect((await api('GET', '/v1/jobs/res-cli-1')).body.outcome.result).toEqual({ ok: true });
    for (const id of ['bk-1', 'bk-2', 'bk-3'])
      await json(
        'push',
        id.endsWith('3') ? 'cli-bulk-b' : 'cli-bulk-a',
        '{}',
        '--id',
        id,
        '--delay',
        '1h',
        '--biz-key',
        'ord-9',
      );
    expect(await json('bulk', '--action', 'cancel', '--biz-key', 'ord-9', '--dry-run')).toMatchObject({
      matched: 3,
      applied: 0,
    });
    const done = await json('bulk', '--action', 'cancel', '--biz-key', 'ord-9', '--limit', '2');
    expect(done).toMatchObject({ matched: 3, applied: 3 });
    expect(done.calls).toBeGreaterThanOrEqual(2);
    await json('push', 'cli-due', '{}', '--id', 'due-cli-2', '--delay', '2h');
    await json('push', 'cli-due', '{}', '--id', 'due-cli-1', '--delay', '1h');
    expect((await json('delayed', '--topic', 'cli-due')).jobs.map((j: { id: string }) => j.id)).toEqual([
      'due-cli-1',
      'due-cli-2',
    ]);
    await json('push', 'cli-held', '{}', '--id', 'held-cli-1');
    await json('reserve', 'cli-held');
    const table = await run('reserved', '--topic', 'cli-held');
    expect(table.stdout).toContain('held-cli-1');
    const bad = await run('bulk', '--action', 'cancel');
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('selector.topic');
  });

  it('stats, stats --watch, due, pause, resume, purge', async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    await api('POST', '/v1/jobs', { topic: 'remind', runAt: minute + 150_000 });
    await api('POST', '/v1/jobs', { topic: 'remind', runAt: minute + 170_000 });
    const stats = await run('stats');
    expect(stats.stdout).toMatch(/remind\s+2\s+0/);
    const watch = await run('stats', '--watch', '--interval', '50', '--times', '2');
    expect(watch.code).toBe(0);
    expect(watch.stdout.match(/^delayq http/gm)).toHaveLength(2);
    expect(watch.stdout).toContain('LATENESS P99');
    const due = await json('due', '--topic', 'remind', '--from', String(minute), '--span', '600000');
    expect(due.total).toBe(2);
    expect(due.buckets[2].count).toBe(2);
    expect((await run('due', '--topic', 'remind', '--from', String(minute), '--span', '600000')).stdout).toMatch(
      /total: 2\n$/,
    );
    expect((await run('pause', 'remind')).stdout).toBe('paused remind\n');
    expect((await json('stats')).topics.find((t: { topic: string }) => t.topic === 'remind').paused).toBe(true);
    expect((await run('resume', 'remind')).stdout).toBe('resumed remind\n');
    expect((await run('pause', 'remind', '--group', 'm-1', '--delay', '1h')).stdout).toBe('paused remind group m-1\n');
    expect((await run('paused-groups', 'remind')).stdout).toMatch(/^GROUP\s+UNTIL\nm-1\s+\d{4}-\d\d-\d\dT/);
    expect((await json('stats')).topics.find((t: { topic: string }) => t.topic === 'remind').paused).toBe(false);
    expect((await run('resume', 'remind', '--group', 'm-1')).stdout).toBe('resumed remind group m-1\n');
    expect((await run('paused-groups', 'remind')).stdout).toBe('no paused group in remind\n');
    expect((await run('purge', '--before', String(Date.now() + 1000))).stdout).toMatch(/^purged: \d+\n$/);
  });

  it("settings: shows a topic's settings, sets and removes its rate limit", async () => {
    expect((await run('settings', 'rated')).stdout).toBe(
      'rated\n  rate limit: none\n  group concurrency: none\n  rate per group: none\n',
    );
    expect((await run('settings', 'rated', '--rate', '2.5', '--burst', '4')).stdout).toBe(
      'rated\n  rate limit: 2.5/s, burst 4\n  group concurrency: none\n  rate per group: none\n',
    );
    expect(await json('settings', 'rated')).toEqual({ topic: 'rated', rateLimit: { perSecond: 2.5, burst: 4 } });
    const zero = await run('settings', 'rated', '--rate', '0');
    expect(zero.code).toBe(3);
    expect(zero.stderr).toContain('rateLimit.perSecond');
    expect(await json('settings', 'rated', '--no-rate')).toEqual({ topic: 'rated' });
  });

  it('groups: push --group, settings --group-concurrency keeps the rate limit, --no-group-concurrency', async () => {
    expect(await json('settings', 'grouped', '--rate', '5')).toMatchObject({ rateLimit: { perSecond: 5 } });
    expect((await run('settings', 'grouped', '--group-concurrency', '2')).stdout).toBe(
      'grouped\n  rate limit: 5/s, burst 1\n  group concurrency: 2 per group\n  rate per group: none\n',
    );
    const pushed = await json('push', 'grouped', '--group', 'tenant-9');
    expect(pushed.job.group).toBe('tenant-9');
    const bad = await run('push', 'grouped', '--group', 'not ok');
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('group');
    const zero = await run('settings', 'grouped', '--group-concurrency', '0');
    expect(zero.code).toBe(3);
    expect(zero.stderr).toContain('groupConcurrency');
    expect(await json('settings', 'grouped', '--no-group-concurrency')).toEqual({
      topic: 'grouped',
      rateLimit: { perSecond: 5, burst: 1 },
    });
    // Each group's own rate: set beside the others, refused naming its field, removed.
    expect((await run('settings', 'grouped', '--group-rate', '0.5', '--group-burst', '2')).stdout).toBe(
      'grouped\n  rate limit: 5/s, burst 1\n  group concurrency: none\n  rate per group: 0.5/s, burst 2, each group\n',
    );
    const noRate = await run('settings', 'grouped', '--group-rate', '0');
    expect(noRate.code).toBe(3);
    expect(noRate.stderr).toContain('groupRateLimit.perSecond');
    const lone = await run('settings', 'grouped', '--group-burst', '3');
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('--group-burst: give it with --group-rate');
    expect(await json('settings', 'grouped', '--no-group-rate')).toEqual({
      topic: 'grouped',
      rateLimit: { perSecond: 5, burst: 1 },
    });
  });

  it('errors: exit code by class, and the code and message on stderr', async () => {
    const missing = await run('get', 'no-such-job');
    expect(missing).toMatchObject({ code: 4, stdout: '' });
    expect(missing.stderr).toContain('delayq: E_NOT_FOUND: job no-such-job does not exist');
    const invalid = await run('push', 'orders', '--delay', 'soon');
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain('E_VALIDATION');
    await json('push', 'orders', '--id', 'done-1');
    await run('cancel', 'done-1');
    const wrong = await run('cancel', 'done-1');
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain('E_WRONG_STATE');
    const stale = await run('finish', 'done-1', 'not-a-token');
    expect(stale.code).toBe(5);
    // Ids are global: another topic's id is a conflict that does not say where it is; a tick's id is no caller's.
    const taken = await run('push', 'billing', '--id', 'done-1');
    expect(taken.code).toBe(5);
    expect(taken.stderr).toContain('E_CONFLICT');
    expect(taken.stderr).not.toContain('orders');
    const tick = await run('push', 'orders', '--id', 'nightly~1796092200000');
    expect(tick.code).toBe(3);
    expect(tick.stderr).toContain('E_VALIDATION');
    const denied = await new Promise<Run>((resolve) =>
      execFile(
        process.execPath,
        [...CLI, '--url', server.url, '--token', 'wrong-token-00000000000', 'stats'],
        (err, stdout, stderr) => resolve({ code: (err as { code?: number } | null)?.code ?? 0, stdout, stderr }),
      ),
    );
    expect(denied.code).toBe(6);
    expect(denied.stderr).toContain('E_UNAUTHORIZED');
    const usage = await run('list', '--state', 'sleeping');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--state');
    expect((await run('frobnicate')).code).toBe(2);
    const down = await new Promise<Run>((resolve) =>
      execFile(process.execPath, [...CLI, '--url', 'http://127.0.0.1:1', 'stats'], (err, stdout, stderr) =>
        resolve({ code: (err as { code?: number } | null)?.code ?? 0, stdout, stderr }),
      ),
    );
    expect(down.code).toBe(7);
    expect(down.stderr).toContain('cannot reach delayq');
    const noJournal = await run('restore', 'o-1');
    expect(noJournal.code).toBe(5);
    expect(noJournal.stderr).toContain('E_CONFLICT');
  });
});
