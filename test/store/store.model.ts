import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobState } from '../../src/core/job.js';
import { decideFailure } from '../../src/core/retry-policy.js';
import type { Store } from '../../src/store/store.js';
import { aJob } from '../../src/testing/jobs.js';

/**
 * Model-based test: random sequences of push / promote / reserve / touch / finish / fail / release /
 * cancel / redrive / TTR lapse / time advance run against a real store and a plain in-memory model;
 * after every step each job's state and attempts must agree, and every outcome must be the model's.
 */
interface ModelJob {
  state: JobState;
  runAt: number;
  priority: number;
  attempts: number;
  token: string | null;
  staleToken: string | null;
  /** The token that finished the job: a repeat with it is answered as done. */
  finishedBy: string | null;
  deadlineAt: number | null;
  createdAt: number;
}

interface Model {
  now: number;
  jobs: Map<string, ModelJob>;
}

interface Real {
  store: Store;
  topic: string;
  /** false for stores that only order reservations within a partition (RedisStore with partitions > 1). */
  strictOrder: boolean;
}

const RETRY = { maxAttempts: 2, backoff: { type: 'fixed' as const, delayMs: 50 } };
const TTR = 100;
const IDS = ['a', 'b', 'c'];

type Cmd = fc.AsyncCommand<Model, Real>;

const readyOrder = (m: Model) =>
  [...m.jobs.entries()]
    .filter(([, j]) => j.state === 'ready')
    .sort(
      ([ia, a], [ib, b]) =>
        a.priority - b.priority || a.runAt - b.runAt || a.createdAt - b.createdAt || (ia < ib ? -1 : 1),
    )
    .map(([id]) => id);

async function agree(m: Model, r: Real): Promise<void> {
  for (const [id, job] of m.jobs) {
    const stored = await r.store.get(`${r.topic}-${id}`);
    expect({ id, state: stored?.state, attempts: stored?.attempts }).toEqual({
      id,
      state: job.state,
      attempts: job.attempts,
    });
  }
}

class Push implements Cmd {
  readonly id: string;
  readonly delayMs: number;
  readonly priority: number;
  constructor(id: string, delayMs: number, priority: number) {
    this.id = id;
    this.delayMs = delayMs;
    this.priority = priority;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const [result] = await r.store.pushMany(
      [
        aJob({
          id: `${r.topic}-${this.id}`,
          topic: r.topic,
          runAt: m.now + this.delayMs,
          priority: this.priority,
          ttrMs: TTR,
          retry: RETRY,
        }),
      ],
      m.now,
    );
    const exists = m.jobs.has(this.id);
    expect(result!.created).toBe(!exists);
    if (!exists)
      m.jobs.set(this.id, {
        state: this.delayMs === 0 ? 'ready' : 'delayed',
        runAt: m.now + this.delayMs,
        priority: this.priority,
        attempts: 0,
        token: null,
        staleToken: null,
        finishedBy: null,
        deadlineAt: null,
        createdAt: m.now,
      });
    await agree(m, r);
  }
  toString = () => `push(${this.id}, +${this.delayMs}ms, p${this.priority})`;
}

class Advance implements Cmd {
  readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    m.now += this.ms;
    const promoted = await r.store.promoteDue(m.now, 1000);
    let expected = 0;
    for (const job of m.jobs.values()) {
      if (job.state === 'delayed' && job.runAt <= m.now) {
        job.state = 'ready';
        expected++;
      }
    }
    expect(promoted.count).toBe(expected);
    // TTR lapses, handled as the reaper does
    // (this run's topic only: a journaled store's restore may hold earlier runs' reservations)
    const lapsed = (await r.store.listLapsed(m.now, 1000)).filter((l) => l.topic === r.topic);
    const expectedLapsed = [...m.jobs.entries()]
      .filter(([, j]) => j.state === 'reserved' && j.deadlineAt! <= m.now)
      .map(([id]) => id);
    expect(lapsed.map((l) => l.id.slice(r.topic.length + 1)).sort()).toEqual(expectedLapsed.sort());
    for (const l of lapsed) {
      const id = l.id.slice(r.topic.length + 1);
      const job = m.jobs.get(id)!;
      const decision = decideFailure(RETRY, l.attempts, m.now);
      const outcome =
        decision.action === 'retry'
          ? await r.store.retry(l.id, l.token, m.now, { runAt: decision.runAt, error: 'ttr' })
          : await r.store.bury(l.id, l.token, m.now, { error: 'ttr' });
      expect(outcome.ok).toBe(true);
      job.staleToken = job.token;
      job.token = null;
      job.deadlineAt = null;
      if (decision.action === 'retry') Object.assign(job, { state: 'delayed', runAt: decision.runAt });
      else job.state = 'dead';
    }
    await agree(m, r);
  }
  toString = () => `advance(${this.ms})`;
}

class Reserve implements Cmd {
  readonly count: number;
  constructor(count: number) {
    this.count = count;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const got = (await r.store.reserve([r.topic], this.count, m.now)).reservations;
    const ready = readyOrder(m);
    const gotIds = got.map((g) => g.job.id.slice(r.topic.length + 1));
    if (r.strictOrder) expect(gotIds).toEqual(ready.slice(0, this.count));
    else {
      // Any ready jobs, as many as asked for or available, handed out in ready order among themselves.
      expect(gotIds.length).toBe(Math.min(this.count, ready.length));
      expect(gotIds).toEqual(ready.filter((id) => gotIds.includes(id)));
    }
    for (const g of got) {
      const job = m.jobs.get(g.job.id.slice(r.topic.length + 1))!;
      Object.assign(job, { state: 'reserved', attempts: job.attempts + 1, token: g.token, deadlineAt: m.now + TTR });
    }
    await agree(m, r);
  }
  toString = () => `reserve(${this.count})`;
}

type Action = 'finish' | 'fail' | 'touch' | 'release' | 'cancel' | 'redrive';

class Act implements Cmd {
  readonly action: Action;
  readonly id: string;
  readonly stale: boolean;
  constructor(action: Action, id: string, stale: boolean) {
    this.action = action;
    this.id = id;
    this.stale = stale;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const job = m.jobs.get(this.id);
    const key = `${r.topic}-${this.id}`;
    const token = (this.stale ? job?.staleToken : job?.token) ?? 'no-token';
    const reservedOk = job?.state === 'reserved' && job.token === token;
    const repeatedFinish = this.action === 'finish' && job?.state === 'finished' && job.finishedBy === token;
    const expectedReason = (): string | undefined => {
      if (!job) return 'not_found';
      if (repeatedFinish) return undefined;
      if (this.action === 'cancel')
        return ['delayed', 'ready', 'reserved'].includes(job.state) ? undefined : 'wrong_state';
      if (job.state !== 'reserved') return 'wrong_state';
      return reservedOk ? undefined : 'token_mismatch';
    };
    if (this.action === 'redrive') {
      const count = await r.store.redrive({ ids: [key] }, m.now);
      expect(count).toBe(job?.state === 'dead' ? 1 : 0);
      if (job?.state === 'dead') Object.assign(job, { state: 'ready', attempts: 0, runAt: m.now });
      return agree(m, r);
    }
    let outcome;
    switch (this.action) {
      case 'finish':
        outcome = await r.store.finish(key, token, m.now);
        break;
      case 'touch':
        outcome = await r.store.touch(key, token, m.now);
        break;
      case 'release':
        outcome = await r.store.release(key, token, m.now);
        break;
      case 'cancel':
        outcome = await r.store.cancel(key, m.now);
        break;
      case 'fail': {
        const decision = decideFailure(RETRY, job?.attempts ?? 0, m.now);
        outcome =
          decision.action === 'retry'
            ? await r.store.retry(key, token, m.now, { runAt: decision.runAt, error: 'failed' })
            : await r.store.bury(key, token, m.now, { error: 'failed' });
        break;
      }
    }
    const reason = expectedReason();
    expect(outcome.ok ? undefined : outcome.reason).toBe(reason);
    if (this.action === 'cancel' && outcome.ok)
      expect((outcome.value as { dispatched: boolean }).dispatched).toBe(job?.state === 'reserved');
    if (repeatedFinish) expect(outcome).toMatchObject({ ok: true, repeated: true });
    if (reason === undefined && job && !repeatedFinish) {
      const leave = () => Object.assign(job, { staleToken: job.token, token: null, deadlineAt: null });
      switch (this.action) {
        case 'finish':
          job.state = 'finished';
          job.finishedBy = job.token;
          leave();
          break;
        case 'touch':
          job.deadlineAt = m.now + TTR;
          break;
        case 'release':
          job.state = 'ready';
          job.attempts--;
          leave();
          break;
        case 'cancel':
          job.state = 'cancelled';
          leave();
          break;
        case 'fail': {
          const decision = decideFailure(RETRY, job.attempts, m.now);
          if (decision.action === 'retry') Object.assign(job, { state: 'delayed', runAt: decision.runAt });
          else job.state = 'dead';
          leave();
          break;
        }
      }
    }
    await agree(m, r);
  }
  toString = () => `${this.action}(${this.id}${this.stale ? ', stale token' : ''})`;
}

const commands = [
  fc
    .tuple(fc.constantFrom(...IDS), fc.constantFrom(0, 0, 30, 120), fc.integer({ min: 0, max: 2 }))
    .map(([id, d, p]) => new Push(id, d, p)),
  fc.constantFrom(10, 60, 150).map((ms) => new Advance(ms)),
  fc.integer({ min: 1, max: 3 }).map((n) => new Reserve(n)),
  fc
    .tuple(
      fc.constantFrom<Action>('finish', 'fail', 'touch', 'release', 'cancel', 'redrive'),
      fc.constantFrom(...IDS),
      fc.constantFrom(false, false, false, true),
    )
    .map(([a, id, stale]) => new Act(a, id, stale)),
];

export interface StoreModelOptions {
  /** Reserve must follow the global ready order (priority, runAt, createdAt, id); default true. */
  strictOrder?: boolean;
  /** Test timeout; long searches (many runs) need more than the default 120 s. */
  timeoutMs?: number;
}

/** Runs the model-based test against the store `makeStore` returns (opened and closed here). */
export function storeModelTest(
  name: string,
  makeStore: () => Store | Promise<Store>,
  numRuns = 60,
  options: StoreModelOptions = {},
): void {
  describe(`Store model: ${name}`, () => {
    it(
      'agrees with the state machine model on random command sequences',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.commands(commands, { maxCommands: 80, size: 'large' }), async (cmds) => {
            const store = await makeStore();
            await store.open();
            try {
              const topic = `model-${Math.random().toString(36).slice(2, 10)}`;
              await fc.asyncModelRun(
                () => ({
                  model: { now: Date.UTC(2026, 0, 1), jobs: new Map() },
                  real: { store, topic, strictOrder: options.strictOrder ?? true },
                }),
                cmds,
              );
            } finally {
              await store.close();
            }
          }),
          { numRuns },
        );
      },
      options.timeoutMs ?? 120_000,
    );
  });
}
