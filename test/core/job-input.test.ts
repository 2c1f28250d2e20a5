import { describe, expect, it } from 'vitest';
import { DelayqError } from '../../src/core/errors.js';
import { DEFAULT_JOB_DEFAULTS } from '../../src/config.js';
import { normalizePush, validateJobId, type PushInput } from '../../src/core/job-input.js';
import { tickJobId } from '../../src/core/schedule.js';
import { LIMITS } from '../../src/core/limits.js';

const now = Date.UTC(2026, 5, 1);
const ctx = { now, defaults: DEFAULT_JOB_DEFAULTS, newId: () => '01GENERATED' };
const push = (input: Partial<PushInput> & Record<string, unknown>) =>
  normalizePush({ topic: 'orders', ...input } as PushInput, ctx);

function errorOf(fn: () => unknown): DelayqError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DelayqError) return err;
    throw err;
  }
  throw new Error('expected a DelayqError');
}

describe('normalizePush', () => {
  it("keeps '~' out of callers' ids (a schedule tick's namespace); delayq's own ids and lookups take it", () => {
    const taken = errorOf(() => push({ id: 'nightly~1796092200000' }));
    expect(taken).toMatchObject({ code: 'E_VALIDATION', field: 'id' });
    expect(taken.message).toContain('schedule ticks');
    expect(errorOf(() => push({ id: 'bad id' }))).toMatchObject({ code: 'E_VALIDATION', field: 'id' });
    expect(push({ id: 'nightly:1796092200000' }).id).toBe('nightly:1796092200000');
    const own = normalizePush({ topic: 'orders', id: 'nightly~1796092200000' }, { ...ctx, ownIds: true });
    expect(own.id).toBe('nightly~1796092200000');
    expect(validateJobId('nightly~1796092200000')).toBe('nightly~1796092200000');
    expect(tickJobId('nightly', 1796092200000)).toBe('nightly~1796092200000');
  });

  it('stamps runAt with the server clock and applies defaults', () => {
    const job = push({ delayMs: 1800_000, body: { order: 42 } });
    expect(job).toMatchObject({
      id: '01GENERATED',
      topic: 'orders',
      runAt: now + 1800_000,
      priority: 0,
      ttrMs: 30_000,
      ttlMs: null,
      body: '{"order":42}',
    });
  });

  it('accepts durations as text and absolute times as epoch ms or ISO-8601', () => {
    expect(push({ delayMs: '30m' }).runAt).toBe(now + 1800_000);
    expect(push({ runAt: now + 5 }).runAt).toBe(now + 5);
    expect(push({ runAt: new Date(now + 60_000).toISOString() }).runAt).toBe(now + 60_000);
    expect(push({ runAt: now - 1000 }).runAt).toBe(now - 1000); // already due: ready at once, its time kept for the order
  });

  it('keeps ten-year delays and refuses longer ones', () => {
    expect(push({ delayMs: LIMITS.maxDelayMs }).runAt).toBe(now + LIMITS.maxDelayMs);
    expect(errorOf(() => push({ delayMs: LIMITS.maxDelayMs + 1 }))).toMatchObject({
      code: 'E_VALIDATION',
      field: 'delayMs',
    });
  });

  it.each([
    [{ delayMs: -1 }, 'delayMs'],
    [{ delayMs: Number.NaN }, 'delayMs'],
    [{ delayMs: Number.POSITIVE_INFINITY }, 'delayMs'],
    [{ delayMs: 'soon' }, 'delayMs'],
    [{ delayMs: true }, 'delayMs'],
    [{ runAt: 'tomorrow' }, 'runAt'],
    [{ runAt: 1.5 }, 'runAt'],
    [{ delayMs: 1, runAt: now }, 'runAt'],
    [{ topic: '' }, 'topic'],
    [{ topic: 'has space' }, 'topic'],
    [{ topic: '{tag}' }, 'topic'],
    [{ topic: 'x'.repeat(201) }, 'topic'],
    [{ id: 'a/b' }, 'id'],
    [{ priority: 1.5 }, 'priority'],
    [{ priority: 40_000 }, 'priority'],
    [{ ttrMs: 10 }, 'ttrMs'],
    [{ ttlMs: -5 }, 'ttlMs'],
    [{ tag: 'bad\u0000tag' }, 'tag'],
    [{ bizKey: 42 }, 'bizKey'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    [{ retry: { backoff: { type: 'linear' } } }, 'retry.backoff.type'],
    [{ retry: '4m,soon' }, 'retry[1]'],
  ])('refuses %j naming the field %s', (input, field) => {
    const err = errorOf(() => push(input as Record<string, unknown>));
    expect(err.code).toBe('E_VALIDATION');
    expect(err.field).toBe(field);
    expect(err.message).toContain(field);
  });

  it('refuses a body over the size limit with E_BODY_TOO_LARGE', () => {
    const err = errorOf(() =>
      normalizePush(
        { topic: 't', body: 'x'.repeat(2000) },
        { ...ctx, defaults: { ...ctx.defaults, bodyMaxBytes: 1000 } },
      ),
    );
    expect(err).toMatchObject({ code: 'E_BODY_TOO_LARGE', field: 'body' });
  });

  it('turns a retry schedule text into a list policy with one retry per step', () => {
    expect(push({ retry: '4m,10m' }).retry).toEqual({
      maxAttempts: 3,
      backoff: { type: 'list', delaysMs: [240_000, 600_000] },
    });
    expect(push({ retry: { maxAttempts: 5, backoff: { type: 'fixed', delayMs: '10s' } } }).retry).toEqual({
      maxAttempts: 5,
      backoff: { type: 'fixed', delayMs: 10_000 },
    });
  });
});
