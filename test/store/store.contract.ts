import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { aJob } from '../helpers/jobs.js';
import { dueHistogramContract } from './due-histogram.contract.js';
import { jobApiContract } from './job-api.contract.js';
import { protocolContract } from './protocol.contract.js';

export interface ContractOptions {
  /** Tests this store cannot pass, each with the reason (hono's runTest style). */
  skip?: { test: string; reason: string }[];
}

const T0 = Date.UTC(2026, 0, 1);

/**
 * The one suite every Store must pass. Time is driven only through `now` (a fake clock): no sleeping.
 * Each store's test file calls it once, then adds its own cases.
 */
export function storeContract(
  name: string,
  makeStore: () => Store | Promise<Store>,
  options: ContractOptions = {},
): void {
  const skipped = new Set((options.skip ?? []).map((s) => s.test));
  const test = (title: string, fn: () => Promise<void>): void => {
    (skipped.has(title) ? it.skip : it)(title, fn);
  };

  describe(`Store contract: ${name}`, () => {
    let store: Store;
    // Each test gets a unique topic so stores that share a server cannot see each other's jobs.
    let topic: string;
    let other: string;
    const job = (o: Parameters<typeof aJob>[0] = {}) => aJob({ topic, now: T0, ...o });

    beforeEach(async () => {
      store = await makeStore();
      await store.open();
      const suffix = Math.random().toString(36).slice(2, 10);
      topic = `orders-${suffix}`;
      other = `mail-${suffix}`;
    });
    afterEach(async () => {
      await store.close();
    });

    test('push stores a delayed job and records it in history', async () => {
      const j = job({ delayMs: 5000, bizKey: 'order-1', tag: 'close' });
      const [result] = await store.pushMany([j], T0);
      expect(result!.created).toBe(true);
      expect(result!.job).toMatchObject({
        id: j.id,
        topic,
        state: 'delayed',
        runAt: T0 + 5000,
        attempts: 0,
        createdAt: T0,
        readyAt: null,
        bizKey: 'order-1',
        tag: 'close',
      });
      expect(JSON.parse(result!.job.body)).toEqual(JSON.parse(j.body));
      expect(await store.history(j.id)).toEqual([
        { at: T0, event: 'push', state: 'delayed', attempt: 0, node: expect.any(String), reason: null },
      ]);
    });

    test('push of a job already due makes it ready at once', async () => {
      const j = job({ delayMs: 0 });
      const [result] = await store.pushMany([j], T0);
      expect(result!.job).toMatchObject({ state: 'ready', readyAt: T0 });
    });

    test('push of an existing id returns the existing job unchanged', async () => {
      const j = job({ delayMs: 1000, body: '"first"' });
      await store.pushMany([j], T0);
      const [again] = await store.pushMany([{ ...j, body: '"second"', runAt: T0 + 9999 }], T0 + 10);
      expect(again!.created).toBe(false);
      expect(again!.job).toMatchObject({ body: '"first"', runAt: T0 + 1000, state: 'delayed' });
      // also within one batch, and for a terminal job
      const k = job();
      const results = await store.pushMany([k, { ...k, body: '"dup"' }], T0);
      expect(results.map((r) => r.created)).toEqual([true, false]);
      await store.cancel(k.id, T0);
      const [terminal] = await store.pushMany([k], T0 + 1);
      expect(terminal!.created).toBe(false);
      expect(terminal!.job.state).toBe('cancelled');
    });

    test('bodies keep every character and their size', async () => {
      const body = JSON.stringify({ text: 'ünïcødé 你好 🚀 "quotes" \\ back', big: 'x'.repeat(200_000) });
      const j = job({ body });
      await store.pushMany([j], T0);
      expect((await store.get(j.id))!.body).toBe(body);
    });

    test('a ten-year delay is kept to the millisecond', async () => {
      const runAt = T0 + 10 * 365 * 86_400_000 + 123;
      const j = job({ runAt });
      await store.pushMany([j], T0);
      expect((await store.get(j.id))!.runAt).toBe(runAt);
      expect((await store.promoteDue(runAt - 1, 100)).count).toBe(0);
    });

    test('promoteDue moves due jobs only, at runAt and not a millisecond before', async () => {
      const j = job({ delayMs: 1000 });
      await store.pushMany([j], T0);
      expect((await store.promoteDue(T0 + 999, 100)).count).toBe(0);
      const promoted = await store.promoteDue(T0 + 1000, 100);
      expect(promoted.count).toBe(1);
      expect(promoted.topics).toEqual([topic]);
      expect(await store.get(j.id)).toMatchObject({ state: 'ready', readyAt: T0 + 1000 });
      expect((await store.history(j.id)).map((h) => h.event)).toEqual(['push', 'promote']);
    });

    test('promoteDue takes the earliest first and honours the limit', async () => {
      const jobs = [3, 1, 2].map((s) => job({ delayMs: s * 1000, id: `${topic}-p${s}` }));
      await store.pushMany(jobs, T0);
      expect((await store.promoteDue(T0 + 5000, 2)).count).toBe(2);
      expect((await store.get(`${topic}-p3`))!.state).toBe('delayed');
      expect((await store.get(`${topic}-p1`))!.state).toBe('ready');
      expect((await store.promoteDue(T0 + 5000, 2)).count).toBe(1);
    });

    test('promoteDue reports when each kind of scheduler work is next due', async () => {
      await store.pushMany([job({ delayMs: 1000 }), job({ delayMs: 0, ttlMs: 60_000, ttrMs: 5000 })], T0);
      const [held] = (await store.reserve([topic], 1, T0)).reservations;
      await store.pushMany([job({ delayMs: 0, ttlMs: 30_000 })], T0);
      const { next } = await store.promoteDue(T0, 10);
      expect(next).toEqual({ promoteAt: T0 + 1000, deadlineAt: held!.deadlineAt, expireAt: T0 + 30_000 });
    });

    test('reserve takes due jobs promoteDue has not moved only when the store says so (reserveTakesDue)', async () => {
      const j = job({ delayMs: 10 });
      await store.pushMany([j], T0);
      const got = (await store.reserve([topic], 1, T0 + 20)).reservations;
      expect(got.map((r) => r.job.id)).toEqual(store.capabilities.reserveTakesDue ? [j.id] : []);
      expect((await store.get(j.id))!.state).toBe(store.capabilities.reserveTakesDue ? 'reserved' : 'delayed');
    });

    test('reserve orders by priority, then due time, across the topics asked for only', async () => {
      await store.pushMany(
        [
          job({ id: `${topic}-late`, delayMs: 0, runAt: T0 }),
          job({ id: `${topic}-early-low`, runAt: T0 - 100, priority: 5 }),
          job({ id: `${topic}-early-high`, runAt: T0 - 100, priority: 1 }),
          job({ id: `${other}-x`, topic: other, runAt: T0 - 50 }),
          job({ id: `${topic}-future`, delayMs: 60_000 }),
        ],
        T0,
      );
      const first = (await store.reserve([topic], 10, T0)).reservations;
      expect(first.map((r) => r.job.id)).toEqual([`${topic}-late`, `${topic}-early-high`, `${topic}-early-low`]);
      const both = (await store.reserve([topic, other], 10, T0)).reservations;
      expect(both.map((r) => r.job.id)).toEqual([`${other}-x`]);
      expect((await store.reserve([topic, other], 10, T0)).reservations).toEqual([]);
    });

    test('a reserve over several topics takes the first jobs of them all in ready order', async () => {
      const third = `${other}-3`;
      // 3 topics × 20 ready jobs each round: priorities interleave across topics, so no topic comes as one block.
      const round = async (tag: string) => {
        const jobs = [topic, other, third].flatMap((t, ti) =>
          Array.from({ length: 20 }, (_, i) =>
            job({ id: `${t}-${tag}${String(i).padStart(2, '0')}`, topic: t, runAt: T0 - 1000 + ti, priority: i % 4 }),
          ),
        );
        await store.pushMany(jobs, T0);
        return jobs.sort((a, b) => a.priority - b.priority || a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
      };
      const byOrder = (ids: string[], order: string[]) => [...ids].sort((a, b) => order.indexOf(a) - order.indexOf(b));
      // A repeated topic changes nothing.
      const asked = [third, topic, other, topic];
      const all = (await round('a')).map((j) => j.id);
      expect((await store.reserve(asked, 100, T0 + 1)).reservations.map((r) => r.job.id)).toEqual(all);
      // One job at a time, then a batch, then the rest: each call in ready order, every job once. (Across
      // calls a partitioned store may serve a job before a slightly earlier one of another partition.)
      const order = (await round('b')).map((j) => j.id);
      const got: string[] = [];
      for (const count of [1, 1, 30, 100]) {
        const ids = (await store.reserve(asked, count, T0 + 1)).reservations.map((r) => r.job.id);
        expect(ids.length).toBe(Math.min(count, 60 - got.length));
        expect(ids).toEqual(byOrder(ids, order));
        got.push(...ids);
      }
      expect(byOrder(got, order)).toEqual(order);
    });

    test('a backlog is served by priority first, then due time, then arrival', async () => {
      await store.pushMany([job({ id: `${topic}-c`, runAt: T0 - 50 })], T0);
      await store.pushMany(
        [
          job({ id: `${topic}-a`, runAt: T0 - 100, priority: 100 }),
          job({ id: `${topic}-b`, runAt: T0 - 99, priority: -100 }),
          // due with c, but pushed after it: served after c although its id sorts first
          job({ id: `${topic}-0`, runAt: T0 - 50 }),
          job({ id: `${topic}-d`, runAt: T0 - 60 }),
          job({ id: `${other}-y`, topic: other, runAt: T0 - 10, priority: -5 }),
        ],
        T0 + 1,
      );
      const mine = (await store.reserve([topic], 10, T0 + 2)).reservations;
      expect(mine.map((r) => r.job.id)).toEqual([`${topic}-b`, `${topic}-d`, `${topic}-c`, `${topic}-0`, `${topic}-a`]);
      const theirs = (await store.reserve([other], 10, T0 + 2)).reservations;
      expect(theirs.map((r) => r.job.id)).toEqual([`${other}-y`]);
    });

    test('due jobs promoted later still come by priority before earlier ready ones', async () => {
      await store.pushMany([job({ id: `${topic}-low`, runAt: T0, priority: 10 })], T0);
      await store.pushMany([job({ id: `${topic}-urgent`, delayMs: 10, priority: -10 })], T0);
      await store.promoteDue(T0 + 10, 100);
      const got = (await store.reserve([topic], 10, T0 + 10)).reservations;
      expect(got.map((r) => r.job.id)).toEqual([`${topic}-urgent`, `${topic}-low`]);
    });

    test('reserve never hands out a ready job past its ttl: it expires it, and answers it as expireDue does', async () => {
      const stale = job({ ttlMs: 200 });
      const fresh = job({ ttlMs: 10_000 });
      await store.pushMany([stale, fresh], T0);
      // Nothing ran expireDue: reserve itself must not hand the stale job out.
      const { reservations: got, expired } = await store.reserve([topic], 10, T0 + 250);
      expect(got.map((r) => r.job.id)).toEqual([fresh.id]);
      // By id and topic, for the service's `expired` event (the timer will not meet this job again).
      expect(expired).toEqual([{ id: stale.id, topic }]);
      expect(await store.expireDue(T0 + 250, 10)).toEqual([]);
      expect(await store.get(stale.id)).toMatchObject({ state: 'expired', finishedAt: T0 + 250 });
      expect((await store.history(stale.id)).map((h) => `${h.event}:${h.state}`)).toEqual([
        'push:ready',
        'expire:expired',
      ]);
      expect(await store.reserve([topic], 10, T0 + 300)).toEqual({ reservations: [], expired: [] });
      const stats = (await store.stats()).find((s) => s.topic === topic)!;
      expect(stats.counts).toMatchObject({ ready: 0, expired: 1, reserved: 1 });
    });

    test('reserve never hands out a due delayed job past its ttl, promoted or not', async () => {
      const a = job({ delayMs: 1000, ttlMs: 200 });
      await store.pushMany([a], T0);
      expect((await store.reserve([topic], 10, T0 + 1300)).reservations).toEqual([]);
      await store.promoteDue(T0 + 1300, 100);
      expect((await store.reserve([topic], 10, T0 + 1300)).reservations).toEqual([]);
      expect((await store.get(a.id))!.state).toBe('expired');
    });

    test('a ready job pushed with a ttl is a wake-up at its expiry', async () => {
      await store.pushMany([job({ ttlMs: 200 })], T0);
      expect(await store.nextWakeAt()).toBe(T0 + 200);
    });

    test('reserve stamps a token, an attempt and the TTR deadline', async () => {
      const j = job({ ttrMs: 5000 });
      await store.pushMany([j], T0);
      const [r] = (await store.reserve([topic], 1, T0 + 10)).reservations;
      expect(r!.token).toEqual(expect.any(String));
      expect(r!.deadlineAt).toBe(T0 + 10 + 5000);
      expect(r!.job).toMatchObject({ state: 'reserved', attempts: 1, reservedAt: T0 + 10, deadlineAt: T0 + 5010 });
      const k = job();
      await store.pushMany([k], T0);
      const [s] = (await store.reserve([topic], 1, T0, { ttrMs: 777 })).reservations;
      expect(s!.deadlineAt).toBe(T0 + 777);
      expect(s!.token).not.toBe(r!.token);
    });

    test('reserve honours count', async () => {
      await store.pushMany(
        [1, 2, 3, 4, 5].map(() => job()),
        T0,
      );
      expect((await store.reserve([topic], 2, T0)).reservations).toHaveLength(2);
      expect((await store.reserve([topic], 10, T0)).reservations).toHaveLength(3);
    });

    test('touch extends the deadline; a stale or wrong token changes nothing', async () => {
      const j = job({ ttrMs: 1000 });
      await store.pushMany([j], T0);
      const [r] = (await store.reserve([topic], 1, T0)).reservations;
      const touched = await store.touch(j.id, r!.token, T0 + 500);
      expect(touched).toMatchObject({ ok: true, value: { deadlineAt: T0 + 1500 } });
      expect(await store.touch(j.id, 'not-the-token', T0 + 600)).toMatchObject({ ok: false, reason: 'token_mismatch' });
      expect((await store.get(j.id))!.deadlineAt).toBe(T0 + 1500);
      expect(await store.touch('missing-id', r!.token, T0)).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await store.touch(j.id, r!.token, T0 + 700, 10_000)).toMatchObject({
        ok: true,
        value: { deadlineAt: T0 + 10_700 },
      });
    });

    test('finish ends a reservation once; a repeat with the same token answers the job again', async () => {
      const j = job();
      await store.pushMany([j], T0);
      const [r] = (await store.reserve([topic], 1, T0)).reservations;
      expect(await store.finish(j.id, 'wrong', T0 + 1)).toMatchObject({ ok: false, reason: 'token_mismatch' });
      expect((await store.get(j.id))!.state).toBe('reserved');
      const first = await store.finish(j.id, r!.token, T0 + 2);
      expect(first).toMatchObject({ ok: true, value: { state: 'finished', finishedAt: T0 + 2 } });
      expect(first.ok && first.repeated).toBeFalsy();
      // The answer was lost and the client retries: the same finish is answered as done, nothing changes.
      const again = await store.finish(j.id, r!.token, T0 + 3);
      expect(again).toMatchObject({
        ok: true,
        repeated: true,
        value: { id: j.id, state: 'finished', finishedAt: T0 + 2, attempts: 1 },
      });
      expect(await store.finish(j.id, 'wrong', T0 + 4)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
        state: 'finished',
      });
      expect((await store.history(j.id)).map((h) => `${h.event}:${h.state}`)).toEqual([
        'push:ready',
        'reserve:reserved',
        'finish:finished',
      ]);
    });

    test('finishMany settles each item as its own finish would, in order, a stale token refusing only its item', async () => {
      const jobs = [job(), job(), job(), job()];
      await store.pushMany(jobs, T0);
      const reserved = (await store.reserve([topic], 4, T0)).reservations;
      const tokenOf = (id: string) => reserved.find((r) => r.job.id === id)!.token;
      const [a, b, c, d] = jobs.map((j) => j.id) as [string, string, string, string];
      await store.finish(c, tokenOf(c), T0 + 1);
      const outcomes = await store.finishMany(
        [
          { id: a, token: tokenOf(a) },
          { id: b, token: 'stale' },
          { id: c, token: tokenOf(c) },
          { id: 'missing', token: 'x' },
          { id: d, token: tokenOf(d) },
        ],
        T0 + 2,
      );
      expect(outcomes).toMatchObject([
        { ok: true, value: { id: a, state: 'finished', finishedAt: T0 + 2 } },
        { ok: false, reason: 'token_mismatch' },
        { ok: true, repeated: true, value: { id: c, finishedAt: T0 + 1 } },
        { ok: false, reason: 'not_found' },
        { ok: true, value: { id: d, state: 'finished', finishedAt: T0 + 2 } },
      ]);
      expect(outcomes[0]!.ok && outcomes[0]!.repeated).toBeFalsy();
      expect((await store.get(b))!.state).toBe('reserved');
      expect((await store.history(a)).map((h) => `${h.event}:${h.state}`)).toEqual([
        'push:ready',
        'reserve:reserved',
        'finish:finished',
      ]);
      expect(await store.finishMany([], T0 + 3)).toEqual([]);
    });

    test('a repeated finish with a stale token stays refused', async () => {
      const j = job({ ttrMs: 1000 });
      await store.pushMany([j], T0);
      const [first] = (await store.reserve([topic], 1, T0)).reservations;
      await store.retry(j.id, first!.token, T0 + 1000, T0 + 1000, 'TTR lapsed');
      const [second] = (await store.reserve([topic], 1, T0 + 1001)).reservations;
      expect(await store.finish(j.id, second!.token, T0 + 1002)).toMatchObject({ ok: true });
      expect(await store.finish(j.id, first!.token, T0 + 1003)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
        state: 'finished',
      });
      expect(await store.finish(j.id, second!.token, T0 + 1004)).toMatchObject({ ok: true, repeated: true });
      // Other transitions are not repeatable: a finished job refuses them whatever the token.
      expect(await store.touch(j.id, second!.token, T0 + 1005)).toMatchObject({ ok: false, reason: 'wrong_state' });
      expect(await store.bury(j.id, second!.token, T0 + 1005, 'x')).toMatchObject({ ok: false, reason: 'wrong_state' });
    });

    test("a job re-delivered after its TTR lapsed refuses the first consumer's token", async () => {
      const j = job({ ttrMs: 1000 });
      await store.pushMany([j], T0);
      const [first] = (await store.reserve([topic], 1, T0)).reservations;
      expect(await store.listLapsed(T0 + 999, 10)).toEqual([]);
      const lapsed = await store.listLapsed(T0 + 1000, 10);
      expect(lapsed).toEqual([
        { id: j.id, topic, token: first!.token, attempts: 1, deadlineAt: T0 + 1000, retry: j.retry },
      ]);
      expect(await store.retry(j.id, first!.token, T0 + 1000, T0 + 1000, 'TTR lapsed')).toMatchObject({
        ok: true,
        value: { state: 'ready' },
      });
      const [second] = (await store.reserve([topic], 1, T0 + 1001)).reservations;
      expect(second!.job.attempts).toBe(2);
      expect(await store.finish(j.id, first!.token, T0 + 1002)).toMatchObject({ ok: false, reason: 'token_mismatch' });
      expect(await store.touch(j.id, first!.token, T0 + 1002)).toMatchObject({ ok: false, reason: 'token_mismatch' });
      expect(await store.finish(j.id, second!.token, T0 + 1003)).toMatchObject({ ok: true });
    });

    test('retry puts the job back to wait for its backoff, keeping the error', async () => {
      const j = job();
      await store.pushMany([j], T0);
      const [r] = (await store.reserve([topic], 1, T0)).reservations;
      const outcome = await store.retry(j.id, r!.token, T0 + 60_000, T0 + 5, 'boom');
      expect(outcome).toMatchObject({
        ok: true,
        value: { state: 'delayed', runAt: T0 + 60_000, lastError: 'boom', attempts: 1 },
      });
      expect(await store.nextWakeAt()).toBe(T0 + 60_000);
      expect(await store.retry(j.id, r!.token, T0, T0 + 6, 'again')).toMatchObject({
        ok: false,
        reason: 'wrong_state',
        state: 'delayed',
      });
      await store.promoteDue(T0 + 60_000, 10);
      const [again] = (await store.reserve([topic], 1, T0 + 60_000)).reservations;
      expect(again!.job.attempts).toBe(2);
      const h = await store.history(j.id);
      expect(h.find((e) => e.event === 'retry')).toMatchObject({ state: 'delayed', attempt: 1, reason: 'boom' });
    });

    test('bury makes a job dead; redrive brings it back ready with fresh attempts', async () => {
      const a = job();
      const b = job();
      await store.pushMany([a, b], T0);
      for (const r of (await store.reserve([topic], 2, T0)).reservations) {
        expect(await store.bury(r.job.id, r.token, T0 + 1, 'fatal')).toMatchObject({
          ok: true,
          value: { state: 'dead', lastError: 'fatal', finishedAt: T0 + 1 },
        });
      }
      expect(await store.redrive({ ids: [a.id, 'missing'] }, T0 + 2)).toBe(1);
      expect(await store.get(a.id)).toMatchObject({ state: 'ready', attempts: 0, finishedAt: null, runAt: T0 + 2 });
      expect(await store.redrive({ topic, limit: 10 }, T0 + 3)).toBe(1);
      expect((await store.get(b.id))!.state).toBe('ready');
      expect(await store.redrive({ ids: [a.id] }, T0 + 4)).toBe(0);
    });

    test('release returns a reservation to ready without counting the attempt', async () => {
      const j = job();
      await store.pushMany([j], T0);
      const [r] = (await store.reserve([topic], 1, T0)).reservations;
      expect(await store.release(j.id, r!.token, T0 + 1)).toMatchObject({
        ok: true,
        value: { state: 'ready', attempts: 0 },
      });
      const [again] = (await store.reserve([topic], 1, T0 + 2)).reservations;
      expect(again!.job.attempts).toBe(1);
    });

    test('release records its reason in the history: the store’s own, or the one given', async () => {
      const [a, b, c] = [job(), job(), job()];
      await store.pushMany([a, b, c], T0);
      const tokens = new Map((await store.reserve([topic], 3, T0)).reservations.map((r) => [r.job.id, r.token]));
      await store.release(a.id, tokens.get(a.id)!, T0 + 1);
      await store.release(b.id, tokens.get(b.id)!, T0 + 1, undefined, undefined, 'client gone');
      await store.release(c.id, tokens.get(c.id)!, T0 + 1, T0 + 500, 3, 'later, please');
      const reasonOf = async (id: string) => (await store.history(id)).find((h) => h.event === 'release')?.reason;
      expect(await reasonOf(a.id)).toBe('consumer gone before delivery');
      expect(await reasonOf(b.id)).toBe('client gone');
      expect(await reasonOf(c.id)).toBe('later, please');
      expect(await store.get(c.id)).toMatchObject({ state: 'delayed', runAt: T0 + 500, priority: 3, attempts: 0 });
    });

    test('finish, touch, retry, bury and release of a delayed job, even one due far beyond any horizon, are refused as wrong_state', async () => {
      const near = job({ delayMs: 5000 });
      const far = job({ delayMs: 40 * 86_400_000 });
      await store.pushMany([near, far], T0);
      for (const j of [near, far]) {
        const refusals = [
          await store.finish(j.id, 'no-token', T0 + 1),
          await store.touch(j.id, 'no-token', T0 + 1),
          await store.retry(j.id, 'no-token', T0 + 10, T0 + 1, 'x'),
          await store.bury(j.id, 'no-token', T0 + 1, 'x'),
          await store.release(j.id, 'no-token', T0 + 1),
        ];
        for (const refusal of refusals) expect(refusal).toEqual({ ok: false, reason: 'wrong_state', state: 'delayed' });
        expect(await store.get(j.id)).toMatchObject({ state: 'delayed' });
      }
    });

    test('release with a runAt delays the job until then, the attempt given back', async () => {
      const j = job();
      await store.pushMany([j], T0);
      const [r] = (await store.reserve([topic], 1, T0)).reservations;
      expect(await store.release(j.id, r!.token, T0 + 1, T0 + 5000)).toMatchObject({
        ok: true,
        value: { state: 'delayed', attempts: 0, runAt: T0 + 5000 },
      });
      expect((await store.reserve([topic], 1, T0 + 2)).reservations).toEqual([]);
      expect(await store.release(j.id, r!.token, T0 + 3, T0 + 9000)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
      });
      await store.promoteDue(T0 + 5000, 10);
      const [again] = (await store.reserve([topic], 1, T0 + 5000)).reservations;
      expect(again!.job).toMatchObject({ id: j.id, attempts: 1 });
      // A runAt already due: ready at once.
      expect(await store.release(j.id, again!.token, T0 + 5001, T0 + 5001)).toMatchObject({
        ok: true,
        value: { state: 'ready', attempts: 0 },
      });
      expect((await store.history(j.id)).filter((h) => h.event === 'release').map((h) => h.state)).toEqual([
        'delayed',
        'ready',
      ]);
    });

    test('keeps topic pauses: pause, replace, list, resume', async () => {
      await store.pauses.pause(topic, null);
      await store.pauses.pause(other, T0 + 1000);
      expect((await store.pauses.list()).get(topic)).toBeNull();
      expect((await store.pauses.list()).get(other)).toBe(T0 + 1000);
      await store.pauses.pause(topic, T0 + 5);
      expect((await store.pauses.list()).get(topic)).toBe(T0 + 5);
      expect(await store.pauses.resume(topic)).toBe(true);
      expect(await store.pauses.resume(topic)).toBe(false);
      expect((await store.pauses.list()).has(topic)).toBe(false);
      await store.pauses.resume(other);
    });

    test('gives each id one stable job number, never reused', async () => {
      const [a, b] = await store.numbers.numbersOf([`${topic}-a`, `${topic}-b`]);
      expect(a).toBeGreaterThan(0);
      expect(b).toBeGreaterThan(a!);
      expect(await store.numbers.numbersOf([`${topic}-b`, `${topic}-a`, `${topic}-c`])).toEqual([
        b,
        a,
        expect.any(Number),
      ]);
      expect(await store.numbers.idOf(a!)).toBe(`${topic}-a`);
      expect(await store.numbers.idOf(0)).toBeNull();
    });

    test('numbers a batch in order of first appearance, a repeated id once, past one script call', async () => {
      const ids = Array.from({ length: 2500 }, (_, i) => `${topic}-n${i}`);
      const [known] = await store.numbers.numbersOf([ids[7]!]);
      const got = await store.numbers.numbersOf([...ids, ids[3]!]);
      expect(got[7]).toBe(known);
      expect(got[2500]).toBe(got[3]);
      const fresh = got.slice(0, 2500).filter((_, i) => i !== 7);
      expect(fresh.every((n, i) => i === 0 || n > fresh[i - 1]!)).toBe(true);
      expect(new Set(got.slice(0, 2500)).size).toBe(2500);
      expect(await store.numbers.idOf(got[2499]!)).toBe(ids[2499]);
      expect(await store.numbers.numbersOf([ids[2499]!, ids[0]!])).toEqual([got[2499], got[0]]);
    });

    test('cancel works from delayed, ready and reserved, and only from those', async () => {
      const d = job({ delayMs: 1000 });
      const r = job();
      const s = job();
      await store.pushMany([d, r, s], T0);
      const [reserved] = (await store.reserve([topic], 1, T0)).reservations;
      for (const id of [d.id, r.id, s.id]) {
        expect(await store.cancel(id, T0 + 1, 'no longer needed')).toMatchObject({
          ok: true,
          value: { job: { state: 'cancelled', finishedAt: T0 + 1 } },
        });
      }
      expect(await store.cancel(d.id, T0 + 2)).toMatchObject({ ok: false, reason: 'wrong_state', state: 'cancelled' });
      expect(await store.cancel('nope', T0)).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await store.finish(reserved!.job.id, reserved!.token, T0 + 3)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
      });
      expect((await store.promoteDue(T0 + 5000, 10)).count).toBe(0);
      expect((await store.reserve([topic], 10, T0 + 5000)).reservations).toEqual([]);
      expect(await store.nextWakeAt()).toBeNull();
    });

    test('cancel says whether the job had gone out, with its attempts', async () => {
      const waiting = job({ delayMs: 1000 });
      const ready = job();
      await store.pushMany([waiting, ready], T0);
      const [out] = (await store.reserve([topic], 1, T0)).reservations;
      expect(out!.job.id).toBe(ready.id);
      expect(await store.cancel(waiting.id, T0 + 1)).toMatchObject({
        ok: true,
        value: { dispatched: false, job: { attempts: 0 } },
      });
      expect(await store.cancel(ready.id, T0 + 1)).toMatchObject({
        ok: true,
        value: { dispatched: true, job: { state: 'cancelled', attempts: 1 } },
      });
      // Tried once, back to wait for its retry: not out now, but attempts tells it ran before.
      const again = job();
      await store.pushMany([again], T0);
      const [r] = (await store.reserve([topic], 1, T0 + 2)).reservations;
      await store.retry(again.id, r!.token, T0 + 60_000, T0 + 3, 'boom');
      expect(await store.cancel(again.id, T0 + 4)).toMatchObject({
        ok: true,
        value: { dispatched: false, job: { attempts: 1 } },
      });
    });

    test('reschedule moves a waiting job; a past time makes it ready', async () => {
      const j = job({ delayMs: 10_000 });
      await store.pushMany([j], T0);
      expect(await store.reschedule(j.id, T0 + 2000, T0 + 1)).toMatchObject({
        ok: true,
        value: { state: 'delayed', runAt: T0 + 2000 },
      });
      expect(await store.nextWakeAt()).toBe(T0 + 2000);
      expect(await store.reschedule(j.id, T0, T0 + 2)).toMatchObject({
        ok: true,
        value: { state: 'ready', readyAt: T0 + 2 },
      });
      expect(await store.reschedule(j.id, T0 + 50_000, T0 + 3)).toMatchObject({
        ok: true,
        value: { state: 'delayed' },
      });
      await store.reschedule(j.id, T0, T0 + 4);
      const [r] = (await store.reserve([topic], 1, T0 + 5)).reservations;
      expect(await store.reschedule(j.id, T0 + 9, T0 + 6)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
        state: 'reserved',
      });
      expect(r).toBeDefined();
    });

    test('a ready job not reserved within its ttl expires, not before', async () => {
      const j = job({ delayMs: 1000, ttlMs: 500 });
      await store.pushMany([j], T0);
      await store.promoteDue(T0 + 1000, 10);
      expect(await store.nextWakeAt()).toBe(T0 + 1500);
      expect(await store.expireDue(T0 + 1499, 10)).toEqual([]);
      // The expired jobs come back by id and topic: the service emits one `expired` event for each.
      expect(await store.expireDue(T0 + 1500, 10)).toEqual([{ id: j.id, topic }]);
      expect(await store.get(j.id)).toMatchObject({ state: 'expired', finishedAt: T0 + 1500 });
      expect((await store.reserve([topic], 1, T0 + 1500)).reservations).toEqual([]);
    });

    test('nextWakeAt is the earliest due time, TTR deadline or expiry', async () => {
      expect(await store.nextWakeAt()).toBeNull();
      await store.pushMany([job({ delayMs: 9000 })], T0);
      expect(await store.nextWakeAt()).toBe(T0 + 9000);
      await store.pushMany([job({ ttrMs: 3000 })], T0);
      await store.reserve([topic], 1, T0);
      expect(await store.nextWakeAt()).toBe(T0 + 3000);
      await store.pushMany([job({ ttlMs: 100 })], T0);
      expect(await store.nextWakeAt()).toBe(T0 + 100);
    });

    test('purge deletes old terminal jobs with their history, never a live one', async () => {
      const done = job();
      const waiting = job({ delayMs: 365 * 86_400_000 });
      await store.pushMany([done, waiting], T0);
      const [r] = (await store.reserve([topic], 1, T0)).reservations;
      await store.finish(done.id, r!.token, T0 + 1);
      expect(await store.purge(T0 + 1, 100)).toBe(0);
      expect(await store.purge(T0 + 10 * 365 * 86_400_000, 100)).toBe(1);
      expect(await store.get(done.id)).toBeNull();
      expect(await store.history(done.id)).toEqual([]);
      expect((await store.get(waiting.id))!.state).toBe('delayed');
    });

    test('get and history of an unknown id are empty', async () => {
      expect(await store.get('never-pushed')).toBeNull();
      expect(await store.history('never-pushed')).toEqual([]);
    });

    test('list filters by topic, state, bizKey and tag, and pages without gaps or repeats', async () => {
      const jobs = Array.from({ length: 7 }, (_, i) =>
        job({
          id: `${topic}-l${i}`,
          delayMs: i % 2 ? 1000 : 0,
          bizKey: i < 3 ? 'biz-a' : 'biz-b',
          tag: i === 6 ? 'vip' : null,
        }),
      );
      await store.pushMany([...jobs, job({ topic: other, id: `${other}-l` })], T0);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ topic, limit: 3, cursor });
        expect(page.jobs.length).toBeLessThanOrEqual(3);
        seen.push(...page.jobs.map((j) => j.id));
        cursor = page.next ?? undefined;
      } while (cursor);
      expect(seen.sort()).toEqual(jobs.map((j) => j.id).sort());
      expect((await store.list({ topic, state: 'delayed', limit: 50 })).jobs).toHaveLength(3);
      expect((await store.list({ topic, bizKey: 'biz-a', limit: 50 })).jobs.map((j) => j.id).sort()).toEqual([
        `${topic}-l0`,
        `${topic}-l1`,
        `${topic}-l2`,
      ]);
      expect((await store.list({ topic, tag: 'vip', limit: 50 })).jobs.map((j) => j.id)).toEqual([`${topic}-l6`]);
    });

    dueHistogramContract(test, () => ({ store, topic, other, job }));
    jobApiContract(test, () => ({ store, topic, other, job }));
    protocolContract(test, () => ({ store, topic, other, job }));

    test('stats counts jobs per topic and state, with the next due time', async () => {
      await store.pushMany([job({ delayMs: 500 }), job({ delayMs: 900 }), job(), job({ topic: other })], T0);
      await store.reserve([topic], 1, T0);
      const stats = await store.stats();
      const mine = stats.find((s) => s.topic === topic)!;
      expect(mine.counts).toMatchObject({ delayed: 2, ready: 0, reserved: 1 });
      expect(mine.nextDueAt).toBe(T0 + 500);
      expect(stats.find((s) => s.topic === other)!.counts.ready).toBe(1);
    });
  });
}
