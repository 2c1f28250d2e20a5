import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { loadConfig } from '../../src/config.js';
import { DelayqError } from '../../src/core/errors.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import type { PushRequest, PushResponse } from '../../src/protocol/schemas.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const ALL = 'coalesce-all-topics-secret';
const PAY_ONLY = 'coalesce-pay-only-secret';
const prefixes = prefixPool('coalesce');
afterAll(async () => prefixes.sweep());

const shapes: Record<string, () => Record<string, unknown>> = {
  embedded: () => ({ store: { kind: 'sqlite' }, sqlite: { path: ':memory:' } }),
  redis: () => ({
    store: { kind: 'redis' },
    redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), partitions: 2 },
  }),
};

/** The SDK's push coalescing against a real server on each shape: few requests, each caller its own answer. */
describe.each(Object.keys(shapes))('SDK push coalescing · %s', (shape) => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let client: DelayqClient;
  let alone: DelayqClient;
  /** Requests the server received, by path. */
  let requests: Map<string, number>;
  const count = (path: string): number => requests.get(path) ?? 0;

  beforeEach(async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        ...shapes[shape]!(),
        jobs: { bodyMaxBytes: 1024 },
        auth: { tokens: [{ token: ALL }, { token: PAY_ONLY, topics: ['pay.'] }] },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    requests = new Map();
    app.server.on('request', (req: { url?: string }) => requests.set(req.url!, count(req.url!) + 1));
    client = new DelayqClient({ url, token: ALL });
    alone = new DelayqClient({ url, token: ALL, coalescePushes: false });
  });
  afterEach(async () => {
    await client.close();
    await alone.close();
    await closeGracefully(app, runtime, 100);
  });

  /** What each push settled to: its answer, or its error. */
  const settle = (pushes: Promise<PushResponse>[]) =>
    Promise.allSettled(pushes).then((all) =>
      all.map((s) => (s.status === 'fulfilled' ? { answer: s.value } : { error: s.reason as DelayqError })),
    );

  it('sends 1,000 pushes of one turn as two requests of 500, and each caller gets its own job', async () => {
    const t = `orders-${shape}`;
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => client.push({ topic: t, id: `${t}-${i}`, body: { i } })),
    );
    expect(count('/v1/jobs/batch')).toBe(2);
    expect(count('/v1/jobs')).toBe(0);
    answers.forEach((a, i) => {
      expect(a.created).toBe(true);
      expect(a.job).toMatchObject({ id: `${t}-${i}`, topic: t, state: 'ready', body: { i } });
    });
    expect((await client.stats()).find((s) => s.topic === t)?.counts.ready).toBe(1000);

    // A push on its own (nothing else in its turn) goes out as a single push.
    expect((await client.push({ topic: t, body: 'one' })).created).toBe(true);
    expect(count('/v1/jobs')).toBe(1);
  });

  it('a bad item in the middle rejects only its caller, with the error it gets alone', async () => {
    const t = `mixed-${shape}`;
    const bad: PushRequest[] = [
      { topic: 'not a topic!', id: `${t}-x` },
      { topic: t, id: `${t}-y`, body: 'x'.repeat(2000) },
      { topic: t, id: `${t}-z`, delayMs: 'soon' },
    ];
    const jobs: PushRequest[] = Array.from({ length: 300 }, (_, i) => ({ topic: t, id: `${t}-${i}`, body: i }));
    jobs.splice(100, 0, bad[0]!);
    jobs.splice(200, 0, bad[1]!);
    jobs.splice(250, 0, bad[2]!);
    const results = await settle(jobs.map((job) => client.push(job)));

    const expected = await settle(bad.map((job) => alone.push(job)));
    for (const [i, at] of [100, 200, 250].entries()) {
      const error = results[at]!.error!;
      expect(error).toBeInstanceOf(DelayqError);
      expect({ code: error.code, field: error.field, message: error.message }).toEqual({
        code: expected[i]!.error!.code,
        field: expected[i]!.error!.field,
        message: expected[i]!.error!.message,
      });
    }
    expect(expected.map((e) => e.error!.field)).toEqual(['topic', 'body', 'delayMs']);
    const good = results.filter((_, i) => ![100, 200, 250].includes(i));
    expect(good).toHaveLength(300);
    good.forEach((r, i) => expect(r.answer?.job).toMatchObject({ id: `${t}-${i}`, body: i }));
    // Two halves (jobs 0–151 and 152–302): each sends one batch per refused item it holds, then the one that is
    // stored (2 + 3); no job went out on its own.
    expect(count('/v1/jobs/batch')).toBe(5);
    expect((await client.stats()).find((s) => s.topic === t)?.counts.ready).toBe(300);
  });

  it('refuses a foreign topic to its caller only', async () => {
    const scoped = new DelayqClient({ url, token: PAY_ONLY });
    try {
      const results = await settle([
        scoped.push({ topic: 'pay.a', id: `pay-a-${shape}` }),
        scoped.push({ topic: 'ship.b', id: `ship-b-${shape}` }),
        scoped.push({ topic: 'pay.c', id: `pay-c-${shape}` }),
      ]);
      expect(results[1]!.error).toMatchObject({ code: 'E_FORBIDDEN', field: 'topic' });
      expect([results[0]!.answer?.job.id, results[2]!.answer?.job.id]).toEqual([`pay-a-${shape}`, `pay-c-${shape}`]);
    } finally {
      await scoped.close();
    }
  });

  it("an id another topic's job holds rejects its caller only; the others answer as the jobs they created", async () => {
    const t = `ids-${shape}`;
    expect((await alone.push({ topic: `other-${shape}`, id: `${t}-held`, body: 'theirs' })).created).toBe(true);
    const results = await settle([
      client.push({ topic: t, id: `${t}-1` }),
      client.push({ topic: t, id: `${t}-held` }),
      client.push({ topic: t, id: `${t}-2` }),
    ]);
    expect(results[1]!.error).toMatchObject({ code: 'E_CONFLICT', field: 'id' });
    expect(results[1]!.error!.message).not.toContain('other-');
    // Stored by the refused batch: sent again they exist, yet these callers created them.
    expect([results[0]!.answer, results[2]!.answer].map((a) => [a?.created, a?.job.id])).toEqual([
      [true, `${t}-1`],
      [true, `${t}-2`],
    ]);
    expect(count('/v1/jobs/batch')).toBe(2);
  });

  it('keeps push idempotent by id, inside one batch and across batches', async () => {
    const t = `dedupe-${shape}`;
    const first = await client.push({ topic: t, id: `${t}-1`, body: 'first' });
    const answers = await Promise.all([
      client.push({ topic: t, id: `${t}-1`, body: 'again' }),
      client.push({ topic: t, id: `${t}-2`, body: 'one' }),
      client.push({ topic: t, id: `${t}-2`, body: 'two' }),
    ]);
    expect(first.created).toBe(true);
    expect(answers.map((a) => [a.created, a.job.body])).toEqual([
      [false, 'first'],
      [true, 'one'],
      [false, 'one'],
    ]);
  });

  it('gathers the pushes of a window across turns, and refuses a bad window naming the option', async () => {
    const windowed = new DelayqClient({ url, token: ALL, pushWindowMs: 50 });
    try {
      const t = `window-${shape}`;
      const first = windowed.push({ topic: t, body: 1 });
      await new Promise((resolve) => setImmediate(resolve)); // a later turn, within the window
      const answers = await Promise.all([first, windowed.push({ topic: t, body: 2 })]);
      expect(answers.map((a) => a.job.body)).toEqual([1, 2]);
      expect(count('/v1/jobs/batch')).toBe(1);
    } finally {
      await windowed.close();
    }
    let refused: unknown;
    try {
      new DelayqClient({ url, pushWindowMs: -1 });
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ code: 'E_VALIDATION', field: 'pushWindowMs' });
  });

  it('sends each push on its own when coalescing is off', async () => {
    const t = `alone-${shape}`;
    await Promise.all(Array.from({ length: 5 }, (_, i) => alone.push({ topic: t, body: i })));
    expect(count('/v1/jobs')).toBe(5);
    expect(count('/v1/jobs/batch')).toBe(0);
  });
});
