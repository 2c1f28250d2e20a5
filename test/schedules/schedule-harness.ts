import { DelayqService } from '../../src/service/service.js';
import { ScheduleRunner, type ScheduleRunnerOptions } from '../../src/schedules/schedule-runner.js';
import { Schedules } from '../../src/schedules/schedules.js';
import { SqliteScheduleStore } from '../../src/store/sqlite/sqlite-schedule-store.js';
import type { ScheduleStore } from '../../src/store/schedule-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Job } from '../../src/core/job.js';
import { FakeClock } from '../helpers/fake-clock.js';

/**
 * A service on SQLite in memory and a schedule store (SQLite in memory unless given), driven by a fake clock;
 * runners come and go (downtime).
 */
export class ScheduleHarness {
  readonly clock: FakeClock;
  readonly service: DelayqService;
  readonly store: ScheduleStore;
  readonly schedules: Schedules;
  runner: ScheduleRunner | undefined;
  private readonly runnerOptions: Partial<ScheduleRunnerOptions>;

  constructor(
    start: number,
    runnerOptions: Partial<ScheduleRunnerOptions> = {},
    store: ScheduleStore = new SqliteScheduleStore({ path: ':memory:' }),
  ) {
    this.store = store;
    this.clock = new FakeClock(start);
    // The job timer stays off: these tests read which jobs were pushed and when they are due.
    this.service = new DelayqService({
      store: new SqliteStore({ path: ':memory:', nodeId: 't' }),
      clock: this.clock,
      runTimer: false,
    });
    this.schedules = new Schedules(this.store, this.service, () => this.runner?.wakeNow());
    this.runnerOptions = { leadMs: 2000, graceMs: 2000, refreshIntervalMs: 400 * 86_400_000, ...runnerOptions };
  }

  async open(): Promise<this> {
    await this.service.start();
    await this.store.open();
    return this;
  }

  async startRunner(): Promise<void> {
    this.runner = new ScheduleRunner(this.store, this.service, this.runnerOptions, (err) => {
      throw err;
    });
    this.runner.start();
    await this.runner.settled();
  }

  async stopRunner(): Promise<void> {
    await this.runner?.stop();
    this.runner = undefined;
  }

  /** Advances the clock to `end`, letting every runner round that comes due run in order. */
  async runUntil(end: number): Promise<void> {
    await this.runner?.settled();
    for (;;) {
      const next = this.clock.nextTimerAt;
      if (next === undefined || next > end) break;
      this.clock.set(next);
      await this.runner?.settled();
    }
    this.clock.set(end);
  }

  /** Every job of `topic`, in due order. */
  async jobs(topic: string): Promise<Job[]> {
    const all: Job[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.service.list({ topic, limit: 1000, cursor });
      all.push(...page.jobs);
      cursor = page.next ?? undefined;
    } while (cursor);
    return all.sort((a, b) => a.runAt - b.runAt);
  }

  async close(): Promise<void> {
    await this.stopRunner();
    await this.store.close();
    await this.service.close();
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();
