import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** The titles of this part. */
export const GROUP_TESTS = [
  'a job keeps its group',
  'groupConcurrency 1: a group gets its next job only when the one out ends, other groups meanwhile',
  'groupConcurrency 1: a lapsed reservation still counts until it is retried',
  'groupConcurrency 2 counts per group, within one call and across calls',
  'a group with a backlog does not hold up a group with one job; jobs without a group still go',
  'without groupConcurrency groups change nothing',
  'a paused group is passed over, with or without groupConcurrency, while the rest goes',
  'groupRateLimits: each group takes its own tokens; one out of them waits while the others go',
  'a call with more candidates than it takes leaves the rest to later calls: each job once, none lost',
] as const;

/** Part of the Store contract (store.contract.ts runs it): groups and groupConcurrency (docs/flow-control.md). */
export function groupsContract(test: ContractTest, context: () => ContractContext): void {
  const [keeps, one, lapse, two, fair, none, paused, rated, rest] = GROUP_TESTS;
  const ids = (got: { reservations: { job: { id: string } }[] }): string[] => got.reservations.map((r) => r.job.id);

  test(keeps, async () => {
    const { store, topic, job } = context();
    const a = job({ group: 'tenant-1' });
    const b = job({ delayMs: 1000, group: 'tenant:2@x' });
    const c = job();
    await store.pushMany([a, b, c], T0);
    expect((await store.get(a.id))!.group).toBe('tenant-1');
    expect((await store.get(b.id))!.group).toBe('tenant:2@x');
    expect((await store.get(c.id))!.group).toBeUndefined();
    const got = await store.reserve([topic], 10, T0, { groupConcurrency: new Map([[topic, 1]]) });
    expect(got.reservations.find((r) => r.job.id === a.id)!.job.group).toBe('tenant-1');
  });

  test(one, async () => {
    const { store, topic, job } = context();
    const limits = { groupConcurrency: new Map([[topic, 1]]) };
    const tokens = new Map<string, string>();
    const take = async (now: number): Promise<string[]> => {
      const got = await store.reserve([topic], 10, now, limits);
      for (const r of got.reservations) tokens.set(r.job.id, r.token);
      return ids(got);
    };
    const a = [1, 2, 3, 4, 5].map((i) => job({ id: `${topic}-a${i}`, runAt: T0 - 100 + i, group: 'a' }));
    const b = job({ id: `${topic}-b1`, runAt: T0, group: 'b' });
    await store.pushMany([...a, b], T0);
    // One of a, and b meanwhile: a's next waits though it is due before b.
    expect(await take(T0)).toEqual([a[0]!.id, b.id]);
    expect(await take(T0)).toEqual([]);
    expect((await store.get(a[1]!.id))!.state).toBe('ready');

    // Each way out of reserved frees the group's slot: finish, retry (a failure), release, bury, cancel.
    const ends = [
      (id: string) => store.finish(id, tokens.get(id)!, T0 + 1),
      (id: string) => store.retry(id, tokens.get(id)!, T0 + 1, { runAt: T0 + 60_000, error: 'boom' }),
      (id: string) => store.release(id, tokens.get(id)!, T0 + 1),
      (id: string) => store.bury(id, tokens.get(id)!, T0 + 1, { error: 'dead' }),
      (id: string) => store.cancel(id, T0 + 1),
    ];
    let out = a[0]!.id;
    const next = [a[1]!.id, a[2]!.id, a[2]!.id, a[3]!.id, a[4]!.id];
    for (const [i, end] of ends.entries()) {
      expect(await end(out)).toMatchObject({ ok: true });
      // A released job is ready again and first in the ready order: it comes back itself.
      expect(await take(T0 + 1)).toEqual([next[i]]);
      out = next[i]!;
    }
  });

  test(lapse, async () => {
    const { store, topic, job } = context();
    const limits = { groupConcurrency: new Map([[topic, 1]]) };
    const [x, y] = [job({ group: 'g', ttrMs: 1000 }), job({ group: 'g', ttrMs: 1000, runAt: T0 + 1 })];
    await store.pushMany([x, y], T0 + 1);
    const [first] = (await store.reserve([topic], 10, T0 + 1, limits)).reservations;
    expect(first!.job.id).toBe(x.id);
    // Past its deadline but not yet retried: still out, still counted.
    expect(ids(await store.reserve([topic], 10, T0 + 5000, limits))).toEqual([]);
    const [lapsed] = await store.listLapsed(T0 + 5000, 10);
    await store.retry(lapsed!.id, lapsed!.token, T0 + 5000, { runAt: T0 + 60_000, error: 'TTR lapsed' });
    expect(ids(await store.reserve([topic], 10, T0 + 5000, limits))).toEqual([y.id]);
  });

  test(two, async () => {
    const { store, topic, other, job } = context();
    const limits = { groupConcurrency: new Map([[topic, 2]]) };
    const jobs = ['p', 'q'].flatMap((g) => [1, 2, 3].map((i) => job({ id: `${topic}-${g}${i}`, group: g })));
    // The same group name in another topic without a limit is another group, not bounded.
    const free = [1, 2, 3].map((i) => job({ id: `${other}-p${i}`, topic: other, group: 'p' }));
    await store.pushMany([...jobs, ...free], T0);
    const got = await store.reserve([topic, other], 100, T0, limits);
    const tokenOf = (id: string): string => got.reservations.find((r) => r.job.id === id)!.token;
    const first = ids(got);
    expect(first.filter((id) => id.startsWith(`${topic}-p`))).toHaveLength(2);
    expect(first.filter((id) => id.startsWith(`${topic}-q`))).toHaveLength(2);
    expect(first.filter((id) => id.startsWith(other))).toHaveLength(3);
    expect(ids(await store.reserve([topic], 100, T0, limits))).toEqual([]);
    const p = first.find((id) => id.startsWith(`${topic}-p`))!;
    expect(await store.finish(p, tokenOf(p), T0 + 1)).toMatchObject({ ok: true });
    expect(ids(await store.reserve([topic], 100, T0 + 1, limits))).toEqual([`${topic}-p3`]);
  });

  test(fair, async () => {
    const { store, topic, job } = context();
    const limits = { groupConcurrency: new Map([[topic, 3]]) };
    const big = Array.from({ length: 200 }, (_, i) =>
      job({ id: `${topic}-big${String(i).padStart(3, '0')}`, runAt: T0 - 1000 + i, group: 'big' }),
    );
    await store.pushMany(big, T0);
    const small = job({ id: `${topic}-small`, runAt: T0, group: 'small' });
    const loose = job({ id: `${topic}-loose`, runAt: T0 });
    await store.pushMany([small, loose], T0);
    // Far behind 200 earlier jobs of big, the small group's job and the job without a group go in the first call.
    const got = ids(await store.reserve([topic], 10, T0, limits));
    expect(got).toHaveLength(5);
    expect(got).toContain(small.id);
    expect(got).toContain(loose.id);
    expect(got.filter((id) => id.includes('-big'))).toEqual([`${topic}-big000`, `${topic}-big001`, `${topic}-big002`]);
  });

  test(none, async () => {
    const { store, topic, job } = context();
    const jobs = [1, 2, 3].map((i) => job({ id: `${topic}-${i}`, runAt: T0 - 10 + i, group: 'g' }));
    await store.pushMany(jobs, T0);
    expect(ids(await store.reserve([topic], 10, T0))).toEqual(jobs.map((j) => j.id));
  });

  test(paused, async () => {
    const { store, topic, other, job } = context();
    const hold = [1, 2].map((i) => job({ id: `${topic}-hold${i}`, runAt: T0 - 100, group: 'hold' }));
    const go = [1, 2].map((i) => job({ id: `${topic}-go${i}`, runAt: T0 - 10 + i, group: 'go' }));
    const loose = job({ id: `${topic}-loose`, runAt: T0 });
    // The same group name in another topic is another group: not paused.
    const elsewhere = job({ id: `${other}-hold`, topic: other, runAt: T0, group: 'hold' });
    await store.pushMany([...hold, ...go, loose, elsewhere], T0);
    const pausedGroups = new Map([[topic, new Set(['hold'])]]);
    // Without a groupConcurrency: everything but the paused group, though its jobs are first in the ready order.
    const got = ids(await store.reserve([topic, other], 10, T0, { pausedGroups }));
    expect(got.sort()).toEqual([elsewhere.id, ...go.map((j) => j.id), loose.id].sort());
    expect((await store.get(hold[0]!.id))!.state).toBe('ready');
    // With one: still passed over; resumed (not given), its jobs go, the bound kept.
    const limits = { groupConcurrency: new Map([[topic, 1]]) };
    expect(ids(await store.reserve([topic], 10, T0, { ...limits, pausedGroups }))).toEqual([]);
    expect(ids(await store.reserve([topic], 10, T0, limits))).toEqual([hold[0]!.id]);
  });

  test(rated, async () => {
    const { store, topic, other, job } = context();
    const byGroup = (g: string) =>
      [1, 2, 3, 4].map((i) => job({ id: `${topic}-${g}${i}`, runAt: T0 - 100 + i, group: g }));
    const [a, b] = [byGroup('a'), byGroup('b')];
    const loose = [1, 2, 3].map((i) => job({ id: `${topic}-loose${i}`, runAt: T0 - 50 + i }));
    // The same group in another topic without a limit is another group.
    const free = [1, 2, 3].map((i) => job({ id: `${other}-a${i}`, topic: other, runAt: T0, group: 'a' }));
    await store.pushMany([...a, ...b, ...loose, ...free], T0);
    // 2 a second, burst 2: each group gives 2 at once, then one every 500 ms.
    const rates = { groupRateLimits: new Map([[topic, { perSecond: 2, burst: 2 }]]) };
    const first = await store.reserve([topic, other], 100, T0, rates);
    const got = ids(first);
    expect(got.filter((id) => id.startsWith(`${topic}-a`)).sort()).toEqual([a[0]!.id, a[1]!.id]);
    expect(got.filter((id) => id.startsWith(`${topic}-b`)).sort()).toEqual([b[0]!.id, b[1]!.id]);
    expect(got.filter((id) => id.includes('-loose'))).toHaveLength(3);
    expect(got.filter((id) => id.startsWith(other))).toHaveLength(3);
    // Every group out of tokens: nothing, and when the next token comes.
    const empty = await store.reserve([topic], 100, T0 + 100, rates);
    expect(ids(empty)).toEqual([]);
    expect(empty.groupTokenInMs).toBeGreaterThanOrEqual(350);
    expect(empty.groupTokenInMs).toBeLessThanOrEqual(500);
    // 500 ms on: one token each.
    const next = ids(await store.reserve([topic], 100, T0 + 500, rates));
    expect(next.sort()).toEqual([a[2]!.id, b[2]!.id].sort());
    // Without the limit (settings removed) the rest go at once.
    expect(ids(await store.reserve([topic], 100, T0 + 500)).sort()).toEqual([a[3]!.id, b[3]!.id].sort());
  });

  test(rest, async () => {
    const { store, topic, job } = context();
    const limits = { groupConcurrency: new Map([[topic, 3]]) };
    const byGroup = (g: string, n: number) =>
      Array.from({ length: n }, (_, i) => job({ id: `${topic}-${g}${i}`, runAt: T0 - 100 + i * 7, group: g }));
    // Jobs without a group and groups' jobs compete for each call of 4, in the ready order.
    const loose = Array.from({ length: 4 }, (_, i) => job({ id: `${topic}-loose${i}`, runAt: T0 - 98 + i * 5 }));
    const all = [...byGroup('a', 3), ...byGroup('b', 3), ...byGroup('c', 2), ...loose];
    await store.pushMany(all, T0);
    const seen: string[] = [];
    const tokens = new Map<string, string>();
    for (let call = 0; call < 10; call++) {
      const got = await store.reserve([topic], 4, T0, limits);
      expect(got.reservations.length).toBeLessThanOrEqual(4);
      if (got.reservations.length === 0) break;
      for (const r of got.reservations) tokens.set(r.job.id, r.token);
      seen.push(...ids(got));
    }
    expect(seen.sort()).toEqual(all.map((j) => j.id).sort());
    // The groups are still listed for their next jobs: one more of a is reserved at once, after one of a ends.
    const later = job({ id: `${topic}-a9`, runAt: T0, group: 'a' });
    await store.pushMany([later], T0 + 1);
    expect(ids(await store.reserve([topic], 4, T0 + 1, limits))).toEqual([]);
    expect(await store.finish(`${topic}-a0`, tokens.get(`${topic}-a0`)!, T0 + 2)).toMatchObject({ ok: true });
    expect(ids(await store.reserve([topic], 4, T0 + 2, limits))).toEqual([later.id]);
  });
}
