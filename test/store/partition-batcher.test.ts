/**
 * The Redis store's batcher of script calls (partition-batcher.ts), with `send` as the test's own function
 * whose answers the test releases: the calls of one turn go as one call per partition; while a partition's
 * call is out, what arrives waits and goes as one call when it is answered, other partitions not held up; a
 * failed or throwing call rejects its items only, and the partition goes on; with a grouping, a wave goes group
 * by group unless a key repeats.
 */
import { describe, expect, it } from 'vitest';
import { PartitionBatcher, type Grouping } from '../../src/store/redis/partition-batcher.js';

interface Call {
  partition: number;
  items: string[];
  answer(): void;
  fail(err: Error): void;
}

function harness(maxItems = 64, grouping?: Grouping<string>) {
  const calls: Call[] = [];
  const batcher = new PartitionBatcher<string>(
    (partition, items) =>
      new Promise<unknown[]>((resolve, reject) => {
        calls.push({
          partition,
          items,
          answer: () => resolve(items.map((item) => `done:${item}`)),
          fail: reject,
        });
      }),
    { maxItems, ...(grouping ? { grouping } : {}) },
  );
  return { batcher, calls };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('PartitionBatcher', () => {
  // Items 'topic:id': grouped by topic, a repeated id keeps the arrival order.
  const byTopic: Grouping<string> = { groupOf: (item) => item.split(':')[0]!, keyOf: (item) => item.split(':')[1]! };

  it("sends a wave's items group by group, each in arrival order, and answers each caller in its own order", async () => {
    const { batcher, calls } = harness(3, byTopic);
    const answers = [batcher.addMany([0, 0, 0, 0, 0], ['a:1', 'b:2', 'a:3', 'c:4', 'b:5']), batcher.add(0, 'a:6')];
    await turn();
    expect(calls.map((c) => c.items)).toEqual([
      ['a:1', 'a:3', 'a:6'],
      ['b:2', 'b:5', 'c:4'],
    ]);
    calls.forEach((c) => c.answer());
    expect(await Promise.all(answers)).toEqual([
      ['done:a:1', 'done:b:2', 'done:a:3', 'done:c:4', 'done:b:5'],
      'done:a:6',
    ]);
  });

  it('leaves a wave in arrival order when one key comes twice', async () => {
    const { batcher, calls } = harness(64, byTopic);
    const answers = batcher.addMany([0, 0, 0], ['b:1', 'a:2', 'a:1']);
    await turn();
    expect(calls.map((c) => c.items)).toEqual([['b:1', 'a:2', 'a:1']]);
    calls.forEach((c) => c.answer());
    expect(await answers).toEqual(['done:b:1', 'done:a:2', 'done:a:1']);
  });

  it("sends one turn's items as one call per partition, in chunks of at most maxItems", async () => {
    const { batcher, calls } = harness(3);
    const answers = [batcher.add(0, 'a'), batcher.add(1, 'b'), batcher.addMany([0, 0, 0, 0], ['c', 'd', 'e', 'f'])];
    await turn();
    expect(calls.map((c) => [c.partition, c.items])).toEqual([
      [0, ['a', 'c', 'd']],
      [0, ['e', 'f']],
      [1, ['b']],
    ]);
    calls.forEach((c) => c.answer());
    expect(await Promise.all(answers)).toEqual(['done:a', 'done:b', ['done:c', 'done:d', 'done:e', 'done:f']]);
  });

  it("holds a busy partition's items until its call is answered, then sends them together; others go meanwhile", async () => {
    const { batcher, calls } = harness();
    const first = batcher.add(0, 'a');
    await turn();
    expect(calls).toHaveLength(1);
    // Three later turns while partition 0's call is out: they wait; partition 1 is not held up.
    const waiting = [batcher.add(0, 'b')];
    await turn();
    waiting.push(batcher.add(0, 'c'));
    const other = batcher.add(1, 'x');
    await turn();
    waiting.push(batcher.add(0, 'd'));
    await turn();
    expect(calls.map((c) => [c.partition, c.items])).toEqual([
      [0, ['a']],
      [1, ['x']],
    ]);
    calls[0]!.answer();
    expect(await first).toBe('done:a');
    await turn();
    expect(calls.map((c) => [c.partition, c.items])).toEqual([
      [0, ['a']],
      [1, ['x']],
      [0, ['b', 'c', 'd']],
    ]);
    calls[1]!.answer();
    calls[2]!.answer();
    expect(await Promise.all([...waiting, other])).toEqual(['done:b', 'done:c', 'done:d', 'done:x']);
    // Idle again: the next item goes at the end of its turn, not after anything.
    const idle = batcher.add(0, 'e');
    await turn();
    expect(calls.at(-1)!.items).toEqual(['e']);
    calls.at(-1)!.answer();
    expect(await idle).toBe('done:e');
  });

  it('rejects the items of a failed call only; the partition goes on with what waited', async () => {
    const { batcher, calls } = harness();
    const failed = batcher.add(0, 'a');
    await turn();
    const next = batcher.add(0, 'b');
    await turn();
    calls[0]!.fail(new Error('redis went away'));
    await expect(failed).rejects.toThrow('redis went away');
    await turn();
    expect(calls.map((c) => c.items)).toEqual([['a'], ['b']]);
    calls[1]!.answer();
    expect(await next).toBe('done:b');
  });

  it('rejects the items of a send that throws, and does not leave the partition busy', async () => {
    let throwing = true;
    const sent: string[][] = [];
    const batcher = new PartitionBatcher<string>((_p, items) => {
      if (throwing) throw new Error('not open');
      sent.push(items);
      return Promise.resolve(items.map(() => 'ok'));
    });
    await expect(batcher.add(0, 'a')).rejects.toThrow('not open');
    throwing = false;
    expect(await batcher.add(0, 'b')).toBe('ok');
    expect(sent).toEqual([['b']]);
  });
});
