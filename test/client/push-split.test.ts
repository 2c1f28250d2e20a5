import { describe, expect, it } from 'vitest';
import { PushCoalescer, type PushSender } from '../../src/client/push-coalescer.js';
import type { PushResponse } from '../../src/protocol/schemas.js';

/**
 * How the coalescer splits a turn's pushes into requests (the answers' content is push-coalescing.test.ts's,
 * against a real server). The sender here records each batch's size and answers when the test says, so the
 * order of sends and answers is the test's.
 */
describe('push coalescing: requests per turn', () => {
  const answer = (text: string) => ({ created: true, job: JSON.parse(text) }) as unknown as PushResponse;
  function recordingSender() {
    const sizes: number[] = [];
    const release: (() => void)[] = [];
    const sender: PushSender = {
      one: async (text) => (sizes.push(1), answer(text)),
      batch: (texts) => {
        sizes.push(texts.length);
        return new Promise((resolve) => release.push(() => resolve(texts.map(answer))));
      },
    };
    return { sender, sizes, release };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const pushes = (c: PushCoalescer, n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => c.add({ topic: 't', id: `j${from + i}` }));

  it('with no request out, a turn of 32 or more goes as two halves; fewer as one', async () => {
    const { sender, sizes, release } = recordingSender();
    const c = new PushCoalescer(sender, 0);
    const first = pushes(c, 100);
    await nextTurn();
    expect(sizes).toEqual([50, 50]);
    release.splice(0).forEach((r) => r());
    const answers = await Promise.all(first);
    expect(answers.map((a) => (a.job as { id: string }).id)).toEqual(first.map((_, i) => `j${i}`));
    const small = pushes(c, 31, 100);
    await nextTurn();
    expect(sizes).toEqual([50, 50, 31]);
    release.splice(0).forEach((r) => r());
    await Promise.all(small);
  });

  it('while a request is out, a turn goes as one request', async () => {
    const { sender, sizes, release } = recordingSender();
    const c = new PushCoalescer(sender, 0);
    const first = pushes(c, 100);
    await nextTurn();
    const second = pushes(c, 100, 100);
    await nextTurn();
    expect(sizes).toEqual([50, 50, 100]);
    // One half answered, the other still out: still one request.
    release.shift()!();
    await Promise.all(first.slice(0, 50));
    const third = pushes(c, 60, 200);
    await nextTurn();
    expect(sizes).toEqual([50, 50, 100, 60]);
    // All answered: the next turn splits again.
    release.splice(0).forEach((r) => r());
    await Promise.all([...first, ...second, ...third]);
    const fourth = pushes(c, 60, 300);
    await nextTurn();
    expect(sizes).toEqual([50, 50, 100, 60, 30, 30]);
    release.splice(0).forEach((r) => r());
    await Promise.all(fourth);
  });
});
