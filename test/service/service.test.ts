import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DelayqError } from '../../src/core/errors.js';
import { DelayqService } from '../../src/service/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { waitFor } from '../helpers/http-server.js';

describe('DelayqService (SQLite, real clock)', () => {
  let service: DelayqService;

  beforeEach(async () => {
    service = new DelayqService({ store: new SqliteStore({ path: ':memory:', nodeId: 'svc' }), nodeId: 'svc' });
    await service.start();
  });
  afterEach(async () => {
    await service.close();
  });

  it('push is idempotent by id and says whether it created the job', async () => {
    const first = await service.push({ id: 'order-1', topic: 'close', delayMs: 60_000, body: { a: 1 } });
    const again = await service.push({ id: 'order-1', topic: 'close', delayMs: 1, body: { a: 2 } });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, job: { body: '{"a":1}', state: 'delayed' } });
  });

  it('a batch names the bad job and field, and stores nothing', async () => {
    const err = await service.pushBatch([{ topic: 'ok' }, { topic: 'ok', delayMs: -1 }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DelayqError);
    expect(err).toMatchObject({ code: 'E_VALIDATION', field: 'jobs[1].delayMs' });
    expect(await service.topics.stats()).toEqual([]);
  });

  it('a release keeps a reason given in the history, cut as a fail error is', async () => {
    const { job } = await service.push({ topic: 'give-back' });
    const [r] = await service.reserve({ topics: ['give-back'] });
    await service.release(job.id, r!.token, { reason: 'x'.repeat(5000) });
    const entry = (await service.history(job.id)).find((h) => h.event === 'release');
    expect(entry?.reason).toBe('x'.repeat(2000));
  });

  it('a long-poll reserve returns as soon as a job is pushed', async () => {
    const started = Date.now();
    const waiting = service.reserve({ topics: ['lp'], waitMs: 10_000 });
    setTimeout(() => void service.push({ topic: 'lp', body: 'hi' }), 50);
    const [r] = await waiting;
    expect(r!.job.body).toBe('"hi"');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(service.waitingConsumers).toBe(0);
  });

  it('a long-poll reserve is woken by the timer when a delayed job comes due', async () => {
    await service.push({ topic: 'due', delayMs: 80 });
    const [r] = await service.reserve({ topics: ['due'], waitMs: 10_000 });
    expect(r!.job.readyAt! - r!.job.runAt).toBeGreaterThanOrEqual(0);
    expect(r!.job.readyAt! - r!.job.runAt).toBeLessThan(1000);
  });

  it('a long-poll with nothing to find answers empty after its wait, or at once when aborted', async () => {
    const started = Date.now();
    expect(await service.reserve({ topics: ['none'], waitMs: 150 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const controller = new AbortController();
    const waiting = service.reserve({ topics: ['none'], waitMs: 10_000 }, controller.signal);
    controller.abort();
    expect(await waiting).toEqual([]);
    expect(service.waitingConsumers).toBe(0);
  });

  it('fail retries after the backoff, then buries; redrive makes it ready again', async () => {
    const { job } = await service.push({
      topic: 'flaky',
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 } },
    });
    const [first] = await service.reserve({ topics: ['flaky'] });
    const failed = await service.fail(job.id, first!.token, { error: 'timeout calling payment' });
    expect(failed.decision.action).toBe('retry');
    expect(failed.job).toMatchObject({ state: 'ready', lastError: 'timeout calling payment' });
    const [second] = await service.reserve({ topics: ['flaky'] });
    const buried = await service.fail(job.id, second!.token, { error: 'still failing' });
    expect(buried.decision).toEqual({ action: 'bury' });
    expect(buried.job.state).toBe('dead');
    expect(await service.redrive({ ids: [job.id] })).toBe(1);
    expect((await service.get(job.id)).state).toBe('ready');
  });

  it('refuses a stale token with E_TOKEN_MISMATCH and an unknown job with E_NOT_FOUND', async () => {
    const { job } = await service.push({ topic: 't' });
    const [r] = await service.reserve({ topics: ['t'] });
    await expect(service.finish(job.id, 'stale')).rejects.toMatchObject({ code: 'E_TOKEN_MISMATCH' });
    await expect(service.finish('nope', r!.token)).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await service.finish(job.id, r!.token);
    // A repeat of the same finish (its answer was lost) answers the job again; another token is still refused.
    expect(await service.finish(job.id, r!.token)).toMatchObject({ id: job.id, state: 'finished' });
    await expect(service.finish(job.id, 'stale')).rejects.toMatchObject({
      code: 'E_WRONG_STATE',
      details: { state: 'finished' },
    });
  });

  it('reschedule and cancel act on waiting jobs', async () => {
    const { job } = await service.push({ topic: 'r', delayMs: 60_000 });
    const moved = await service.reschedule(job.id, { delayMs: 120_000 });
    expect(moved.runAt - job.runAt).toBeGreaterThanOrEqual(60_000);
    expect(await service.cancel(job.id)).toMatchObject({ job: { state: 'cancelled' }, dispatched: false });
    expect((await service.history(job.id)).map((h) => h.event)).toEqual(['push', 'reschedule', 'cancel']);
  });

  it('close wakes long-polls, refuses new calls and closes the store', async () => {
    const waiting = service.reserve({ topics: ['x'], waitMs: 30_000 });
    await waitFor(() => service.waitingConsumers === 1, 'the long-poll to wait');
    const started = Date.now();
    await service.close();
    expect(await waiting).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(service.push({ topic: 'x' })).rejects.toMatchObject({ code: 'E_SHUTTING_DOWN' });
  });
});
