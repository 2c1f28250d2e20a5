import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { SCRIPT_NAMES, scriptSource } from '../../src/store/redis/scripts.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

// What the store sends to Redis, seen through MONITOR and filtered by this test's key prefix (other test
// files share the server). The counts are the point: batching and one-call ticks are what make a job's
// life cheap, and a refactor that quietly adds a round trip per job should fail here.

const prefixes = prefixPool('rt');
afterAll(() => prefixes.sweep());

const scriptBySha = new Map(
  SCRIPT_NAMES.map((name) => {
    const source = scriptSource(name);
    return [createHash('sha1').update(source).digest('hex'), name] as const;
  }),
);

/**
 * Records the commands touching `prefix`'s keys: script names for EVALSHA, command names otherwise.
 * A raw socket, not ioredis's monitor(): under load ioredis can read the first MONITOR lines before it
 * switched the connection to monitor mode, and throws.
 */
async function monitor(prefix: string): Promise<{ seen: string[]; insideScripts: string[]; stop(): Promise<void> }> {
  const socket = connect(6379, '127.0.0.1');
  await once(socket, 'connect');
  const seen: string[] = [];
  const insideScripts: string[] = [];
  let buffered = '';
  let seenOk = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\r\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === '+OK') seenOk = true;
      // +1795328366.040374 [0 127.0.0.1:40338] "evalsha" "d678…" "6" "{t-…}:jobs" …   ([0 lua] inside scripts)
      const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]*)" "([^"]*)"/.exec(line);
      if (!m || !line.includes(`{${prefix}:`)) continue;
      const command = m[2]!.toLowerCase();
      if (m[1] === 'lua') {
        insideScripts.push(command);
        continue;
      }
      // EVAL on a script's first use on this server (named by its header, `--[[ name: …`), EVALSHA after.
      if (command === 'eval') seen.push(/^--\[\[ ([\w-]+):/.exec(m[3]!)?.[1] ?? 'unknown-script');
      else seen.push(command === 'evalsha' ? (scriptBySha.get(m[3]!) ?? 'unknown-script') : command);
    }
  });
  socket.write('MONITOR\r\n');
  // Commands sent before Redis answers +OK to MONITOR are not shown: wait for it.
  while (!seenOk) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    seen,
    insideScripts,
    stop: async () => {
      socket.destroy();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('RedisStore round trips', () => {
  it('sends the finishes of one event-loop turn as one script call, with an outcome per job', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    await store.pushMany(
      Array.from({ length: 30 }, () => aJob({ topic: 'batch', now })),
      now,
    );
    const reserved = (await store.reserve(['batch'], 30, now)).reservations;
    expect(reserved).toHaveLength(30);
    const watch = await monitor(prefix);
    await settle();
    const [first, second] = reserved;
    const outcomes = await Promise.all([
      ...reserved.map((r) => store.finish(r.job.id, r.token, now + 1)),
      store.finish(first!.job.id, first!.token, now + 1), // a repeat of the finish above: answered as done
      store.finish(second!.job.id, 'another-token', now + 1), // finished above: another token is refused
      store.finish('no-such-job', 'x', now + 1),
    ]);
    await settle();
    await watch.stop();
    expect(watch.seen).toEqual(['finish']);
    expect(
      outcomes.slice(0, 30).every((o) => o.ok && o.value.state === 'finished' && o.value.finishedAt === now + 1),
    ).toBe(true);
    expect(outcomes[30]).toMatchObject({ ok: true, repeated: true, value: { id: first!.job.id, state: 'finished' } });
    expect(outcomes[31]).toMatchObject({ ok: false, reason: 'wrong_state', state: 'finished' });
    expect(outcomes[32]).toMatchObject({ ok: false, reason: 'not_found' });
    // A wrong token is refused on its own, without touching the job.
    await store.pushMany([aJob({ topic: 'batch', now, id: 'fenced' })], now);
    const [held] = (await store.reserve(['batch'], 1, now)).reservations;
    const [bad, good] = await Promise.all([
      store.finish('fenced', second!.token, now + 2),
      store.finish('fenced', held!.token, now + 2),
    ]);
    expect(bad).toMatchObject({ ok: false, reason: 'token_mismatch' });
    expect(good.ok).toBe(true);
    expect((await store.stats()).find((s) => s.topic === 'batch')!.counts).toMatchObject({ reserved: 0, finished: 31 });
    await store.close();
  });

  it('sends the cancels of one event-loop turn as one script call, delayed, ready and reserved alike', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const delayed = Array.from({ length: 20 }, (_, i) => aJob({ topic: 'c', now, delayMs: 60_000 * (i + 1) }));
    const ready = Array.from({ length: 10 }, () => aJob({ topic: 'c', now }));
    await store.pushMany([...delayed, ...ready], now);
    const out = (await store.reserve(['c'], 5, now)).reservations;
    const watch = await monitor(prefix);
    await settle();
    const ids = [...delayed, ...ready].map((j) => j.id);
    const outcomes = await Promise.all(ids.map((id) => store.cancel(id, now + 1, { reason: 'r' })));
    await settle();
    await watch.stop();
    expect(watch.seen).toEqual(['cancel']);
    expect(outcomes.every((o) => o.ok && o.value.job.state === 'cancelled')).toBe(true);
    expect(outcomes.filter((o) => o.ok && o.value.dispatched).length).toBe(out.length);
    // The records read with one HMGET and written with one HSET, not a read and a write per job.
    expect(watch.insideScripts.filter((c) => c === 'hmget').length).toBe(1);
    expect(watch.insideScripts.filter((c) => c === 'hget').length).toBeLessThanOrEqual(1); // the topic's group flag
    expect(watch.insideScripts.filter((c) => c === 'hset').length).toBe(1);
    expect((await store.stats()).find((s) => s.topic === 'c')!.counts).toMatchObject({
      delayed: 0,
      ready: 0,
      reserved: 0,
      cancelled: 30,
    });
    await store.close();
  });

  it('purges a large backlog of ended jobs in bounded script calls, so Redis keeps answering between them', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const jobs = Array.from({ length: 1200 }, () => aJob({ topic: 'p', now, delayMs: 60_000 }));
    await store.pushMany(jobs, now);
    await Promise.all(jobs.map((j) => store.cancel(j.id, now + 1)));
    const watch = await monitor(prefix);
    await settle();
    const purged = await store.purge(now + 2, 10_000);
    await settle();
    await watch.stop();
    expect(purged).toBe(1200);
    // 500, 500 and 200: one script of 10,000 deletes would hold Redis for over 100 ms.
    expect(watch.seen.filter((c) => c === 'purge').length).toBe(3);
    expect(await store.purge(now + 2, 10_000)).toBe(0);
    expect(await store.get(jobs[0]!.id)).toBeNull();
    await store.close();
  });

  it('moves jobs of many groups with their counts per call, not per job', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const jobs = Array.from({ length: 40 }, (_, i) => aJob({ topic: 'g', now, group: `g${i % 20}` }));
    const watch = await monitor(prefix);
    await settle();
    await store.pushMany(jobs, now);
    await settle();
    // The 20 new lanes are named in one ZADD of the topic's lane list, besides one ZADD per lane.
    // Else: the ready set, the lane list, the id index's page and directory (a lane list ZADD a job was 44).
    expect(watch.insideScripts.filter((c) => c === 'zadd').length).toBeLessThanOrEqual(20 + 4);
    watch.insideScripts.length = 0;
    const options = { groupConcurrency: new Map([['g', 1]]) };
    const { reservations } = await store.reserve(['g'], 40, now, options);
    await settle();
    // One job from each group, their counts in one HMGET and one HSET, and no lane asked whether it emptied.
    expect(reservations).toHaveLength(20);
    expect(new Set(reservations.map((r) => r.job.group)).size).toBe(20);
    expect(watch.insideScripts.filter((c) => c === 'hincrby' || c === 'exists').length).toBeLessThanOrEqual(2);
    expect(watch.insideScripts.filter((c) => c === 'hset').length).toBe(2); // the records, the counts
    watch.insideScripts.length = 0;
    await Promise.all(reservations.map((r) => store.finish(r.job.id, r.token, now + 1)));
    await settle();
    await watch.stop();
    // The groups' counts let go in one read and one delete, not an HINCRBY and an HDEL a job.
    expect(watch.insideScripts.filter((c) => c === 'hdel').length).toBe(1);
    expect(watch.insideScripts.filter((c) => c === 'hincrby').length).toBeLessThanOrEqual(2); // the topic's counts
    // Every group is free again: the next reserve takes the second job of each.
    const again = await store.reserve(['g'], 40, now + 2, options);
    expect(again.reservations).toHaveLength(20);
    await store.close();
  });

  it('takes a job from due to finished in one promote, one reserve and one finish call (1 partition)', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const service = new DelayqService({ store, nodeId: 'rt', clock: store.clock });
    await service.start();
    await settle(); // the start-up tick is not part of a job's life
    const watch = await monitor(prefix);
    const waiting = service.reserve({ topics: ['life'], count: 10, waitMs: 5000 });
    await settle();
    await service.push({ topic: 'life', delayMs: 300, body: { n: 1 } });
    const [got] = await waiting;
    expect(got!.job.topic).toBe('life');
    await service.finish(got!.job.id, got!.token);
    await settle();
    await watch.stop();
    await service.close();
    await store.close();
    // The long-poll's first look, the push, the timer's promote (which also tells the scheduler when to
    // wake next: no nextWakeAt, lapsed or expire calls), the woken long-poll's reserve, the finish.
    // (A timer that fires a hair before the Redis clock reaches the due time makes a second promote.)
    // The topic pause follower's refresh (one HGETALL every 0.5 s a process) is not part of a job's life either.
    // The finish's job event goes to the event stream after it (one append-events call per turn: docs/events.md).
    expect(watch.seen.filter((c) => c !== 'promote' && c !== 'hgetall')).toEqual([
      'reserve',
      'push',
      'reserve',
      'finish',
      'append-events',
    ]);
    const promotes = watch.seen.flatMap((c, i) => (c === 'promote' ? [i] : []));
    expect(promotes.length).toBeGreaterThanOrEqual(1);
    expect(promotes.length).toBeLessThanOrEqual(2);
    expect(promotes.every((i) => i > watch.seen.indexOf('push') && i < watch.seen.lastIndexOf('reserve'))).toBe(true);
  });

  it('sends the job events of separate event-loop turns in one call, every event in the stream in order', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const watch = await monitor(prefix);
    const ids = Array.from({ length: 20 }, (_, i) => `ended-${i}`);
    // One event per turn, as finishes answered one at a time append them; flushed per turn, that would be 20 calls.
    for (const id of ids) {
      store.jobEvents.append([{ event: 'finished', id, topic: 'ended', at: 1, result: null, error: null }]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await settle();
    await watch.stop();
    const appends = watch.seen.filter((c) => c === 'append-events').length;
    expect(appends).toBeGreaterThanOrEqual(1);
    expect(appends).toBeLessThan(ids.length / 2);
    const reader = new Redis({ host: '127.0.0.1', port: 6379 });
    const entries = (await reader.xrange(`{${prefix}:events}`, '-', '+')) as [string, string[]][];
    await reader.quit();
    expect(entries.map(([, fields]) => (JSON.parse(fields[1]!) as { id: string }).id)).toEqual(ids);
    await store.close();
  });

  it('promotes the earliest of a large overdue backlog reading about `limit` delayed sets, not all of them', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'rt', partitions: 1 });
    await store.open();
    const base = Date.UTC(2026, 0, 1);
    // 20k jobs due 1 ms apart, pushed 1 h before the first is due: the buckets follow the backlog, so
    // they are spread over hundreds of delayed sets, each with some overdue jobs.
    const jobs = Array.from({ length: 20_000 }, (_, i) =>
      aJob({ topic: 'backlog', now: base, delayMs: 3_600_000 + i }),
    );
    for (let i = 0; i < jobs.length; i += 1000) await store.pushMany(jobs.slice(i, i + 1000), base);
    const now = base + 3_600_000 + jobs.length; // every job overdue
    const watch = await monitor(prefix);
    await settle();
    const promoted = await store.promoteDue(now, 100);
    await settle();
    await watch.stop();
    expect(promoted.count).toBe(100);
    const got = (await store.reserve(['backlog'], 100, now)).reservations;
    expect(got.map((r) => r.job.id).sort()).toEqual(
      jobs
        .slice(0, 100)
        .map((j) => j.id)
        .sort(),
    );
    // promote: one read of the due index, one per delayed set visited (at most limit + 1), one per set it
    // took jobs from (to re-index its head), three heads; reserve: one. Without the cut it would read
    // every one of the hundreds of overdue sets.
    const zranges = watch.insideScripts.filter((c) => c === 'zrange').length;
    expect(zranges).toBeLessThanOrEqual(1 + 101 + 100 + 3 + 1);
    await store.close();
  });
});
